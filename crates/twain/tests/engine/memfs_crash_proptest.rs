//! Random sequences of file-system operations on a `MemFs` agree with a simple model of the
//! power-loss rules: at every crash, each directory holds exactly its entries as of its last
//! `sync_dir`, and each file exactly its bytes as of its last sync (with `drop_unsynced`), or
//! a prefix of what was written no shorter than that (with `torn_tail`).

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use twain::fs::{CrashOptions, Fs, MemFs, WritableFile};

const DIRS: [&str; 2] = ["/db", "/db/archive"];
const NAMES: [&str; 3] = ["a", "b", "c"];

#[derive(Debug, Clone)]
enum Op {
    Create {
        dir: usize,
        name: usize,
    },
    Append {
        handle: usize,
        len: usize,
    },
    Sync {
        handle: usize,
    },
    SyncDir {
        dir: usize,
    },
    Rename {
        from: (usize, usize),
        to: (usize, usize),
    },
    Remove {
        dir: usize,
        name: usize,
    },
    Truncate {
        dir: usize,
        name: usize,
        len: usize,
    },
    Crash {
        seed: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let at = (0..DIRS.len(), 0..NAMES.len());
    prop_oneof![
        2 => at.clone().prop_map(|(dir, name)| Op::Create { dir, name }),
        4 => (any::<prop::sample::Index>(), 0..100usize)
            .prop_map(|(h, len)| Op::Append { handle: h.index(usize::MAX), len }),
        2 => any::<prop::sample::Index>().prop_map(|h| Op::Sync { handle: h.index(usize::MAX) }),
        2 => (0..DIRS.len()).prop_map(|dir| Op::SyncDir { dir }),
        1 => (at.clone(), at.clone()).prop_map(|(from, to)| Op::Rename { from, to }),
        1 => at.clone().prop_map(|(dir, name)| Op::Remove { dir, name }),
        1 => (at, 0..150usize).prop_map(|((dir, name), len)| Op::Truncate { dir, name, len }),
        1 => any::<u64>().prop_map(|seed| Op::Crash { seed }),
    ]
}

#[derive(Debug, Default, Clone)]
struct Node {
    data: Vec<u8>,
    synced: usize,
}

#[derive(Debug, Default, Clone)]
struct Dir {
    live: BTreeMap<String, usize>,
    durable: BTreeMap<String, usize>,
}

/// The model, and the real file system with its open handles, side by side.
struct Harness {
    fs: MemFs,
    nodes: Vec<Node>,
    dirs: Vec<Dir>,
    /// Open handles: model node and real handle.
    handles: Vec<(usize, Box<dyn WritableFile>)>,
    next_byte: u8,
}

fn path(dir: usize, name: usize) -> PathBuf {
    PathBuf::from(DIRS[dir]).join(NAMES[name])
}

fn kind<T>(result: io::Result<T>) -> Option<io::ErrorKind> {
    result.err().map(|e| e.kind())
}

impl Harness {
    fn new() -> Harness {
        let fs = MemFs::new();
        for dir in DIRS {
            fs.create_dir_all(&PathBuf::from(dir)).unwrap();
        }
        Harness {
            fs,
            nodes: Vec::new(),
            dirs: vec![Dir::default(); DIRS.len()],
            handles: Vec::new(),
            next_byte: 0,
        }
    }

    fn live(&self, dir: usize, name: usize) -> Option<usize> {
        self.dirs[dir].live.get(NAMES[name]).copied()
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Create { dir, name } => {
                let file = self.fs.create(&path(dir, name)).unwrap();
                let node = match self.live(dir, name) {
                    Some(node) => {
                        self.nodes[node] = Node::default();
                        node
                    }
                    None => {
                        self.nodes.push(Node::default());
                        let node = self.nodes.len() - 1;
                        self.dirs[dir].live.insert(NAMES[name].to_owned(), node);
                        node
                    }
                };
                self.handles.push((node, file));
            }
            Op::Append { handle, len } => {
                if self.handles.is_empty() {
                    return;
                }
                let count = self.handles.len();
                let (node, file) = &mut self.handles[handle % count];
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        self.next_byte = self.next_byte.wrapping_add(1);
                        self.next_byte
                    })
                    .collect();
                file.append(&bytes).unwrap();
                self.nodes[*node].data.extend_from_slice(&bytes);
            }
            Op::Sync { handle } => {
                if self.handles.is_empty() {
                    return;
                }
                let count = self.handles.len();
                let (node, file) = &mut self.handles[handle % count];
                file.sync_data().unwrap();
                self.nodes[*node].synced = self.nodes[*node].data.len();
            }
            Op::SyncDir { dir } => {
                self.fs.sync_dir(&PathBuf::from(DIRS[dir])).unwrap();
                self.dirs[dir].durable = self.dirs[dir].live.clone();
            }
            Op::Rename { from, to } => {
                let result = self.fs.rename(&path(from.0, from.1), &path(to.0, to.1));
                match self.live(from.0, from.1) {
                    None => assert_eq!(kind(result), Some(io::ErrorKind::NotFound)),
                    Some(node) => {
                        result.unwrap();
                        if from != to {
                            self.dirs[from.0].live.remove(NAMES[from.1]);
                            self.dirs[to.0].live.insert(NAMES[to.1].to_owned(), node);
                        }
                    }
                }
            }
            Op::Remove { dir, name } => {
                let result = self.fs.remove_file(&path(dir, name));
                match self.dirs[dir].live.remove(NAMES[name]) {
                    None => assert_eq!(kind(result), Some(io::ErrorKind::NotFound)),
                    Some(_) => result.unwrap(),
                }
            }
            Op::Truncate { dir, name, len } => {
                let result = self.fs.truncate(&path(dir, name), len as u64);
                match self.live(dir, name) {
                    None => assert_eq!(kind(result), Some(io::ErrorKind::NotFound)),
                    Some(node) => {
                        result.unwrap();
                        let node = &mut self.nodes[node];
                        node.data.resize(len, 0);
                        node.synced = node.synced.min(len);
                    }
                }
            }
            Op::Crash { seed } => {
                self.check_crash_drops_unsynced();
                self.check_torn_crash(seed);
            }
        }
    }

    /// The original file system shows the live state of the model.
    fn check_live(&self) {
        for (d, dir) in self.dirs.iter().enumerate() {
            let dir_path = PathBuf::from(DIRS[d]);
            let names: Vec<String> = dir.live.keys().cloned().collect();
            assert_eq!(
                self.fs.file_names(&dir_path),
                names,
                "live names of {dir_path:?}"
            );
            for (name, &node) in &dir.live {
                let got = self.fs.read_file(&dir_path.join(name)).unwrap();
                assert_eq!(got, self.nodes[node].data, "live {name} in {dir_path:?}");
            }
        }
    }

    /// A crash with `drop_unsynced` shows exactly the durable state of the model.
    fn check_crash_drops_unsynced(&self) {
        let image = self.fs.crash(&CrashOptions::drop_unsynced());
        for (d, dir) in self.dirs.iter().enumerate() {
            let dir_path = PathBuf::from(DIRS[d]);
            let names: Vec<String> = dir.durable.keys().cloned().collect();
            assert_eq!(
                image.file_names(&dir_path),
                names,
                "durable names of {dir_path:?}"
            );
            for (name, &node) in &dir.durable {
                let node = &self.nodes[node];
                let got = image.read_file(&dir_path.join(name)).unwrap();
                assert_eq!(
                    got,
                    node.data[..node.synced],
                    "durable {name} in {dir_path:?}"
                );
            }
        }
    }

    /// A crash with a torn tail keeps, of each durable file, a prefix of what was written
    /// that holds at least the synced bytes.
    fn check_torn_crash(&self, seed: u64) {
        let image = self.fs.crash(&CrashOptions::torn(seed));
        for (d, dir) in self.dirs.iter().enumerate() {
            let dir_path = PathBuf::from(DIRS[d]);
            let names: Vec<String> = dir.durable.keys().cloned().collect();
            assert_eq!(image.file_names(&dir_path), names);
            for (name, &node) in &dir.durable {
                let node = &self.nodes[node];
                let got = image.read_file(&dir_path.join(name)).unwrap();
                assert!(got.len() >= node.synced && got.len() <= node.data.len());
                assert_eq!(got, node.data[..got.len()], "torn {name} in {dir_path:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn crash_images_match_the_model(ops in prop::collection::vec(op(), 1..60)) {
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op);
            harness.check_live();
        }
        harness.check_crash_drops_unsynced();
        harness.check_torn_crash(ops.len() as u64);
    }
}

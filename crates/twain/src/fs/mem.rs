//! [`Fs`] in memory, with a power-loss model: [`MemFs`].
//!
//! The semantics are specified in the docs of [`MemFs`].
#![deny(clippy::indexing_slicing)]

use super::{FileLock, Fs, ReadableFile, WritableFile};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

mod crash;
mod punch;

pub use crash::CrashOptions;

/// How many operations of each kind a [`MemFs`] has served (through [`Fs`] and the handles
/// it returned) since it was made. A crash image starts from zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemOpCounts {
    /// Successful [`Fs::create`] calls.
    pub creates: u64,
    /// Successful [`WritableFile::append`] calls.
    pub appends: u64,
    /// Bytes appended by those calls.
    pub bytes_appended: u64,
    /// [`WritableFile::flush`] calls.
    pub flushes: u64,
    /// [`WritableFile::sync_data`] calls.
    pub syncs: u64,
    /// Successful [`Fs::sync_dir`] calls.
    pub dir_syncs: u64,
    /// Successful [`Fs::rename`] calls.
    pub renames: u64,
    /// Successful [`Fs::remove_file`] calls.
    pub removes: u64,
    /// Successful [`Fs::truncate`] calls.
    pub truncates: u64,
    /// Successful [`Fs::punch_hole`] calls.
    pub punches: u64,
    /// Successful [`Fs::hard_link`] calls.
    pub links: u64,
}

/// An in-memory [`Fs`] with a power-loss model.
///
/// # Names and nodes
///
/// A `MemFs` holds directories and file *nodes*. A directory maps names to nodes; an open
/// handle holds its node directly. As on POSIX, a file that is removed or renamed stays
/// readable and writable through the handles already open on it, and appends are visible to
/// every reader at once (`flush` does nothing but count). Paths are used as given, after
/// dropping `.` components and repeated separators; `..` is not resolved. Names must be UTF-8.
///
/// Directories must exist (see [`Fs::create_dir_all`]) before files are made in them:
/// creating, opening, listing or removing in a missing directory fails with `NotFound`, like
/// the operating system. The root `/` and the current directory (the empty path) always exist.
/// Directories cannot be removed or renamed. [`Fs::hard_link`] adds a second name for a
/// node, as on POSIX; [`Fs::link_count`] counts the live names of a node.
///
/// [`Fs::lock`] locks the file node (creating the file if missing, as a live entry that is
/// not durable until its directory is synced); a second lock of it fails with `WouldBlock`
/// until the first guard is dropped; the guard's [`FileLock::still_held`] is `false` once the
/// path no longer names the locked node. Locks are not part of a crash image.
///
/// # The power-loss model
///
/// Durability is tracked separately for file content and for directory entries:
///
/// - **File content.** Each node has its bytes and a *synced length*. `sync_data` through any
///   handle on the node makes its whole current content durable (synced length = length).
///   Appended bytes past the synced length are the node's *unsynced tail*.
/// - **Directory entries.** Each directory has its *live* entries (what `list_dir`, `open_*`
///   and `exists` see) and its *durable* entries, both name → node. `sync_dir(dir)` makes the
///   durable entries a copy of the live ones; so a creation, a removal, and either side of a
///   rename become durable only when the directory holding that name is synced. A rename
///   between two directories needs both synced (until then a crash may show the file under
///   both names, sharing one node, or under neither).
/// - **Directories** themselves are durable as soon as they are created.
/// - **Truncation** ([`Fs::truncate`], and [`Fs::create`] of an existing name, which empties
///   the existing node in place like `O_TRUNC`) is durable at once: the node is shortened and
///   its synced length clamped to the new length. Growing a file with `truncate` adds zero
///   bytes that are unsynced.
/// - **Holes.** [`Fs::punch_hole`] zeroes the range in the current content at once (every
///   handle reads zeros) and frees its whole 4 KiB blocks, which [`Fs::allocated_bytes`]
///   subtracts; bytes later written into a freed block allocate it again. Like written data,
///   a punch is durable at the next `sync_data` of the file; until then a crash image keeps
///   the first *k* of the file's unsynced punches, in order (a journal commits them in
///   order): *k* = 0 without `torn_tail`, drawn uniformly from `0..=n` with it. An undone
///   punch shows the bytes it zeroed. [`MemFs::set_punch_hole_support`] makes punching fail
///   with `Unsupported`, as on a file system without it.
///
/// [`MemFs::crash`] returns a new, independent `MemFs` holding the state after a simulated
/// power loss at that instant: every directory holds exactly its durable entries (live =
/// durable), and every file reached through them holds its synced bytes plus, per
/// [`CrashOptions`], possibly part of its unsynced tail:
///
/// - with neither option ([`CrashOptions::drop_unsynced`]), exactly the synced bytes;
/// - with `torn_tail`, a prefix of the unsynced tail chosen at random for each file: none of
///   it with probability 1/4, all of it with probability 1/4, otherwise a length drawn
///   uniformly from `0..=tail`. The kept bytes are the bytes that were written, never more;
/// - with `garbage_sector` as well, in each file that kept a non-empty unsynced region, one
///   4 KiB sector (aligned on a multiple of 4096 in the file) that overlaps the kept unsynced
///   region is chosen at random, and the part of it inside that region is overwritten with
///   random bytes. Synced bytes are never touched. Without `torn_tail` there is no kept
///   unsynced region, so `garbage_sector` alone changes nothing.
///
/// In the image every byte is durable (synced length = length) and no lock is held. The
/// choice is deterministic: the same state and the same seed give the same image (files are
/// visited in path order). The snapshot is taken atomically — the directory table and every
/// surviving node are locked together — so an image never shows a later sync without an
/// earlier one, even while other threads keep writing to the original, which keeps working
/// and never affects the image.
///
/// # Thread safety
///
/// `MemFs` is a cheap handle: clones share one file system. The directory table sits behind
/// one mutex and each node's bytes behind their own; the directory lock is always taken
/// before a node lock, and a handle only ever takes its node's lock.
#[derive(Clone)]
pub struct MemFs {
    shared: Arc<Shared>,
}

/// What every clone of a [`MemFs`] and every handle it returned share.
struct Shared {
    state: Mutex<State>,
    counters: Counters,
    next_node: AtomicU64,
    /// Whether [`Fs::punch_hole`] works (see [`MemFs::set_punch_hole_support`]).
    punch_holes: AtomicBool,
}

/// The directory table and the lock table.
#[derive(Default)]
struct State {
    dirs: BTreeMap<PathBuf, Dir>,
    /// Ids of the nodes locked through [`Fs::lock`].
    locked: HashSet<u64>,
}

/// A directory: its live entries and the entries that survive a crash.
#[derive(Default)]
struct Dir {
    live: BTreeMap<String, Arc<Node>>,
    durable: BTreeMap<String, Arc<Node>>,
}

/// A file, shared by the directory entries and the handles that reach it.
struct Node {
    /// Unique within one `MemFs`; keys the lock table.
    id: u64,
    content: Mutex<Content>,
}

/// A node's bytes. INVARIANT: `synced_len <= data.len()`; every hole is a block that
/// starts inside `data`.
#[derive(Default)]
struct Content {
    data: Vec<u8>,
    synced_len: usize,
    /// The [`ALLOCATION_BLOCK`](super::ALLOCATION_BLOCK)s freed by punches, by index.
    holes: BTreeSet<u64>,
    /// The punches since the last sync, oldest first.
    unsynced_punches: Vec<punch::UnsyncedPunch>,
}

#[derive(Default)]
struct Counters {
    creates: AtomicU64,
    appends: AtomicU64,
    bytes_appended: AtomicU64,
    flushes: AtomicU64,
    syncs: AtomicU64,
    dir_syncs: AtomicU64,
    renames: AtomicU64,
    removes: AtomicU64,
    truncates: AtomicU64,
    punches: AtomicU64,
    links: AtomicU64,
}

/// Locks a mutex, carrying on after a panic of another holder (the state stays usable: every
/// update under these locks leaves it consistent before anything can panic).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn bump(counter: &AtomicU64, by: u64) {
    counter.fetch_add(by, Ordering::Relaxed);
}

fn err(kind: io::ErrorKind, what: &str, path: &Path) -> io::Error {
    io::Error::new(kind, format!("{what}: {}", path.display()))
}

fn not_found(path: &Path) -> io::Error {
    err(io::ErrorKind::NotFound, "no such file or directory", path)
}

/// Drops `.` components and repeated or trailing separators.
fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

/// Splits a file path into its (normalized) directory and its name.
fn split(path: &Path) -> io::Result<(PathBuf, String)> {
    let path = normalize(path);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| err(io::ErrorKind::InvalidInput, "not a UTF-8 file name", &path))?
        .to_owned();
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok((dir, name))
}

impl Content {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
}

impl State {
    fn is_dir(&self, path: &Path) -> bool {
        self.dirs.contains_key(&normalize(path))
    }

    fn dir_mut(&mut self, dir: &Path, path: &Path) -> io::Result<&mut Dir> {
        self.dirs.get_mut(dir).ok_or_else(|| not_found(path))
    }

    /// The node a live entry names; `NotFound` if there is none.
    fn live_node(&self, path: &Path) -> io::Result<Arc<Node>> {
        let (dir, name) = split(path)?;
        if let Some(node) = self.dirs.get(&dir).and_then(|d| d.live.get(&name)) {
            return Ok(node.clone());
        }
        if self.is_dir(path) {
            return Err(err(io::ErrorKind::IsADirectory, "is a directory", path));
        }
        Err(not_found(path))
    }

    /// The distinct nodes reached by `entries` of every directory, in path order.
    fn distinct_nodes<'a>(
        &'a self,
        entries: fn(&'a Dir) -> &'a BTreeMap<String, Arc<Node>>,
    ) -> Vec<&'a Arc<Node>> {
        let mut seen = HashSet::new();
        let mut nodes = Vec::new();
        for dir in self.dirs.values() {
            for node in entries(dir).values() {
                if seen.insert(node.id) {
                    nodes.push(node);
                }
            }
        }
        nodes
    }
}

impl Default for MemFs {
    fn default() -> MemFs {
        MemFs::new()
    }
}

impl MemFs {
    /// An empty file system holding only the root `/` and the current directory.
    pub fn new() -> MemFs {
        let mut state = State::default();
        state.dirs.insert(PathBuf::from("/"), Dir::default());
        state.dirs.insert(PathBuf::new(), Dir::default());
        MemFs::from_state(state)
    }

    fn from_state(state: State) -> MemFs {
        MemFs {
            shared: Arc::new(Shared {
                state: Mutex::new(state),
                counters: Counters::default(),
                next_node: AtomicU64::new(0),
                punch_holes: AtomicBool::new(true),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.shared.state)
    }

    fn new_node(&self, data: Vec<u8>, synced_len: usize) -> Arc<Node> {
        Arc::new(Node {
            id: self.shared.next_node.fetch_add(1, Ordering::Relaxed),
            content: Mutex::new(Content {
                data,
                synced_len,
                ..Content::default()
            }),
        })
    }

    /// The names of the files (not subdirectories) live in `dir`, sorted; empty if `dir`
    /// does not exist.
    pub fn file_names(&self, dir: &Path) -> Vec<String> {
        self.state()
            .dirs
            .get(&normalize(dir))
            .map(|d| d.live.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The whole current content of a file, synced or not.
    pub fn read_file(&self, path: &Path) -> io::Result<Vec<u8>> {
        let node = self.state().live_node(path)?;
        let data = lock(&node.content).data.clone();
        Ok(data)
    }

    /// Makes `path` hold `bytes`, durably: creates (or empties in place) the file, writes,
    /// syncs, and makes this one directory entry durable. For building fixtures; not counted
    /// in [`op_counts`](Self::op_counts).
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let (dir_path, name) = split(path)?;
        let mut state = self.state();
        if state.is_dir(path) {
            return Err(err(io::ErrorKind::IsADirectory, "is a directory", path));
        }
        let existing = state
            .dirs
            .get(&dir_path)
            .and_then(|d| d.live.get(&name))
            .cloned();
        let node = match existing {
            Some(node) => {
                *lock(&node.content) = Content {
                    data: bytes.to_vec(),
                    synced_len: bytes.len(),
                    ..Content::default()
                };
                node
            }
            None => self.new_node(bytes.to_vec(), bytes.len()),
        };
        let dir = state.dir_mut(&dir_path, path)?;
        dir.live.insert(name.clone(), node.clone());
        dir.durable.insert(name, node);
        Ok(())
    }

    /// XORs the byte at `offset` of a file with `xor`, in place, as damage on the medium:
    /// the byte is durable exactly if it was (it lies inside the synced length).
    pub fn corrupt(&self, path: &Path, offset: u64, xor: u8) -> io::Result<()> {
        let node = self.state().live_node(path)?;
        let mut content = lock(&node.content);
        let byte = usize::try_from(offset)
            .ok()
            .and_then(|i| content.data.get_mut(i))
            .ok_or_else(|| err(io::ErrorKind::UnexpectedEof, "offset past the end", path))?;
        *byte ^= xor;
        Ok(())
    }

    /// How many leading bytes of a file are durable.
    pub fn synced_len(&self, path: &Path) -> io::Result<u64> {
        let node = self.state().live_node(path)?;
        let synced = lock(&node.content).synced_len;
        Ok(synced as u64)
    }

    /// The sum of the sizes of the files that live directory entries name (each file
    /// counted once however many names it has). Files reachable only through open handles
    /// or durable entries are not counted.
    pub fn total_bytes(&self) -> u64 {
        let state = self.state();
        state
            .distinct_nodes(|d| &d.live)
            .into_iter()
            .map(|n| lock(&n.content).len())
            .sum()
    }

    /// Makes [`Fs::punch_hole`] work (the default) or fail with `io::ErrorKind::Unsupported`,
    /// as on a file system that cannot punch holes. Crash images inherit the setting.
    pub fn set_punch_hole_support(&self, supported: bool) {
        self.shared.punch_holes.store(supported, Ordering::Relaxed);
    }

    /// How many operations of each kind this file system has served.
    pub fn op_counts(&self) -> MemOpCounts {
        let c = &self.shared.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        MemOpCounts {
            creates: get(&c.creates),
            appends: get(&c.appends),
            bytes_appended: get(&c.bytes_appended),
            flushes: get(&c.flushes),
            syncs: get(&c.syncs),
            dir_syncs: get(&c.dir_syncs),
            renames: get(&c.renames),
            removes: get(&c.removes),
            truncates: get(&c.truncates),
            punches: get(&c.punches),
            links: get(&c.links),
        }
    }

    fn writable(&self, node: Arc<Node>) -> Box<dyn WritableFile> {
        Box::new(MemWritable {
            node,
            shared: self.shared.clone(),
        })
    }
}

impl fmt::Debug for MemFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        let files: usize = state.dirs.values().map(|d| d.live.len()).sum();
        f.debug_struct("MemFs")
            .field("dirs", &state.dirs.len())
            .field("files", &files)
            .finish()
    }
}

impl Fs for MemFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let path = normalize(path);
        let mut state = self.state();
        for ancestor in path.ancestors() {
            let Ok((dir, name)) = split(ancestor) else {
                continue;
            };
            if state
                .dirs
                .get(&dir)
                .is_some_and(|d| d.live.contains_key(&name))
            {
                let (kind, what) = if ancestor == path {
                    (io::ErrorKind::AlreadyExists, "a file exists")
                } else {
                    (io::ErrorKind::NotADirectory, "not a directory")
                };
                return Err(err(kind, what, ancestor));
            }
        }
        for ancestor in path.ancestors() {
            state.dirs.entry(ancestor.to_path_buf()).or_default();
        }
        Ok(())
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let (dir_path, name) = split(path)?;
        let mut state = self.state();
        if state.is_dir(path) {
            return Err(err(io::ErrorKind::IsADirectory, "is a directory", path));
        }
        let dir = state.dir_mut(&dir_path, path)?;
        let node = match dir.live.get(&name) {
            Some(node) => {
                // Like O_TRUNC: the same node, emptied; durable at once, like `truncate`.
                let mut content = lock(&node.content);
                *content = Content::default();
                drop(content);
                node.clone()
            }
            None => {
                let node = self.new_node(Vec::new(), 0);
                dir.live.insert(name, node.clone());
                node
            }
        };
        bump(&self.shared.counters.creates, 1);
        Ok(self.writable(node))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let node = self.state().live_node(path)?;
        Ok(self.writable(node))
    }

    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let node = self.state().live_node(path)?;
        Ok(Arc::new(MemReadable { node }))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let (dir_path, name) = split(path)?;
        let mut state = self.state();
        if state.is_dir(path) {
            return Err(err(io::ErrorKind::IsADirectory, "is a directory", path));
        }
        let dir = state.dir_mut(&dir_path, path)?;
        dir.live.remove(&name).ok_or_else(|| not_found(path))?;
        bump(&self.shared.counters.removes, 1);
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (from_dir, from_name) = split(from)?;
        let (to_dir, to_name) = split(to)?;
        let mut state = self.state();
        if state.is_dir(from) {
            return Err(err(
                io::ErrorKind::Unsupported,
                "MemFs does not rename directories",
                from,
            ));
        }
        let node = state
            .dirs
            .get(&from_dir)
            .and_then(|d| d.live.get(&from_name))
            .cloned()
            .ok_or_else(|| not_found(from))?;
        if state.is_dir(to) {
            return Err(err(io::ErrorKind::IsADirectory, "is a directory", to));
        }
        if (&from_dir, &from_name) != (&to_dir, &to_name) {
            state.dir_mut(&to_dir, to)?.live.insert(to_name, node);
            state.dir_mut(&from_dir, from)?.live.remove(&from_name);
        }
        bump(&self.shared.counters.renames, 1);
        Ok(())
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        let path = normalize(path);
        let state = self.state();
        let dir = state.dirs.get(&path).ok_or_else(|| not_found(&path))?;
        let mut names: Vec<String> = dir.live.keys().cloned().collect();
        for sub in state.dirs.keys() {
            if sub != &path
                && sub.parent() == Some(path.as_path())
                && let Some(name) = sub.file_name().and_then(|n| n.to_str())
            {
                names.push(name.to_owned());
            }
        }
        Ok(names)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        let path = normalize(path);
        let mut state = self.state();
        let dir = state.dirs.get_mut(&path).ok_or_else(|| not_found(&path))?;
        // IMPORTANT: this is the only place where directory entries become durable.
        dir.durable = dir.live.clone();
        bump(&self.shared.counters.dir_syncs, 1);
        Ok(())
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        let state = self.state();
        Ok(state.is_dir(path) || state.live_node(path).is_ok())
    }

    fn is_file(&self, path: &Path) -> io::Result<bool> {
        let state = self.state();
        if state.is_dir(path) {
            return Ok(false);
        }
        state.live_node(path).map(|_| true)
    }

    fn file_size(&self, path: &Path) -> io::Result<u64> {
        let node = self.state().live_node(path)?;
        let len = lock(&node.content).len();
        Ok(len)
    }

    fn allocated_bytes(&self, path: &Path) -> io::Result<u64> {
        let node = self.state().live_node(path)?;
        let allocated = lock(&node.content).allocated();
        Ok(allocated)
    }

    fn punch_hole(&self, path: &Path, offset: u64, len: u64) -> io::Result<()> {
        let node = self.state().live_node(path)?;
        if !self.shared.punch_holes.load(Ordering::Relaxed) {
            return Err(super::punch_unsupported(path));
        }
        punch::check_range(offset, len)?;
        lock(&node.content).punch(offset, len);
        bump(&self.shared.counters.punches, 1);
        Ok(())
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (to_dir, to_name) = split(to)?;
        let mut state = self.state();
        let node = state.live_node(from)?;
        if state.is_dir(to) {
            return Err(err(io::ErrorKind::AlreadyExists, "is a directory", to));
        }
        let dir = state.dir_mut(&to_dir, to)?;
        if dir.live.contains_key(&to_name) {
            return Err(err(io::ErrorKind::AlreadyExists, "file exists", to));
        }
        dir.live.insert(to_name, node);
        bump(&self.shared.counters.links, 1);
        Ok(())
    }

    fn link_count(&self, path: &Path) -> io::Result<u64> {
        let state = self.state();
        let node = state.live_node(path)?;
        let names = state
            .dirs
            .values()
            .flat_map(|d| d.live.values())
            .filter(|n| n.id == node.id)
            .count();
        Ok(names as u64)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let len = usize::try_from(len)
            .map_err(|_| err(io::ErrorKind::InvalidInput, "length too large", path))?;
        let state = self.state();
        let node = state.live_node(path)?;
        let mut content = lock(&node.content);
        let old_len = content.len();
        content.data.resize(len, 0);
        content.synced_len = content.synced_len.min(len);
        content.length_changed(old_len);
        bump(&self.shared.counters.truncates, 1);
        Ok(())
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        let (dir_path, name) = split(path)?;
        let mut state = self.state();
        if state.is_dir(path) {
            return Err(err(io::ErrorKind::IsADirectory, "is a directory", path));
        }
        let existing = state
            .dirs
            .get(&dir_path)
            .and_then(|d| d.live.get(&name))
            .cloned();
        let node = match existing {
            Some(node) => node,
            None => {
                let node = self.new_node(Vec::new(), 0);
                state
                    .dir_mut(&dir_path, path)?
                    .live
                    .insert(name, node.clone());
                node
            }
        };
        if !state.locked.insert(node.id) {
            return Err(err(
                io::ErrorKind::WouldBlock,
                "lock held by another user",
                path,
            ));
        }
        Ok(Box::new(MemLock {
            node,
            path: path.to_path_buf(),
            shared: self.shared.clone(),
        }))
    }
}

/// An append handle on a node.
struct MemWritable {
    node: Arc<Node>,
    shared: Arc<Shared>,
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        let mut content = lock(&self.node.content);
        let old_len = content.len();
        content.data.extend_from_slice(data);
        content.length_changed(old_len);
        drop(content);
        bump(&self.shared.counters.appends, 1);
        bump(&self.shared.counters.bytes_appended, data.len() as u64);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        bump(&self.shared.counters.flushes, 1);
        Ok(())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        let mut content = lock(&self.node.content);
        // IMPORTANT: the node's whole content becomes durable, whoever wrote it.
        content.synced_len = content.data.len();
        content.unsynced_punches.clear();
        bump(&self.shared.counters.syncs, 1);
        Ok(())
    }

    fn len(&self) -> u64 {
        lock(&self.node.content).len()
    }
}

/// A read handle on a node.
struct MemReadable {
    node: Arc<Node>,
}

impl ReadableFile for MemReadable {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let content = lock(&self.node.content);
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(buf.len())?))
            .and_then(|range| content.data.get(range))
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "read past the end of the file",
                )
            })?;
        buf.copy_from_slice(bytes);
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(lock(&self.node.content).len())
    }
}

/// A held [`Fs::lock`]; releases the node's lock when dropped.
struct MemLock {
    node: Arc<Node>,
    path: PathBuf,
    shared: Arc<Shared>,
}

impl FileLock for MemLock {
    fn still_held(&self) -> io::Result<bool> {
        let now = lock(&self.shared.state).live_node(&self.path);
        Ok(now.is_ok_and(|n| n.id == self.node.id))
    }
}

impl Drop for MemLock {
    fn drop(&mut self) {
        lock(&self.shared.state).locked.remove(&self.node.id);
    }
}

#[cfg(test)]
mod tests;

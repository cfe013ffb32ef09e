//! Regression test: two flushes or compactions that drop values of the same value file at
//! the same time must both find their drop records in its drop file.
//!
//! Found by the long `twain crashtest` run: `twain check` after a kill reported "the
//! manifest counts 56 drops, the file holds 55". Drop records used to be persisted without
//! a lock: two writers could both see no drop file, both create it, and the later one
//! wiped the block the earlier one had synced, whose drops its edit still counted. They now
//! go through `DropIndex::persist`, whose mutex (the drop lock) serializes them.

use std::path::Path;
use std::sync::{Arc, Barrier};
use twain::format::names::{FileType, file_path};
use twain::fs::{Fs, MemFs};
use twain::vlog::{DropIndex, DropWriter, ValueFile, read_drop_set};

#[test]
fn two_writers_creating_the_same_drop_file_keep_both_blocks() {
    for round in 0..200u64 {
        let mem = MemFs::new();
        let fs: Arc<dyn Fs> = Arc::new(mem.clone());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let index = Arc::new(DropIndex::default());
        let file = Arc::new(ValueFile::new(Arc::clone(&fs), dir, 7));
        let start = Arc::new(Barrier::new(2));
        let writers: Vec<_> = [100u64, 200]
            .into_iter()
            .map(|seq| {
                let (fs, index, file, start) = (
                    Arc::clone(&fs),
                    Arc::clone(&index),
                    Arc::clone(&file),
                    Arc::clone(&start),
                );
                std::thread::spawn(move || {
                    let mut w = DropWriter::new();
                    w.add(7, seq + round, 0, 40, b"k");
                    start.wait();
                    index
                        .persist(fs.as_ref(), Path::new("/db"), &mut w, |_| {
                            Some(Arc::clone(&file))
                        })
                        .unwrap()
                        .expect("no epoch required")
                })
            })
            .collect();
        let counted: u64 = writers
            .into_iter()
            .map(|w| w.join().unwrap().0.iter().map(|d| d.count).sum::<u64>())
            .sum();
        let set = read_drop_set(&mem, &file_path(dir, FileType::Drops, 7), 7).unwrap();
        assert_eq!(
            set.keys().copied().collect::<Vec<_>>(),
            vec![100 + round, 200 + round],
            "round {round}: both writers' drops must be in the drop file"
        );
        assert_eq!(counted, 2);
    }
}

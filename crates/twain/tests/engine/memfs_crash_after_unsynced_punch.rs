//! The crash model of a punch (see `MemFs`): a punch is durable at the next `sync_data` of
//! its file. Before that, an image without torn tails shows the range as it was synced;
//! with torn tails it keeps the first k punches in order, never a later one without an
//! earlier one, and counts as freed only the blocks of the punches it kept.

use std::collections::BTreeSet;
use std::path::Path;
use twain::fs::{CrashOptions, Fs, MemFs};

const B: usize = 4096;

fn setup() -> (MemFs, &'static Path) {
    let mem = MemFs::new();
    mem.create_dir_all(Path::new("/d")).unwrap();
    let path = Path::new("/d/1.vlog");
    mem.write_file(path, &vec![7u8; 4 * B]).unwrap();
    (mem, path)
}

#[test]
fn an_unsynced_punch_is_lost_and_a_synced_one_kept() {
    let (mem, path) = setup();
    mem.punch_hole(path, 0, 2 * B as u64).unwrap();
    let image = mem.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(path).unwrap(), vec![7u8; 4 * B]);
    assert_eq!(image.allocated_bytes(path).unwrap(), 4 * B as u64);

    mem.open_append(path).unwrap().sync_data().unwrap();
    let image = mem.crash(&CrashOptions::drop_unsynced());
    let mut want = vec![7u8; 4 * B];
    want[..2 * B].fill(0);
    assert_eq!(image.read_file(path).unwrap(), want);
    assert_eq!(image.allocated_bytes(path).unwrap(), 2 * B as u64);
    // The image's own punches work and count as before.
    image.punch_hole(path, 2 * B as u64, B as u64).unwrap();
    assert_eq!(image.allocated_bytes(path).unwrap(), B as u64);
}

#[test]
fn torn_images_keep_a_prefix_of_the_punches() {
    let (mem, path) = setup();
    // Two unsynced punches: blocks 0 then 2. Possible images: none, first, both.
    mem.punch_hole(path, 0, B as u64).unwrap();
    mem.punch_hole(path, 2 * B as u64, B as u64).unwrap();
    let mut outcomes = BTreeSet::new();
    for seed in 0..64 {
        let image = mem.crash(&CrashOptions::torn(seed));
        let data = image.read_file(path).unwrap();
        assert_eq!(data.len(), 4 * B);
        let punched = |block: usize| data[block * B..(block + 1) * B].iter().all(|&b| b == 0);
        let kept = (punched(0), punched(2));
        assert_ne!(
            kept,
            (false, true),
            "seed {seed}: a later punch without the earlier"
        );
        assert!(!punched(1) && !punched(3));
        let freed = kept.0 as u64 + kept.1 as u64;
        assert_eq!(
            image.allocated_bytes(path).unwrap(),
            (4 - freed) * B as u64,
            "seed {seed}"
        );
        outcomes.insert(kept);
    }
    assert_eq!(outcomes.len(), 3, "every prefix shows up: {outcomes:?}");
}

#[test]
fn a_punch_of_unsynced_bytes_may_keep_them_in_a_torn_image() {
    let mem = MemFs::new();
    mem.create_dir_all(Path::new("/d")).unwrap();
    let path = Path::new("/d/1.vlog");
    let mut w = mem.create(path).unwrap();
    w.append(&vec![3u8; 2 * B]).unwrap();
    mem.sync_dir(Path::new("/d")).unwrap();
    mem.punch_hole(path, 0, 2 * B as u64).unwrap();
    let mut seen = BTreeSet::new();
    for seed in 0..64 {
        let data = mem
            .crash(&CrashOptions::torn(seed))
            .read_file(path)
            .unwrap();
        assert!(data.len() <= 2 * B);
        // Either all the kept bytes are the written ones or all are zeros.
        let first = data.first().copied();
        assert!(data.iter().all(|&b| Some(b) == first), "seed {seed}");
        seen.insert(first);
    }
    assert!(
        seen.contains(&Some(0)) && seen.contains(&Some(3)),
        "{seen:?}"
    );
}

//! `MemFs::crash` keeps exactly what the power-loss model says is durable: synced file bytes,
//! synced directory entries, and with `torn_tail` / `garbage_sector` only damage confined to
//! the unsynced tail.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use twain::fs::{CrashOptions, Fs, MemFs};

const SECTOR: usize = 4096;

fn db() -> (MemFs, PathBuf) {
    let fs = MemFs::new();
    let dir = PathBuf::from("/db");
    fs.create_dir_all(&dir).unwrap();
    (fs, dir)
}

/// Creates `name` in `dir`, appends `synced` and syncs, appends `unsynced`, syncs the dir.
fn file_with_tail(fs: &MemFs, dir: &Path, name: &str, synced: &[u8], unsynced: &[u8]) {
    let mut w = fs.create(&dir.join(name)).unwrap();
    w.append(synced).unwrap();
    w.sync_data().unwrap();
    w.append(unsynced).unwrap();
    fs.sync_dir(dir).unwrap();
}

fn pattern(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt))
        .collect()
}

#[test]
fn synced_bytes_survive() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "f", b"durable", b"");
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(&dir.join("f")).unwrap(), b"durable");
    assert_eq!(image.synced_len(&dir.join("f")).unwrap(), 7);
}

#[test]
fn unsynced_bytes_are_lost_with_drop_unsynced() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "f", b"durable", b" but not this");
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(&dir.join("f")).unwrap(), b"durable");
}

#[test]
fn sync_through_any_handle_makes_the_whole_file_durable() {
    let (fs, dir) = db();
    let mut writer = fs.create(&dir.join("f")).unwrap();
    writer.append(b"written by one handle").unwrap();
    fs.sync_dir(&dir).unwrap();
    fs.open_append(&dir.join("f")).unwrap().sync_data().unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(
        image.read_file(&dir.join("f")).unwrap(),
        b"written by one handle"
    );
}

#[test]
fn torn_tail_is_a_prefix_of_what_was_written() {
    let (fs, dir) = db();
    let synced = pattern(1000, 1);
    let unsynced = pattern(3 * SECTOR, 2);
    file_with_tail(&fs, &dir, "f", &synced, &unsynced);
    let written = [synced.clone(), unsynced].concat();
    let mut lengths = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let image = fs.crash(&CrashOptions::torn(seed));
        let got = image.read_file(&dir.join("f")).unwrap();
        assert!(got.len() >= synced.len(), "seed {seed}: lost synced bytes");
        assert!(got.len() <= written.len(), "seed {seed}: grew past the end");
        assert_eq!(got[..], written[..got.len()], "seed {seed}: not a prefix");
        lengths.insert(got.len());
    }
    assert!(lengths.contains(&synced.len()));
    assert!(lengths.contains(&written.len()));
    assert!(lengths.len() > 3, "torn lengths hardly vary: {lengths:?}");
}

#[test]
fn garbage_sector_lies_only_in_the_kept_unsynced_region() {
    let (fs, dir) = db();
    let synced = pattern(SECTOR + 100, 3);
    let unsynced = pattern(4 * SECTOR, 4);
    file_with_tail(&fs, &dir, "f", &synced, &unsynced);
    let written = [synced.clone(), unsynced].concat();
    let mut damaged_images = 0;
    for seed in 0..64 {
        let image = fs.crash(&CrashOptions::torn_with_garbage(seed));
        let got = image.read_file(&dir.join("f")).unwrap();
        assert!(got.len() >= synced.len() && got.len() <= written.len());
        let changed: Vec<usize> = (0..got.len()).filter(|&i| got[i] != written[i]).collect();
        if let (Some(&first), Some(&last)) = (changed.first(), changed.last()) {
            assert!(
                first >= synced.len(),
                "seed {seed}: synced byte {first} damaged"
            );
            assert_eq!(first / SECTOR, last / SECTOR, "seed {seed}: spans sectors");
            damaged_images += 1;
        }
    }
    assert!(
        damaged_images > 16,
        "only {damaged_images} of 64 images damaged"
    );
}

#[test]
fn file_synced_in_an_unsynced_directory_disappears() {
    let (fs, dir) = db();
    let mut w = fs.create(&dir.join("new")).unwrap();
    w.append(b"synced data").unwrap();
    w.sync_data().unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.file_names(&dir), Vec::<String>::new());
    assert!(!image.exists(&dir.join("new")).unwrap());
}

#[test]
fn directories_are_durable_once_created() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/a/b/c")).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert!(image.exists(Path::new("/a/b/c")).unwrap());
    assert_eq!(image.list_dir(Path::new("/a")).unwrap(), ["b"]);
}

#[test]
fn unsynced_rename_is_undone() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "tmp", b"manifest", b"");
    fs.rename(&dir.join("tmp"), &dir.join("CURRENT")).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.file_names(&dir), ["tmp"]);
    assert_eq!(image.read_file(&dir.join("tmp")).unwrap(), b"manifest");
}

#[test]
fn unsynced_rename_over_a_file_restores_the_old_target() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "CURRENT", b"old", b"");
    file_with_tail(&fs, &dir, "tmp", b"new", b"");
    fs.rename(&dir.join("tmp"), &dir.join("CURRENT")).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(&dir.join("CURRENT")).unwrap(), b"old");
    assert_eq!(image.read_file(&dir.join("tmp")).unwrap(), b"new");
}

#[test]
fn synced_rename_survives() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "tmp", b"manifest", b"");
    fs.rename(&dir.join("tmp"), &dir.join("CURRENT")).unwrap();
    fs.sync_dir(&dir).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.file_names(&dir), ["CURRENT"]);
    assert_eq!(image.read_file(&dir.join("CURRENT")).unwrap(), b"manifest");
}

#[test]
fn unsynced_removal_is_undone() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "old.vlog", b"values", b"");
    fs.remove_file(&dir.join("old.vlog")).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(&dir.join("old.vlog")).unwrap(), b"values");
}

#[test]
fn synced_removal_survives() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "old.vlog", b"values", b"");
    fs.remove_file(&dir.join("old.vlog")).unwrap();
    fs.sync_dir(&dir).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.file_names(&dir), Vec::<String>::new());
}

#[test]
fn removed_file_synced_through_an_open_handle_keeps_its_durable_name() {
    // The durable entry still names the node, so data synced after an unsynced removal
    // is what a crash shows.
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "f", b"one", b"");
    let mut w = fs.open_append(&dir.join("f")).unwrap();
    fs.remove_file(&dir.join("f")).unwrap();
    w.append(b" two").unwrap();
    w.sync_data().unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(&dir.join("f")).unwrap(), b"one two");
}

#[test]
fn truncation_is_durable_at_once() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "f", b"0123456789", b"");
    fs.truncate(&dir.join("f"), 3).unwrap();
    let image = fs.crash(&CrashOptions::torn(9));
    assert_eq!(image.read_file(&dir.join("f")).unwrap(), b"012");
}

#[test]
fn image_is_independent_of_the_original() {
    let (fs, dir) = db();
    file_with_tail(&fs, &dir, "f", b"before", b"");
    let image = fs.crash(&CrashOptions::drop_unsynced());

    // The dying engine keeps writing to the original.
    let mut w = fs.open_append(&dir.join("f")).unwrap();
    w.append(b" after").unwrap();
    w.sync_data().unwrap();
    file_with_tail(&fs, &dir, "g", b"later", b"");
    fs.remove_file(&dir.join("f")).unwrap();
    fs.sync_dir(&dir).unwrap();
    assert_eq!(image.file_names(&dir), ["f"]);
    assert_eq!(image.read_file(&dir.join("f")).unwrap(), b"before");

    // And the recovered engine writing to the image leaves the original alone.
    image
        .open_append(&dir.join("f"))
        .unwrap()
        .append(b"!")
        .unwrap();
    assert_eq!(fs.file_names(&dir), ["g"]);
    assert_eq!(fs.read_file(&dir.join("g")).unwrap(), b"later");
}

#[test]
fn crash_images_are_deterministic_per_seed() {
    let (fs, dir) = db();
    for (i, name) in ["a", "b", "c", "d"].into_iter().enumerate() {
        file_with_tail(&fs, &dir, name, &pattern(100, 0), &pattern(5000 + i, 1));
    }
    let contents = |image: &MemFs| -> Vec<Vec<u8>> {
        image
            .file_names(&dir)
            .iter()
            .map(|n| image.read_file(&dir.join(n)).unwrap())
            .collect()
    };
    let opts = |seed| CrashOptions::torn_with_garbage(seed);
    for seed in 0..8 {
        assert_eq!(
            contents(&fs.crash(&opts(seed))),
            contents(&fs.crash(&opts(seed)))
        );
    }
    let distinct: std::collections::HashSet<Vec<Vec<u8>>> = (0..8)
        .map(|seed| contents(&fs.crash(&opts(seed))))
        .collect();
    assert!(distinct.len() > 1, "every seed gave the same image");
}

#[test]
fn crash_during_concurrent_writes_never_shows_a_later_sync_without_an_earlier_one() {
    // The writer syncs `a` to n bytes, then `b` to n bytes, for n = 1, 2, ...; so at any
    // instant `b` is durable to n - 1 or n bytes when `a` is to n. Between two crashes the
    // main thread waits for the writer to make progress, so the crashes land mid-run; a
    // snapshot that locked the files one after the other fails this in most runs
    // (`a` starts with a large synced ballast, so copying it leaves such a snapshot a wide
    // window to miss `a`'s next sync and catch `b`'s).
    const CRASHES: usize = 1000;
    // Rounds the writer may run past the last crash, to bound the files' size.
    const MAX_LEAD: usize = 1000;
    const BALLAST: usize = 1 << 20;
    let (fs, dir) = db();
    let mut a = fs.create(&dir.join("a")).unwrap();
    a.append(&vec![0; BALLAST]).unwrap();
    a.sync_data().unwrap();
    let mut b = fs.create(&dir.join("b")).unwrap();
    fs.sync_dir(&dir).unwrap();
    let rounds = Arc::new(AtomicUsize::new(0));
    let allowed = Arc::new(AtomicUsize::new(MAX_LEAD));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (rounds, allowed, stop) = (rounds.clone(), allowed.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                if n >= allowed.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                    continue;
                }
                a.append(b"x").unwrap();
                a.sync_data().unwrap();
                b.append(b"x").unwrap();
                b.sync_data().unwrap();
                n += 1;
                rounds.store(n, Ordering::Relaxed);
            }
        })
    };
    let mut lengths_seen = std::collections::BTreeSet::new();
    let mut last = 0;
    for _ in 0..CRASHES {
        while rounds.load(Ordering::Relaxed) == last {
            std::thread::yield_now();
        }
        let image = fs.crash(&CrashOptions::drop_unsynced());
        let len_a = image.read_file(&dir.join("a")).unwrap().len() - BALLAST;
        let len_b = image.read_file(&dir.join("b")).unwrap().len();
        assert!(
            len_b <= len_a && len_a <= len_b + 1,
            "a: {len_a}, b: {len_b}"
        );
        lengths_seen.insert(len_a);
        last = rounds.load(Ordering::Relaxed);
        allowed.store(last + MAX_LEAD, Ordering::Relaxed);
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    assert!(
        lengths_seen.len() > CRASHES / 2,
        "crashes did not interleave with writes"
    );
}

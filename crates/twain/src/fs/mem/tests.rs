//! Unit tests of `mem`.

use super::crash::{SECTOR, SplitMix64, crash_content};
use super::*;

fn p(s: &str) -> &Path {
    Path::new(s)
}

/// A MemFs with `/d` created.
fn fs_with_dir() -> MemFs {
    let fs = MemFs::new();
    fs.create_dir_all(p("/d")).unwrap();
    fs
}

fn content(data: &[u8], synced_len: usize) -> Content {
    Content {
        data: data.to_vec(),
        synced_len,
        ..Content::default()
    }
}

#[test]
fn splitmix_is_deterministic_and_varied() {
    let mut a = SplitMix64(7);
    let mut b = SplitMix64(7);
    let xs: Vec<u64> = (0..8).map(|_| a.next()).collect();
    let ys: Vec<u64> = (0..8).map(|_| b.next()).collect();
    assert_eq!(xs, ys);
    let distinct: HashSet<u64> = xs.iter().copied().collect();
    assert_eq!(distinct.len(), 8);
    assert_eq!(SplitMix64(1).below(0), 0);
}

#[test]
fn normalize_drops_cur_dir_and_extra_separators() {
    assert_eq!(normalize(p("/a//b/./c/")), PathBuf::from("/a/b/c"));
    assert_eq!(normalize(p("./x")), PathBuf::from("x"));
}

#[test]
fn crash_content_without_torn_tail_keeps_synced_prefix() {
    let c = content(b"abcdef", 2);
    let mut rng = SplitMix64(3);
    let opts = CrashOptions {
        seed: 3,
        torn_tail: false,
        garbage_sector: true,
    };
    assert_eq!(crash_content(&c, &opts, &mut rng), b"ab");
}

#[test]
fn crash_content_garbage_stays_in_kept_unsynced_region() {
    // Synced length in the middle of a sector; tail spans three sectors.
    let data: Vec<u8> = vec![0xAA; 3 * SECTOR + 100];
    let synced = SECTOR / 2;
    let c = content(&data, synced);
    let mut damaged = 0;
    for seed in 0..200 {
        let mut rng = SplitMix64(seed);
        let out = crash_content(&c, &CrashOptions::torn_with_garbage(seed), &mut rng);
        assert!(out.len() >= synced && out.len() <= data.len());
        assert!(out[..synced].iter().all(|&b| b == 0xAA), "seed {seed}");
        let changed: Vec<usize> = (synced..out.len()).filter(|&i| out[i] != 0xAA).collect();
        if let (Some(&lo), Some(&hi)) = (changed.first(), changed.last()) {
            assert_eq!(
                lo / SECTOR,
                hi / SECTOR,
                "seed {seed}: garbage spans sectors"
            );
            damaged += 1;
        }
    }
    assert!(
        damaged > 50,
        "garbage landed in only {damaged} of 200 images"
    );
}

#[test]
fn torn_tail_hits_none_all_and_between() {
    let c = content(&[1u8; 1000], 100);
    let (mut none, mut all, mut between) = (false, false, false);
    for seed in 0..100 {
        let mut rng = SplitMix64(seed);
        match crash_content(&c, &CrashOptions::torn(seed), &mut rng).len() {
            100 => none = true,
            1000 => all = true,
            _ => between = true,
        }
    }
    assert!(none && all && between);
}

#[test]
fn create_of_existing_name_empties_the_same_node() {
    let fs = fs_with_dir();
    let mut w = fs.create(p("/d/f")).unwrap();
    w.append(b"hello").unwrap();
    w.sync_data().unwrap();
    let r = fs.open_read(p("/d/f")).unwrap();
    let _w2 = fs.create(p("/d/f")).unwrap();
    assert_eq!(r.len().unwrap(), 0);
    assert_eq!(fs.synced_len(p("/d/f")).unwrap(), 0);
}

#[test]
fn truncate_clamps_synced_len_and_growing_is_unsynced() {
    let fs = fs_with_dir();
    let mut w = fs.create(p("/d/f")).unwrap();
    w.append(b"0123456789").unwrap();
    w.sync_data().unwrap();
    fs.truncate(p("/d/f"), 4).unwrap();
    assert_eq!(fs.synced_len(p("/d/f")).unwrap(), 4);
    fs.truncate(p("/d/f"), 6).unwrap();
    assert_eq!(fs.read_file(p("/d/f")).unwrap(), b"0123\0\0");
    assert_eq!(fs.synced_len(p("/d/f")).unwrap(), 4);
}

#[test]
fn cross_dir_rename_synced_on_target_only_leaves_two_names_on_one_node() {
    let fs = fs_with_dir();
    fs.create_dir_all(p("/e")).unwrap();
    fs.write_file(p("/d/f"), b"x").unwrap();
    fs.rename(p("/d/f"), p("/e/g")).unwrap();
    fs.sync_dir(p("/e")).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.file_names(p("/d")), ["f"]);
    assert_eq!(image.file_names(p("/e")), ["g"]);
    // One node under two names: an append through one name shows under the other.
    image.open_append(p("/d/f")).unwrap().append(b"y").unwrap();
    assert_eq!(image.read_file(p("/e/g")).unwrap(), b"xy");
    assert_eq!(image.total_bytes(), 2);
}

#[test]
fn lock_is_per_file_and_released_on_drop() {
    let fs = fs_with_dir();
    let a = fs.lock(p("/d/LOCK")).unwrap();
    let _b = fs.lock(p("/d/OTHER")).unwrap();
    let again = fs.lock(p("/d/LOCK")).err().map(|e| e.kind());
    assert_eq!(again, Some(io::ErrorKind::WouldBlock));
    drop(a);
    assert!(fs.lock(p("/d/LOCK")).is_ok());
}

#[test]
fn lock_does_not_carry_into_a_crash_image() {
    let fs = fs_with_dir();
    let _held = fs.lock(p("/d/LOCK")).unwrap();
    fs.sync_dir(p("/d")).unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert!(image.lock(p("/d/LOCK")).is_ok());
}

#[test]
fn op_counts_count_each_kind() {
    let fs = fs_with_dir();
    let mut w = fs.create(p("/d/f")).unwrap();
    w.append(b"abc").unwrap();
    w.append(b"de").unwrap();
    w.flush().unwrap();
    w.sync_data().unwrap();
    fs.sync_dir(p("/d")).unwrap();
    fs.rename(p("/d/f"), p("/d/g")).unwrap();
    fs.truncate(p("/d/g"), 1).unwrap();
    fs.remove_file(p("/d/g")).unwrap();
    let c = fs.op_counts();
    assert_eq!(
        (c.creates, c.appends, c.bytes_appended, c.flushes, c.syncs),
        (1, 2, 5, 1, 1)
    );
    assert_eq!(
        (c.dir_syncs, c.renames, c.truncates, c.removes),
        (1, 1, 1, 1)
    );
    assert_eq!(
        fs.crash(&CrashOptions::drop_unsynced()).op_counts(),
        MemOpCounts::default()
    );
}

#[test]
fn create_dir_all_over_a_file_fails() {
    let fs = fs_with_dir();
    fs.write_file(p("/d/f"), b"").unwrap();
    let kind = |r: io::Result<()>| r.err().map(|e| e.kind());
    assert_eq!(
        kind(fs.create_dir_all(p("/d/f"))),
        Some(io::ErrorKind::AlreadyExists)
    );
    assert_eq!(
        kind(fs.create_dir_all(p("/d/f/g"))),
        Some(io::ErrorKind::NotADirectory)
    );
}

#[test]
fn write_file_is_durable_without_sync_dir() {
    let fs = fs_with_dir();
    fs.write_file(p("/d/f"), b"fixture").unwrap();
    let image = fs.crash(&CrashOptions::drop_unsynced());
    assert_eq!(image.read_file(p("/d/f")).unwrap(), b"fixture");
}

#[test]
fn corrupt_flips_bits_in_place() {
    let fs = fs_with_dir();
    fs.write_file(p("/d/f"), &[0b1010_0000, 7]).unwrap();
    fs.corrupt(p("/d/f"), 0, 0b0000_0101).unwrap();
    assert_eq!(fs.read_file(p("/d/f")).unwrap(), [0b1010_0101, 7]);
    let past = fs.corrupt(p("/d/f"), 2, 1).err().map(|e| e.kind());
    assert_eq!(past, Some(io::ErrorKind::UnexpectedEof));
}

#[test]
fn memfs_is_send_sync_and_debug() {
    fn assert_traits<T: Send + Sync + fmt::Debug + Clone>() {}
    assert_traits::<MemFs>();
    let fs = fs_with_dir();
    fs.write_file(p("/d/f"), b"").unwrap();
    assert_eq!(format!("{fs:?}"), "MemFs { dirs: 3, files: 1 }");
}

//! `Fs::punch_hole` on `MemFs` (and a `FaultFs` over it) behaves like Linux's
//! `fallocate(PUNCH_HOLE | KEEP_SIZE)`: the range reads as zeros through handles already
//! open, the size stays, whole 4 KiB blocks are freed and partial ones only zeroed. A random
//! sequence of appends, punches and truncations matches a model of bytes and freed blocks.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;
use std::sync::Arc;
use twain::fs::{ALLOCATION_BLOCK, FaultFs, Fs, MemFs};

const B: u64 = ALLOCATION_BLOCK;

fn filled(fs: &dyn Fs, path: &Path, len: usize) {
    let mut w = fs.create(path).unwrap();
    let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8 + 1).collect();
    w.append(&bytes).unwrap();
    w.sync_data().unwrap();
}

fn read_all(fs: &dyn Fs, path: &Path) -> Vec<u8> {
    let r = fs.open_read(path).unwrap();
    r.read_vec(0, r.len().unwrap() as usize).unwrap()
}

fn check_punches(fs: &dyn Fs) {
    fs.create_dir_all(Path::new("/d")).unwrap();
    let path = Path::new("/d/000001.vlog");
    filled(fs, path, 5 * B as usize + 100); // 6 blocks, the last partial
    let before = read_all(fs, path);
    let reader = fs.open_read(path).unwrap();
    assert_eq!(fs.allocated_bytes(path).unwrap(), 6 * B);

    // Unaligned: zeroes 100..B+200, frees nothing (no whole block inside).
    fs.punch_hole(path, 100, B + 100).unwrap();
    assert_eq!(fs.allocated_bytes(path).unwrap(), 6 * B);
    // Covers blocks 2 and 3 whole and part of 4.
    fs.punch_hole(path, 2 * B, 2 * B + 10).unwrap();
    assert_eq!(fs.allocated_bytes(path).unwrap(), 4 * B);
    assert_eq!(fs.file_size(path).unwrap(), before.len() as u64);

    let mut want = before.clone();
    want[100..(B + 200) as usize].fill(0);
    want[2 * B as usize..(4 * B + 10) as usize].fill(0);
    let mut seen = vec![0u8; want.len()];
    reader.read_exact_at(&mut seen, 0).unwrap();
    assert_eq!(seen, want, "an open handle reads the zeros");

    // Reaching past the end frees the end's partial block; size unchanged.
    fs.punch_hole(path, 5 * B, 1 << 20).unwrap();
    assert_eq!(fs.allocated_bytes(path).unwrap(), 3 * B);
    assert_eq!(fs.file_size(path).unwrap(), want.len() as u64);
    want[5 * B as usize..].fill(0);
    // Starting at or past the end does nothing; an empty range is invalid.
    fs.punch_hole(path, want.len() as u64, B).unwrap();
    fs.punch_hole(path, 1 << 30, B).unwrap();
    let empty = fs.punch_hole(path, 0, 0).unwrap_err();
    assert_eq!(empty.kind(), io::ErrorKind::InvalidInput);
    let huge = fs.punch_hole(path, u64::MAX - 1, 10).unwrap_err();
    assert_eq!(huge.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(read_all(fs, path), want);

    // Appending writes into the freed tail block: it is allocated again.
    let mut w = fs.open_append(path).unwrap();
    w.append(b"tail").unwrap();
    assert_eq!(fs.allocated_bytes(path).unwrap(), 4 * B);
    want.extend_from_slice(b"tail");
    assert_eq!(read_all(fs, path), want);
    let missing = fs.punch_hole(Path::new("/d/none"), 0, B).unwrap_err();
    assert_eq!(missing.kind(), io::ErrorKind::NotFound);
}

#[test]
fn memfs_punch_matches_linux() {
    check_punches(&MemFs::new());
    check_punches(&FaultFs::new(Arc::new(MemFs::new())));
    assert_eq!(MemFs::new().op_counts().punches, 0);
}

/// Punches `offset..offset + len` in the model, as documented for `Fs::punch_hole`.
fn model_punch(data: &mut [u8], holes: &mut BTreeSet<u64>, offset: u64, len: u64) {
    let size = data.len() as u64;
    if offset >= size {
        return;
    }
    let end = offset + len;
    let (end, end_block) = if end >= size {
        (size, size.div_ceil(B))
    } else {
        (end, end / B)
    };
    data[offset as usize..end as usize].fill(0);
    holes.extend(offset.div_ceil(B)..end_block.max(offset.div_ceil(B)));
}

/// splitmix64: deterministic choices for the model test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

#[test]
fn random_punches_match_a_model() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/d")).unwrap();
    let path = Path::new("/d/f");
    for seed in 0..20u64 {
        let mut rng = Rng(seed);
        let mut w = fs.create(path).unwrap();
        let mut data: Vec<u8> = Vec::new();
        let mut holes = BTreeSet::new();
        for _ in 0..60 {
            match rng.below(5) {
                0 | 1 => {
                    let n = 1 + rng.below(3 * B) as usize;
                    let bytes = vec![rng.below(255) as u8 + 1; n];
                    let old = data.len() as u64;
                    w.append(&bytes).unwrap();
                    data.extend_from_slice(&bytes);
                    holes.retain(|&b| b < old / B);
                }
                2 | 3 => {
                    let size = data.len() as u64 + B;
                    let offset = rng.below(size);
                    let len = 1 + rng.below(4 * B);
                    fs.punch_hole(path, offset, len).unwrap();
                    model_punch(&mut data, &mut holes, offset, len);
                }
                _ => {
                    let old = data.len() as u64;
                    let len = rng.below(old + B);
                    fs.truncate(path, len).unwrap();
                    data.resize(len as usize, 0);
                    let keep = if len < old { len.div_ceil(B) } else { old / B };
                    holes.retain(|&b| b < keep);
                }
            }
            assert_eq!(fs.read_file(path).unwrap(), data, "seed {seed}");
            let want = (data.len() as u64).div_ceil(B) * B - holes.len() as u64 * B;
            assert_eq!(fs.allocated_bytes(path).unwrap(), want, "seed {seed}");
        }
    }
}

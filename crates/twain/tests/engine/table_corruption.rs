//! Damage in any region of a table is reported as `Error::Corruption` naming the table's
//! path and an offset inside the damaged block, never returned as data and never a panic.

use crate::common;

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use twain::Error;
use twain::cache::BlockCache;
use twain::format::block::{BLOCK_TRAILER_LEN, Block, BlockIter};
use twain::format::table::{BlockHandle, FOOTER_LEN, Footer};
use twain::iter::InternalIterator;
use twain::key::{MAX_SEQNO, lookup_key, user_key};
use twain::table::{Table, TableOptions};

/// A table of several data blocks with a filter.
fn sample() -> common::TempTable {
    let entries: Vec<_> = (0..400u32)
        .map(|i| {
            common::inline(
                format!("key{i:05}").as_bytes(),
                1000 - u64::from(i),
                b"value",
            )
        })
        .collect();
    let opts = TableOptions {
        block_size: 256,
        ..TableOptions::default()
    };
    common::TempTable::new(&entries, &opts)
}

/// The on-disk extent of a block (contents and trailer).
fn extent(h: BlockHandle) -> Range<u64> {
    h.offset..h.offset + h.size + BLOCK_TRAILER_LEN as u64
}

fn footer_of(bytes: &[u8]) -> Footer {
    Footer::decode(&bytes[bytes.len() - FOOTER_LEN..]).unwrap()
}

/// The data block handles, read from the (intact) index.
fn data_blocks(bytes: &[u8]) -> Vec<BlockHandle> {
    let f = footer_of(bytes);
    let ix = extent(f.index);
    let contents = bytes[ix.start as usize..ix.end as usize - BLOCK_TRAILER_LEN].to_vec();
    let block = Block::parse(contents).unwrap();
    let mut it = BlockIter::new(&block);
    let mut out = Vec::new();
    it.seek_to_first().unwrap();
    while it.valid() {
        out.push(BlockHandle::decode(it.value()).unwrap());
        it.next().unwrap();
    }
    out
}

/// The user key of the first entry of the (intact) block at `h`.
fn first_user_key(bytes: &[u8], h: BlockHandle) -> Vec<u8> {
    let contents = bytes[h.offset as usize..(h.offset + h.size) as usize].to_vec();
    let block = Block::parse(contents).unwrap();
    let mut it = BlockIter::new(&block);
    it.seek_to_first().unwrap();
    user_key(it.key()).to_vec()
}

/// Writes `bytes` with byte `at` flipped over the table file, and opens it.
fn open_flipped(path: &Path, bytes: &[u8], at: u64) -> twain::Result<Arc<Table>> {
    let mut bad = bytes.to_vec();
    bad[at as usize] ^= 0x40;
    std::fs::write(path, &bad).unwrap();
    common::open_table(path, 7, Arc::new(BlockCache::new(1 << 20)))
}

/// Asserts `err` is a corruption of `path` at an offset within `region`.
fn assert_corruption_in(err: &Error, path: &Path, region: &Range<u64>, flipped: u64) {
    match err {
        Error::Corruption { file, offset, .. } => {
            assert_eq!(file, path, "flipped byte {flipped}");
            assert!(
                region.contains(offset),
                "flipped byte {flipped}: offset {offset} outside {region:?}: {err}"
            );
        }
        other => panic!("flipped byte {flipped}: expected corruption, got {other}"),
    }
}

/// Flips every byte of `region` in turn and asserts that opening fails there.
fn assert_open_fails_in(region: Range<u64>) {
    let t = sample();
    let bytes = std::fs::read(&t.path).unwrap();
    for at in region.clone() {
        let err = open_flipped(&t.path, &bytes, at).unwrap_err();
        assert_corruption_in(&err, &t.path, &region, at);
    }
}

#[test]
fn damaged_footer_fails_open() {
    let t = sample();
    let len = std::fs::metadata(&t.path).unwrap().len();
    drop(t);
    assert_open_fails_in(len - FOOTER_LEN as u64..len);
}

#[test]
fn damaged_index_block_fails_open() {
    let t = sample();
    let f = footer_of(&std::fs::read(&t.path).unwrap());
    assert_open_fails_in(extent(f.index));
}

#[test]
fn damaged_properties_block_fails_open() {
    let t = sample();
    let f = footer_of(&std::fs::read(&t.path).unwrap());
    assert_open_fails_in(extent(f.properties));
}

#[test]
fn damaged_filter_block_fails_open() {
    let t = sample();
    let f = footer_of(&std::fs::read(&t.path).unwrap());
    assert!(!f.filter.is_null());
    assert_open_fails_in(extent(f.filter));
}

#[test]
fn damaged_data_block_fails_the_scan_and_the_lookup_that_reads_it() {
    let t = sample();
    let bytes = std::fs::read(&t.path).unwrap();
    let blocks = data_blocks(&bytes);
    assert!(blocks.len() > 3);
    let victim = blocks[blocks.len() / 2];
    let region = extent(victim);
    let victim_key = first_user_key(&bytes, victim);
    for at in region.clone() {
        // Opening does not read data blocks.
        let table = open_flipped(&t.path, &bytes, at).unwrap();
        let mut it = table.iter(true);
        let mut result = it.seek_to_first();
        let mut seen = 0;
        while result.is_ok() && it.valid() {
            seen += 1;
            result = it.next();
        }
        let err = result.unwrap_err();
        assert_corruption_in(&err, &t.path, &region, at);
        assert!(!it.valid());
        assert!(seen > 0 && seen < 400);
        // A lookup of a key stored in that block reads it.
        let err = table.get(&lookup_key(&victim_key, MAX_SEQNO)).unwrap_err();
        assert_corruption_in(&err, &t.path, &region, at);
    }
}

#[test]
fn damaged_data_block_is_not_cached() {
    let t = sample();
    let bytes = std::fs::read(&t.path).unwrap();
    let victim = data_blocks(&bytes)[0];
    let cache = Arc::new(BlockCache::new(1 << 20));
    let mut bad = bytes.clone();
    bad[victim.offset as usize + 3] ^= 1;
    std::fs::write(&t.path, &bad).unwrap();
    let table = common::open_table(&t.path, 7, cache.clone()).unwrap();
    assert!(table.iter(true).seek_to_first().is_err());
    assert!(cache.is_empty());
}

#[test]
fn file_shorter_than_a_footer_is_corruption_at_zero() {
    let t = sample();
    std::fs::write(&t.path, b"short").unwrap();
    let err = common::open_table(&t.path, 7, Arc::new(BlockCache::new(0))).unwrap_err();
    assert_corruption_in(&err, &t.path, &(0..1), 0);
}

#[test]
fn file_that_is_not_a_table_says_so() {
    let t = sample();
    std::fs::write(&t.path, vec![0u8; 1000]).unwrap();
    let err = common::open_table(&t.path, 7, Arc::new(BlockCache::new(0))).unwrap_err();
    assert!(err.to_string().contains("not a twain table"), "{err}");
}

#[test]
fn footer_handle_outside_the_file_is_corruption_at_the_footer() {
    let t = sample();
    let mut bytes = std::fs::read(&t.path).unwrap();
    let at = bytes.len() - FOOTER_LEN;
    let mut f = footer_of(&bytes);
    f.index.size = 1 << 40;
    bytes[at..].copy_from_slice(&f.encode());
    std::fs::write(&t.path, &bytes).unwrap();
    let err = common::open_table(&t.path, 7, Arc::new(BlockCache::new(0))).unwrap_err();
    assert_corruption_in(&err, &t.path, &(at as u64..at as u64 + 1), at as u64);
}

#[test]
fn truncated_table_fails_open() {
    let t = sample();
    let bytes = std::fs::read(&t.path).unwrap();
    std::fs::write(&t.path, &bytes[..bytes.len() - 1]).unwrap();
    let err = common::open_table(&t.path, 7, Arc::new(BlockCache::new(0))).unwrap_err();
    assert!(err.is_corruption(), "{err}");
}

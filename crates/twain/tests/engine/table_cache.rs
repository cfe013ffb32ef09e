//! Tables read data blocks through the shared block cache.

use crate::common;

use std::sync::Arc;

use twain::cache::BlockCache;
use twain::iter::InternalIterator;
use twain::key::lookup_key;
use twain::table::TableOptions;

fn entries(tag: &str) -> Vec<common::Entry> {
    (0..300u32)
        .map(|i| {
            common::inline(
                format!("k{i:04}").as_bytes(),
                1,
                format!("{tag}{i}").as_bytes(),
            )
        })
        .collect()
}

fn small_blocks() -> TableOptions {
    TableOptions {
        block_size: 512,
        ..TableOptions::default()
    }
}

#[test]
fn repeated_get_hits_the_cache() {
    let t = common::TempTable::new(&entries("v"), &small_blocks());
    let cache = Arc::new(BlockCache::new(1 << 20));
    let table = common::open_table(&t.path, 1, cache.clone()).unwrap();
    let lookup = lookup_key(b"k0150", 9);
    let first = table.get(&lookup).unwrap();
    assert_eq!((cache.hits(), cache.misses()), (0, 1));
    assert_eq!(table.get(&lookup).unwrap(), first);
    assert_eq!((cache.hits(), cache.misses()), (1, 1));
}

#[test]
fn filtered_out_get_reads_no_block() {
    let t = common::TempTable::new(&entries("v"), &small_blocks());
    let cache = Arc::new(BlockCache::new(1 << 20));
    let table = common::open_table(&t.path, 1, cache.clone()).unwrap();
    let absent: Vec<_> = (0..100).map(|i| format!("absent{i}")).collect();
    let skipped = absent
        .iter()
        .filter(|k| !table.may_contain(k.as_bytes()))
        .count();
    for k in &absent {
        assert_eq!(table.get(&lookup_key(k.as_bytes(), 9)).unwrap(), None);
    }
    assert_eq!(cache.misses() as usize, 100 - skipped);
}

#[test]
fn scan_without_fill_leaves_the_cache_empty() {
    let t = common::TempTable::new(&entries("v"), &small_blocks());
    let cache = Arc::new(BlockCache::new(1 << 20));
    let table = common::open_table(&t.path, 1, cache.clone()).unwrap();
    let mut it = table.iter(false);
    it.seek_to_first().unwrap();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.next().unwrap();
    }
    assert_eq!(n, 300);
    assert!(cache.is_empty());
    let blocks = table.properties().num_data_blocks;
    assert_eq!(cache.misses(), blocks);

    let mut it = table.iter(true);
    it.seek_to_first().unwrap();
    while it.valid() {
        it.next().unwrap();
    }
    assert_eq!(cache.len() as u64, blocks);
}

#[test]
fn tables_sharing_a_cache_keep_their_own_blocks() {
    let a = common::TempTable::new(&entries("a"), &small_blocks());
    let b = common::TempTable::new(&entries("b"), &small_blocks());
    let cache = Arc::new(BlockCache::new(1 << 20));
    let ta = common::open_table(&a.path, 1, cache.clone()).unwrap();
    let tb = common::open_table(&b.path, 2, cache.clone()).unwrap();
    for i in [0u32, 77, 299] {
        let k = format!("k{i:04}");
        let va = ta.get(&lookup_key(k.as_bytes(), 9)).unwrap().unwrap().1;
        let vb = tb.get(&lookup_key(k.as_bytes(), 9)).unwrap().unwrap().1;
        assert_eq!(va, format!("a{i}").into_bytes());
        assert_eq!(vb, format!("b{i}").into_bytes());
    }
}

#[test]
fn iterator_outlives_the_callers_table_reference() {
    let t = common::TempTable::new(&entries("v"), &small_blocks());
    let table = t.open();
    let mut it = table.iter(true);
    drop(table);
    it.seek_to_last().unwrap();
    assert_eq!(it.value(), b"v299");
}

#[test]
fn concurrent_readers_load_each_block_once() {
    let t = common::TempTable::new(&entries("v"), &small_blocks());
    let cache = Arc::new(BlockCache::new(1 << 20));
    let table = common::open_table(&t.path, 1, cache.clone()).unwrap();
    std::thread::scope(|s| {
        for thread in 0..4u32 {
            let table = &table;
            s.spawn(move || {
                for round in 0..3u32 {
                    for i in 0..300u32 {
                        let i = (i + thread * 71 + round * 13) % 300;
                        let k = format!("k{i:04}");
                        let got = table.get(&lookup_key(k.as_bytes(), 9)).unwrap().unwrap();
                        assert_eq!(got.1, format!("v{i}").into_bytes());
                    }
                }
            });
        }
    });
    let blocks = table.properties().num_data_blocks;
    assert_eq!(cache.misses(), blocks);
    assert_eq!(cache.hits() + cache.misses(), 4 * 3 * 300);
}

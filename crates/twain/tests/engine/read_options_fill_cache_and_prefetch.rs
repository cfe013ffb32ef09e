//! `ReadOptions`: with `fill_cache` false, point reads and iterators read table blocks
//! without adding them to the block cache (a second read misses again, where a default
//! read would hit), and give the same answers; with `prefetch` false, an iterator reads no
//! value ahead of its cursor.

use twain::fs::MemFs;
use twain::{Db, Options, ReadOptions};

fn db() -> Db {
    let opts = Options::default()
        .fs(std::sync::Arc::new(MemFs::new()))
        .memtable_size(64 << 10)
        .inline_threshold(64)
        .prefetch_threads(4)
        .prefetch_min_read_micros(0)
        .gc_enabled(false);
    let db = Db::open("/db", opts).unwrap();
    for i in 0..2000u32 {
        db.put(format!("k{i:05}"), vec![(i % 251) as u8; 200])
            .unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db
}

fn cache(db: &Db) -> (u64, u64) {
    let s = db.stats().unwrap();
    (s.block_cache_hits, s.block_cache_misses)
}

#[test]
fn point_reads_without_filling_the_cache_miss_again() {
    let db = db();
    let no_fill = ReadOptions::default().fill_cache(false);
    let want = Some(vec![(1234 % 251) as u8; 200]);

    // Misses may also come from the background's live-data pass (it reads tables without
    // filling the cache); hits come only from blocks some read kept.
    let (h0, m0) = cache(&db);
    assert_eq!(db.get_opt("k01234", &no_fill).unwrap(), want);
    assert_eq!(db.get_opt("k01234", &no_fill).unwrap(), want);
    let (h2, m2) = cache(&db);
    assert!(m2 >= m0 + 2, "both reads loaded the block");
    assert_eq!(h2, h0, "without fill_cache the block was not kept");

    // A default read keeps the block: the next one hits.
    assert_eq!(db.get("k01234").unwrap(), want);
    let (h3, _) = cache(&db);
    assert_eq!(db.get("k01234").unwrap(), want);
    let (h4, _) = cache(&db);
    assert!(h4 > h3);

    // Snapshots take the options too; a missing key is still missing.
    let snap = db.snapshot();
    assert_eq!(snap.get_opt("k01234", &no_fill).unwrap(), want);
    assert_eq!(db.get_opt("nope", &no_fill).unwrap(), None);
}

#[test]
fn a_scan_without_filling_the_cache_misses_again_and_reads_the_same() {
    let db = db();
    let no_fill = ReadOptions::default().fill_cache(false);
    // The background's live-data pass reads tables too (without filling the cache), so
    // misses may grow beside the scans; hits cannot, while nothing fills the cache.
    let (h0, m0) = cache(&db);
    let first: Vec<_> = db
        .range_opt::<&str, _>(.., &no_fill)
        .map(Result::unwrap)
        .collect();
    let n = db.range_opt::<&str, _>(.., &no_fill).count();
    let (h2, m2) = cache(&db);
    assert_eq!((first.len(), n), (2000, 2000));
    assert!(m2 > m0);
    assert_eq!(
        h2, h0,
        "the scans kept no block, so the second found none cached"
    );
    // A default scan fills the cache and reads the same pairs.
    let filled: Vec<_> = db.iter().map(Result::unwrap).collect();
    assert_eq!(filled, first);
    let (h3, _) = cache(&db);
    assert_eq!(db.iter().count(), 2000);
    let (h4, _) = cache(&db);
    assert!(h4 > h3, "after a filling scan, a scan hits");
    let snap = db.snapshot();
    assert_eq!(snap.range_opt("k00100".."k00200", &no_fill).count(), 100);
}

#[test]
fn an_iterator_without_prefetch_reads_nothing_ahead() {
    let db = db();
    let no_prefetch = ReadOptions::default().prefetch(false);
    let before = db.stats().unwrap().prefetch_reads;
    let n = db
        .range_opt::<&str, _>(.., &no_prefetch)
        .map(Result::unwrap)
        .count();
    assert_eq!(n, 2000);
    assert_eq!(db.stats().unwrap().prefetch_reads, before);
    // The default iterator does prefetch here (prefetch_threads 4, no minimum read time).
    assert_eq!(db.iter().map(Result::unwrap).count(), 2000);
    assert!(db.stats().unwrap().prefetch_reads > before);
}

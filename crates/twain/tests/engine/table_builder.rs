//! What `TableBuilder` accepts, what it counts, and what it reports.

use crate::common;

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use twain::Error;
use twain::format::handle::ValueHandle;
use twain::fs::WritableFile;
use twain::key::{EntryKind, internal_key, lookup_key};
use twain::table::{TableBuilder, TableOptions};

fn h(len: u32) -> ValueHandle {
    ValueHandle {
        file: 4,
        epoch: 0,
        offset: 100,
        len,
    }
}

/// A writable file that records appends and syncs into shared state.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Log>>);

#[derive(Default)]
struct Log {
    bytes: Vec<u8>,
    /// `bytes.len()` at each sync.
    synced_at: Vec<usize>,
}

impl WritableFile for Recorder {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        self.0.lock().unwrap().bytes.extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn sync_data(&mut self) -> io::Result<()> {
        let mut log = self.0.lock().unwrap();
        let n = log.bytes.len();
        log.synced_at.push(n);
        Ok(())
    }
    fn len(&self) -> u64 {
        self.0.lock().unwrap().bytes.len() as u64
    }
}

fn recorder_builder(opts: &TableOptions) -> (Recorder, TableBuilder) {
    let rec = Recorder::default();
    let b = TableBuilder::new(Box::new(rec.clone()), PathBuf::from("t.sst"), opts);
    (rec, b)
}

#[test]
fn properties_count_kinds_bytes_sequences_and_blocks() {
    let es = vec![
        common::inline(b"apple", 9, b"red"),
        common::tombstone(b"apple", 4),
        common::handle(b"banana", 7, h(1000)),
        common::handle(b"cherry", 2, h(24)),
        common::inline(b"date", 30, b""),
    ];
    let t = common::TempTable::new(&es, &TableOptions::default());
    let p = t.summary.properties;
    assert_eq!(p.num_entries, 5);
    assert_eq!((p.num_deletions, p.num_inline, p.num_handles), (1, 2, 2));
    assert_eq!(p.raw_key_bytes, 5 + 5 + 6 + 6 + 4);
    assert_eq!(p.raw_value_bytes, 3);
    assert_eq!(p.handle_value_bytes, 1024);
    assert_eq!((p.smallest_seq, p.largest_seq), (2, 30));
    assert_eq!(p.num_data_blocks, 1);
    assert_eq!(*t.open().properties(), p);
}

#[test]
fn summary_names_first_and_last_keys_and_the_file_size() {
    let es: Vec<_> = (0..1000u32)
        .map(|i| common::inline(format!("k{i:04}").as_bytes(), 5, b"v"))
        .collect();
    let t = common::TempTable::new(&es, &TableOptions::default());
    assert_eq!(t.summary.smallest, es[0].0);
    assert_eq!(t.summary.largest, es[999].0);
    assert_eq!(
        t.summary.file_size,
        std::fs::metadata(&t.path).unwrap().len()
    );
    assert_eq!(t.open().file_size(), t.summary.file_size);
}

#[test]
fn data_blocks_close_at_the_block_size() {
    let es: Vec<_> = (0..2000u32)
        .map(|i| common::inline(format!("k{i:06}").as_bytes(), 5, &[7u8; 100]))
        .collect();
    for block_size in [512usize, 4096, 16384] {
        let opts = TableOptions {
            block_size,
            ..TableOptions::default()
        };
        let t = common::TempTable::new(&es, &opts);
        let data_bytes = 2000 * (100 + 15 + 3);
        let blocks = t.summary.properties.num_data_blocks as usize;
        // Each block holds at least block_size bytes (except the last) and at most one
        // entry more.
        assert!(
            blocks <= data_bytes / block_size + 1,
            "{block_size}: {blocks}"
        );
        assert!(
            blocks >= data_bytes / (block_size + 200),
            "{block_size}: {blocks}"
        );
    }
}

#[test]
fn finish_syncs_after_the_last_byte() {
    let (rec, mut b) = recorder_builder(&TableOptions::default());
    b.add(&internal_key(b"k", 1, EntryKind::Inline as u8), b"v")
        .unwrap();
    let summary = b.finish().unwrap();
    let log = rec.0.lock().unwrap();
    assert_eq!(log.synced_at.last(), Some(&log.bytes.len()));
    assert_eq!(summary.file_size, log.bytes.len() as u64);
}

#[test]
fn estimated_size_and_entry_count_grow() {
    let (_rec, mut b) = recorder_builder(&TableOptions {
        block_size: 128,
        ..TableOptions::default()
    });
    let mut last = b.estimated_size();
    for i in 0..100u32 {
        b.add(&internal_key(format!("k{i:03}").as_bytes(), 1, 1), b"value")
            .unwrap();
        assert!(b.estimated_size() > last);
        last = b.estimated_size();
    }
    assert_eq!(b.num_entries(), 100);
    assert!(last >= 100 * 10);
}

#[test]
fn finishing_an_empty_table_is_invalid() {
    let (rec, b) = recorder_builder(&TableOptions::default());
    assert!(matches!(b.finish(), Err(Error::InvalidArgument(_))));
    assert!(rec.0.lock().unwrap().synced_at.is_empty());
}

#[test]
fn malformed_entries_are_invalid_arguments() {
    let (_rec, mut b) = recorder_builder(&TableOptions::default());
    let cases: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b"short".to_vec(), vec![]),        // no trailer
        (internal_key(b"a", 1, 3), vec![]), // unknown kind
        (internal_key(b"b", 1, EntryKind::Handle as u8), vec![0x80]), // bad handle
        (
            internal_key(b"c", 1, EntryKind::Delete as u8),
            b"x".to_vec(),
        ), // tombstone value
    ];
    for (k, v) in cases {
        let err = b.add(&k, &v).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{k:?}: {err}");
    }
    assert_eq!(b.num_entries(), 0);
}

#[test]
fn without_bits_per_key_there_is_no_filter() {
    let es = vec![common::inline(b"a", 1, b"x")];
    let opts = TableOptions {
        bloom_bits_per_key: 0,
        ..TableOptions::default()
    };
    let t = common::TempTable::new(&es, &opts);
    let table = t.open();
    assert!(table.filter().is_none());
    assert!(table.footer().filter.is_null());
    assert!(table.may_contain(b"anything"));
    assert_eq!(table.get(&lookup_key(b"zz", 5)).unwrap(), None);
}

#[test]
fn filter_excludes_most_absent_keys() {
    let es: Vec<_> = (0..2000u32)
        .map(|i| common::inline(format!("present{i:05}").as_bytes(), 1, b"v"))
        .collect();
    let t = common::TempTable::new(&es, &TableOptions::default());
    let table = t.open();
    assert!((0..2000).all(|i| table.may_contain(format!("present{i:05}").as_bytes())));
    let fp = (0..2000)
        .filter(|i| table.may_contain(format!("absent{i}").as_bytes()))
        .count();
    assert!(fp < 60, "{fp} false positives of 2000");
}

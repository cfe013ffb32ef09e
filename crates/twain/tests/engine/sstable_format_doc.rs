//! Ties `docs/format/sstable.md` to the code: the doc's constants are the code's, and its
//! worked example is, byte for byte, the golden table `tests/fixtures/tiny.sst`, which this
//! build writes identically and reads back.
//!
//! After an intended format change, regenerate the fixture with
//! `TWAIN_BLESS=1 cargo test -p twain --test engine sstable_format_doc::`, then update the doc.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use twain::cache::BlockCache;
use twain::format::block::{BLOCK_TRAILER_LEN, DEFAULT_RESTART_INTERVAL};
use twain::format::handle::ValueHandle;
use twain::format::table::{FOOTER_LEN, TABLE_FORMAT_VERSION, TABLE_MAGIC};
use twain::key::{EntryKind, TRAILER_LEN, internal_key, lookup_key};
use twain::table::TableOptions;

fn manifest_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn doc() -> String {
    std::fs::read_to_string(manifest_path("../../docs/format/sstable.md")).unwrap()
}

fn fixture_path() -> PathBuf {
    manifest_path("tests/fixtures/tiny.sst")
}

/// The entries of the worked example.
fn tiny_entries() -> Vec<common::Entry> {
    vec![
        common::inline(b"apple", 3, b"red"),
        common::tombstone(b"apple", 1),
        common::handle(
            b"banana",
            2,
            ValueHandle {
                file: 7,
                epoch: 0,
                offset: 24,
                len: 1000,
            },
        ),
    ]
}

fn build_tiny() -> Vec<u8> {
    let t = common::TempTable::new(&tiny_entries(), &TableOptions::default());
    std::fs::read(&t.path).unwrap()
}

/// The value column of the doc's constants table row for `name`: `| `name` | value | ... |`.
fn doc_constant(doc: &str, name: &str) -> String {
    let prefix = format!("| `{name}` |");
    let line = doc
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("constant {name} not in the doc"));
    line[prefix.len()..]
        .split('|')
        .next()
        .unwrap()
        .trim()
        .to_string()
}

/// The bytes of the doc's worked example: the fenced block after the line
/// `<!-- golden: tests/fixtures/tiny.sst -->`. Each line is `offset  hex bytes ; comment`;
/// the offset (hex) must equal the number of bytes before the line.
fn doc_example_bytes(doc: &str) -> Vec<u8> {
    let start = doc
        .find("<!-- golden: tests/fixtures/tiny.sst -->")
        .expect("golden marker");
    let block = &doc[start..];
    let body_start = block.find("```text\n").unwrap() + "```text\n".len();
    let body = &block[body_start..];
    let body = &body[..body.find("```").unwrap()];
    let mut bytes = Vec::new();
    for line in body.lines() {
        let data = line.split(';').next().unwrap().trim();
        if data.is_empty() {
            continue;
        }
        let mut tokens = data.split_whitespace();
        let offset = usize::from_str_radix(tokens.next().unwrap(), 16).unwrap();
        assert_eq!(offset, bytes.len(), "offset column of line {line:?}");
        for t in tokens {
            assert_eq!(t.len(), 2, "byte {t:?} in line {line:?}");
            bytes.push(u8::from_str_radix(t, 16).unwrap());
        }
    }
    bytes
}

#[test]
fn builder_writes_the_golden_table() {
    let built = build_tiny();
    if std::env::var_os("TWAIN_BLESS").is_some() {
        std::fs::write(fixture_path(), &built).unwrap();
    }
    let golden = std::fs::read(fixture_path()).unwrap();
    assert_eq!(
        built, golden,
        "the table format changed: bump the version, bless, update the doc"
    );
}

#[test]
fn golden_table_reads_back() {
    let table = common::open_table(&fixture_path(), 1, Arc::new(BlockCache::new(0))).unwrap();
    let got = table.get(&lookup_key(b"apple", 2)).unwrap();
    assert_eq!(
        got,
        Some((internal_key(b"apple", 1, EntryKind::Delete as u8), vec![]))
    );
    let got = table.get(&lookup_key(b"banana", 9)).unwrap().unwrap();
    assert_eq!(ValueHandle::decode(&got.1).unwrap().len, 1000);
    assert_eq!(table.properties().num_entries, 3);
}

#[test]
fn doc_example_is_the_golden_table() {
    let golden = std::fs::read(fixture_path()).unwrap();
    assert_eq!(doc_example_bytes(&doc()), golden);
}

#[test]
fn doc_constants_are_the_codes() {
    let doc = doc();
    assert_eq!(doc_constant(&doc, "FOOTER_LEN"), FOOTER_LEN.to_string());
    assert_eq!(
        doc_constant(&doc, "BLOCK_TRAILER_LEN"),
        BLOCK_TRAILER_LEN.to_string()
    );
    assert_eq!(doc_constant(&doc, "TRAILER_LEN"), TRAILER_LEN.to_string());
    assert_eq!(
        doc_constant(&doc, "TABLE_FORMAT_VERSION"),
        TABLE_FORMAT_VERSION.to_string()
    );
    assert_eq!(
        doc_constant(&doc, "TABLE_MAGIC"),
        format!("`{TABLE_MAGIC:#018x}`")
    );
    assert_eq!(
        doc_constant(&doc, "DEFAULT_RESTART_INTERVAL"),
        DEFAULT_RESTART_INTERVAL.to_string()
    );
    // The footer's fields add up to its length: 3 handles of 16, version 4, crc 4, magic 8.
    assert_eq!(3 * 16 + 4 + 4 + 8, FOOTER_LEN);
}

//! Ties the format specs in `docs/format/` to the code: each worked example in the docs
//! (a fenced `hex` block after an `<!-- example: NAME -->` marker) must be exactly what the
//! format modules encode, and each constant in a doc's table must equal the code's.
//!
//! After an intended format change, print the new examples with
//! `TWAIN_BLESS=1 cargo test -p twain --test engine format_docs:: -- --nocapture` and update the docs.

use std::path::PathBuf;
use twain::format::drops::encode_block;
use twain::format::file_header::{FILE_HEADER_LEN, FORMAT_VERSION, FileKind, encode_header};
use twain::format::manifest::{
    DropDelta, PunchDelta, TableRecord, ValueFileOrigin, ValueFileRecord, VersionEdit,
};
use twain::format::record::{FRAME_HEADER_LEN, put_frame};
use twain::format::vlog::{BATCH_HEADER_LEN, BatchRecordWriter, ENTRY_CRC_LEN, LogEntryKind};
use twain::key::internal_key;

fn doc(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/format")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes
        .chunks(16)
        .map(|c| {
            c.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The bytes of the `hex` block following `<!-- example: NAME -->` in `doc`.
fn doc_example(doc: &str, name: &str) -> Vec<u8> {
    let marker = format!("<!-- example: {name} -->");
    let at = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("no example {name}"));
    let rest = &doc[at..];
    let start = rest.find("```hex\n").expect("hex block") + 7;
    let end = rest[start..].find("```").expect("end of hex block") + start;
    rest[start..end]
        .split_whitespace()
        .map(|t| u8::from_str_radix(t, 16).expect("hex byte"))
        .collect()
}

fn check(doc_name: &str, example: &str, bytes: &[u8]) {
    if std::env::var_os("TWAIN_BLESS").is_some() {
        println!("{doc_name} / {example}:\n{}\n", to_hex(bytes));
        return;
    }
    let d = doc(doc_name);
    assert_eq!(
        to_hex(&doc_example(&d, example)),
        to_hex(bytes),
        "{doc_name}: example {example} differs from the code's encoding"
    );
}

/// The value of `| `name` | value |` in a doc's constants table (`expected` when
/// blessing, so new docs can be written from the printed examples).
fn doc_constant(doc_name: &str, name: &str, expected: u64) -> u64 {
    if std::env::var_os("TWAIN_BLESS").is_some() {
        return expected;
    }
    let d = doc(doc_name);
    let prefix = format!("| `{name}` | ");
    let line = d
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{doc_name}: no constant {name}"));
    line[prefix.len()..]
        .split('|')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn record_doc_matches_code() {
    assert_eq!(
        doc_constant("record.md", "FRAME_HEADER_LEN", FRAME_HEADER_LEN as u64),
        FRAME_HEADER_LEN as u64
    );
    assert_eq!(
        doc_constant("record.md", "FILE_HEADER_LEN", FILE_HEADER_LEN as u64),
        FILE_HEADER_LEN as u64
    );
    assert_eq!(
        doc_constant("record.md", "FORMAT_VERSION", u64::from(FORMAT_VERSION)),
        u64::from(FORMAT_VERSION)
    );
    check("record.md", "header", &encode_header(FileKind::ValueLog, 7));
    let mut f = Vec::new();
    put_frame(&mut f, b"abc");
    check("record.md", "frame", &f);
}

#[test]
fn value_log_doc_matches_code() {
    assert_eq!(
        doc_constant("value-log.md", "BATCH_HEADER_LEN", BATCH_HEADER_LEN as u64),
        BATCH_HEADER_LEN as u64
    );
    assert_eq!(
        doc_constant("value-log.md", "ENTRY_CRC_LEN", ENTRY_CRC_LEN as u64),
        ENTRY_CRC_LEN as u64
    );
    assert_eq!(
        doc_constant(
            "value-log.md",
            "COMPRESSED_SEPARATED",
            u64::from(twain::format::vlog::COMPRESSED_SEPARATED)
        ),
        u64::from(twain::format::vlog::COMPRESSED_SEPARATED)
    );
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, 100, 24);
    w.add(&mut buf, LogEntryKind::Inline, b"a", b"1");
    w.add(&mut buf, LogEntryKind::Separated, b"k", b"value");
    w.add(&mut buf, LogEntryKind::Delete, b"x", b"");
    w.finish(&mut buf);
    check("value-log.md", "batch", &buf);
}

#[test]
fn manifest_doc_matches_code() {
    let edit = VersionEdit {
        next_file_number: Some(9),
        last_sequence: Some(300),
        flushed_point: Some((5, 4096)),
        flushed_sequence: None,
        added_tables: vec![TableRecord {
            level: 0,
            number: 8,
            file_size: 2000,
            smallest: internal_key(b"a", 7, 1),
            largest: internal_key(b"z", 9, 2),
            smallest_seq: 7,
            largest_seq: 9,
        }],
        deleted_tables: vec![(1, 3)],
        added_value_files: vec![ValueFileRecord {
            number: 4,
            epoch: 0,
            total_bytes: 70000,
            separated_bytes: 65000,
            separated_count: 60,
        }],
        value_file_drops: vec![DropDelta {
            number: 4,
            epoch: 0,
            count: 2,
            bytes: 2100,
        }],
        deleted_value_files: vec![2],
        compact_pointers: vec![],
        counters: None,
        value_file_punches: vec![],
        value_file_origins: vec![],
        drops_untracked: false,
        hash_groups: None,
        hash_segments: vec![],
        hash_cold_segments: vec![],
    };
    check("manifest.md", "edit", &edit.encode());
    let punch = VersionEdit {
        value_file_punches: vec![PunchDelta {
            number: 4,
            epoch: 0,
            runs: vec![(100, 9000)],
            records: 8,
            record_bytes: 8600,
            punched_bytes: 4096,
        }],
        ..VersionEdit::default()
    };
    check("manifest.md", "punched-runs", &punch.encode());
    let origin = VersionEdit {
        added_value_files: vec![ValueFileRecord {
            number: 11,
            epoch: 1,
            total_bytes: 5000,
            separated_bytes: 4600,
            separated_count: 20,
        }],
        value_file_origins: vec![(11, ValueFileOrigin::Transient)],
        ..VersionEdit::default()
    };
    check("manifest.md", "origin", &origin.encode());
    let untracked = VersionEdit {
        drops_untracked: true,
        ..VersionEdit::default()
    };
    check("manifest.md", "drops-untracked", &untracked.encode());
}

#[test]
fn drops_doc_matches_code() {
    check("drops.md", "block", &encode_block(&[(5, 1040), (9, 1041)]));
}

#[test]
fn svtable_doc_matches_code() {
    use twain::format::svtable::SVT_FOOTER_LEN;
    use twain::fs::{Fs, MemFs};
    use twain::vlog::SvTableWriter;
    assert_eq!(
        doc_constant("svtable.md", "SVT_FOOTER_LEN", SVT_FOOTER_LEN as u64),
        SVT_FOOTER_LEN as u64
    );
    let fs = MemFs::new();
    fs.create_dir_all(std::path::Path::new("/d")).unwrap();
    let path = std::path::PathBuf::from("/d/000009-1.svt");
    let mut w = SvTableWriter::new(fs.create(&path).unwrap(), path.clone(), 9, 1);
    w.add(b"a", 9, b"new").unwrap();
    w.add(b"a", 3, b"old").unwrap();
    w.add(b"b", 5, b"bee").unwrap();
    w.finish().unwrap();
    check("svtable.md", "svtable", &fs.read_file(&path).unwrap());
}

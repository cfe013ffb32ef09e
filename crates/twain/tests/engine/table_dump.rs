//! `table::dump` prints the footer, properties, index and every entry readably.

use crate::common;

use twain::format::handle::ValueHandle;
use twain::table::{TableOptions, dump};

#[test]
fn dump_shows_every_part_of_a_table() {
    let es = vec![
        common::inline(b"apple", 3, b"red and round"),
        common::tombstone(b"apple", 1),
        common::handle(
            b"ban\x01ana",
            2,
            ValueHandle {
                file: 7,
                epoch: 1,
                offset: 24,
                len: 1000,
            },
        ),
    ];
    let t = common::TempTable::new(&es, &TableOptions::default());
    let table = t.open();
    let mut out = Vec::new();
    dump(&table, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let expected_lines = [
        "footer: format version 1",
        "  num_entries         3",
        "  handle_value_bytes  1000",
        "filter: 8 bytes of bits, 7 probes",
        "index:",
        "data block #0 offset 0, size ",
        "\"apple\" #3 inline (13 bytes) \"red and round\"",
        "\"apple\" #1 delete",
        "\"ban\\x01ana\" #2 handle -> file 7 epoch 1 offset 24 len 1000",
    ];
    for line in expected_lines {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

#[test]
fn dump_stops_at_a_damaged_block_with_its_error() {
    let es = vec![common::inline(b"k", 1, b"v")];
    let t = common::TempTable::new(&es, &TableOptions::default());
    let table = t.open();
    let mut bytes = std::fs::read(&t.path).unwrap();
    bytes[2] ^= 0xff;
    std::fs::write(&t.path, &bytes).unwrap();
    let mut out = Vec::new();
    let err = dump(&table, &mut out).unwrap_err();
    assert!(err.is_corruption());
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("data block #0"), "{text}");
}

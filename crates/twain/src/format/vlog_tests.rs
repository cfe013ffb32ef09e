//! Tests of the value-log format (`vlog.rs`).
use super::*;
use crate::format::record::{Frame, decode_frame};

fn sample() -> (Vec<u8>, Vec<EntryPlacement>) {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, 100, 24);
    let p = vec![
        w.add(&mut buf, LogEntryKind::Inline, b"a", b"1"),
        w.add(&mut buf, LogEntryKind::Separated, b"big", &[7u8; 300]),
        w.add(&mut buf, LogEntryKind::Delete, b"gone", b"ignored"),
    ];
    w.finish(&mut buf);
    (buf, p)
}

#[test]
fn batch_round_trips() {
    let (buf, placements) = sample();
    let Frame::Good { payload, frame_len } = decode_frame(&buf) else {
        panic!("frame did not decode");
    };
    assert_eq!(frame_len, buf.len());
    let mut r = BatchReader::new(payload).unwrap();
    assert_eq!(
        r.header(),
        BatchHeader {
            record_type: RecordType::Batch,
            first_seq: 100,
            synced_upto: 24,
            count: 3
        }
    );
    let e0 = r.next_entry().unwrap().unwrap();
    assert_eq!(
        (e0.kind, e0.seq, e0.key, e0.value),
        (LogEntryKind::Inline, 100, &b"a"[..], &b"1"[..])
    );
    let e1 = r.next_entry().unwrap().unwrap();
    assert_eq!(
        (e1.kind, e1.seq, e1.key),
        (LogEntryKind::Separated, 101, &b"big"[..])
    );
    assert_eq!(e1.len, entry_len(LogEntryKind::Separated, 3, 300));
    assert_eq!(e1.offset + FRAME_HEADER_LEN, placements[1].offset);
    let e2 = r.next_entry().unwrap().unwrap();
    assert_eq!(
        (e2.kind, e2.seq, e2.value),
        (LogEntryKind::Delete, 102, &b""[..])
    );
    assert_eq!(r.next_entry().unwrap(), None);
}

#[test]
fn expiring_puts_carry_their_time_and_handles_skip_the_prefix() {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, 7, 0);
    let a = w.add_expiring(&mut buf, LogEntryKind::Inline, b"a", b"1", Some(99));
    let b = w.add_expiring(
        &mut buf,
        LogEntryKind::Separated,
        b"b",
        b"22",
        Some(u64::MAX),
    );
    let c = w.add_expiring(&mut buf, LogEntryKind::Delete, b"c", b"", Some(5));
    w.finish(&mut buf);
    assert_eq!(buf[a.offset - EXPIRY_PREFIX_LEN], EXPIRY_PREFIX);
    assert_eq!(
        buf[c.offset],
        LogEntryKind::Delete as u8,
        "deletes take no prefix"
    );
    let entry = &buf[b.offset..b.offset + b.len];
    assert_eq!(
        &entry[decode_separated(entry, b"b", 8).unwrap().range],
        b"22"
    );
    let Frame::Good { payload, .. } = decode_frame(&buf) else {
        panic!("frame did not decode");
    };
    let mut r = BatchReader::new(payload).unwrap();
    let times: Vec<_> = std::iter::from_fn(|| r.next_entry().unwrap())
        .map(|e| (e.key.to_vec(), e.expires_at))
        .collect();
    assert_eq!(
        times,
        vec![
            (b"a".to_vec(), Some(99)),
            (b"b".to_vec(), Some(u64::MAX)),
            (b"c".to_vec(), None)
        ]
    );
    // A prefix before a delete, a range deletion or another prefix is damage.
    for bad in [
        LogEntryKind::Delete as u8,
        LogEntryKind::RangeDelete as u8,
        EXPIRY_PREFIX,
    ] {
        let mut buf = Vec::new();
        let w = BatchRecordWriter::begin(&mut buf, 7, 0);
        buf.push(EXPIRY_PREFIX);
        buf.extend_from_slice(&1u64.to_le_bytes());
        buf.extend_from_slice(&[bad, 1, b'k']);
        let mut w = w;
        w.count = 1;
        w.finish(&mut buf);
        let Frame::Good { payload, .. } = decode_frame(&buf) else {
            panic!("frame did not decode");
        };
        assert!(BatchReader::new(payload).unwrap().next_entry().is_err());
    }
}

#[test]
fn range_deletions_carry_both_ends_and_never_an_expiry() {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, 40, 0);
    let p = w.add_expiring(&mut buf, LogEntryKind::RangeDelete, b"b", b"key", Some(5));
    w.add(&mut buf, LogEntryKind::Inline, b"a", b"1");
    w.finish(&mut buf);
    assert_eq!(p.len, entry_len(LogEntryKind::RangeDelete, 1, 3));
    let Frame::Good { payload, .. } = decode_frame(&buf) else {
        panic!("frame did not decode");
    };
    let mut r = BatchReader::new(payload).unwrap();
    let e = r.next_entry().unwrap().unwrap();
    assert_eq!(
        (e.kind, e.seq, e.key, e.value, e.expires_at),
        (LogEntryKind::RangeDelete, 40, &b"b"[..], &b"key"[..], None)
    );
    assert_eq!(r.next_entry().unwrap().unwrap().seq, 41);
    assert_eq!(r.next_entry().unwrap(), None);
}

#[test]
fn separated_entry_checks_key_and_sequence() {
    let (buf, p) = sample();
    let entry = &buf[p[1].offset..p[1].offset + p[1].len];
    let range = decode_separated(entry, b"big", 101).unwrap().range;
    assert_eq!(&entry[range], &[7u8; 300][..]);
    assert!(decode_separated(entry, b"bog", 101).is_err());
    assert!(decode_separated(entry, b"big", 102).is_err());
    assert!(decode_separated(&entry[..entry.len() - 1], b"big", 101).is_err());
    let mut damaged = entry.to_vec();
    damaged[20] ^= 1;
    assert!(decode_separated(&damaged, b"big", 101).is_err());
    let inline = &buf[p[0].offset..p[0].offset + p[0].len];
    assert!(decode_separated(inline, b"a", 100).is_err());
}

#[test]
fn relocation_records_keep_their_sequences() {
    let mut buf = Vec::new();
    let mut w = RelocationWriter::begin(&mut buf, 7);
    let a = w.add(&mut buf, 40, b"k1", b"v1");
    w.add(&mut buf, 12, b"k0", b"v0");
    w.finish(&mut buf);
    let Frame::Good { payload, .. } = decode_frame(&buf) else {
        panic!("frame did not decode");
    };
    let mut r = BatchReader::new(payload).unwrap();
    assert_eq!(r.header().record_type, RecordType::Relocation);
    let e = r.next_entry().unwrap().unwrap();
    assert_eq!((e.seq, e.key, e.value), (40, &b"k1"[..], &b"v1"[..]));
    assert_eq!(e.offset + FRAME_HEADER_LEN, a.offset);
    let entry = &buf[a.offset..a.offset + a.len];
    assert!(decode_separated(entry, b"k1", 40).is_ok());
    assert_eq!(r.next_entry().unwrap().unwrap().seq, 12);
    assert_eq!(r.next_entry().unwrap(), None);
}

#[test]
fn entry_lengths_match_encoding() {
    let (_, p) = sample();
    assert_eq!(p[0].len, entry_len(LogEntryKind::Inline, 1, 1));
    assert_eq!(p[2].len, entry_len(LogEntryKind::Delete, 4, 0));
}

#[test]
fn sequences_past_the_maximum_are_rejected() {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, u64::MAX - 1, 0);
    w.add(&mut buf, LogEntryKind::Inline, b"a", b"1");
    w.add(&mut buf, LogEntryKind::Inline, b"b", b"2");
    w.finish(&mut buf);
    let Frame::Good { payload, .. } = decode_frame(&buf) else {
        panic!("frame did not decode");
    };
    assert!(BatchReader::new(payload).is_err());
}

proptest::proptest! {
    #[test]
    fn arbitrary_payloads_never_panic(bytes: Vec<u8>) {
        if let Ok(mut r) = BatchReader::new(&bytes) {
            while let Ok(Some(_)) = r.next_entry() {}
        }
        let _ = decode_separated(&bytes, b"k", 1);
    }
}

#[test]
fn compressed_separated_entries_decode_as_separated_with_their_stored_form() {
    use crate::format::compression::{Compression, compress_value};
    let raw = b"status=ok status=ok status=ok status=ok status=ok status=ok".repeat(10);
    let mut packed = Vec::new();
    assert!(compress_value(Compression::Lz4, &raw, 0, &mut packed));
    let stored = StoredValue {
        bytes: &packed,
        compressed: true,
    };
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, 7, 0);
    let plain = w.add(&mut buf, LogEntryKind::Separated, b"p", b"plain value");
    let packed_at = w.add_stored(&mut buf, b"c", stored, Some(99));
    w.finish(&mut buf);
    let Frame::Good { payload, .. } = decode_frame(&buf) else {
        panic!("frame did not decode");
    };
    let mut r = BatchReader::new(payload).unwrap();
    let e0 = r.next_entry().unwrap().unwrap();
    assert_eq!((e0.kind, e0.compressed), (LogEntryKind::Separated, false));
    let e1 = r.next_entry().unwrap().unwrap();
    assert_eq!(e1.kind, LogEntryKind::Separated);
    assert!(e1.compressed);
    assert_eq!(e1.expires_at, Some(99));
    assert_eq!(e1.stored(), stored);
    assert_eq!(e1.stored().value().unwrap().as_ref(), &raw[..]);
    // A handle's bytes: kind 0x05, the stored form, checked like any separated entry.
    let entry = &buf[packed_at.offset..packed_at.offset + packed_at.len];
    assert_eq!(entry[0], COMPRESSED_SEPARATED);
    let v = decode_separated(entry, b"c", 8).unwrap();
    assert!(v.compressed);
    assert_eq!(&entry[v.range], &packed[..]);
    assert!(decode_separated(entry, b"c", 9).is_err(), "another version");
    let plain_entry = &buf[plain.offset..plain.offset + plain.len];
    assert!(!decode_separated(plain_entry, b"p", 7).unwrap().compressed);
    // A relocation keeps the stored form.
    let mut rel = Vec::new();
    let mut rw = RelocationWriter::begin(&mut rel, 0);
    rw.add_stored(&mut rel, 8, b"c", stored, None);
    rw.finish(&mut rel);
    let Frame::Good { payload, .. } = decode_frame(&rel) else {
        panic!("frame did not decode");
    };
    let e = BatchReader::new(payload)
        .unwrap()
        .next_entry()
        .unwrap()
        .unwrap();
    assert_eq!((e.seq, e.stored()), (8, stored));
}

/// One batch record from `first_seq`, as the write path hands it to the log (not
/// finished): two inline puts, and a separated put if asked.
fn record(first_seq: SeqNo, synced_upto: u64, separated: bool) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, first_seq, synced_upto);
    w.add(&mut buf, LogEntryKind::Inline, b"small", b"v");
    w.add(
        &mut buf,
        LogEntryKind::Inline,
        b"medium",
        &[first_seq as u8; 200],
    );
    if separated {
        w.add(&mut buf, LogEntryKind::Separated, b"large", &[7; 300]);
    }
    buf
}

/// `record(..)` finished on its own.
fn finished(first_seq: SeqNo, synced_upto: u64, separated: bool) -> Vec<u8> {
    let mut buf = Vec::new();
    let (open, _) = OpenBatchRecord::append(
        None,
        &mut buf,
        &record(first_seq, synced_upto, separated),
        first_seq,
        if separated { 3 } else { 2 },
        separated,
    );
    open.close(&mut buf);
    buf
}

#[test]
fn batches_that_follow_on_join_one_record() {
    let r1 = record(100, 24, false);
    let r2 = record(102, 4096, false);
    let mut buf = b"earlier bytes".to_vec();
    let (open, at1) = OpenBatchRecord::append(None, &mut buf, &r1, 100, 2, false);
    assert_eq!(at1, 13 + BATCH_ENTRIES_AT);
    let (open, at2) = OpenBatchRecord::append(Some(open), &mut buf, &r2, 102, 2, false);
    assert_eq!(
        at2,
        13 + r1.len(),
        "only the entries of a joining record are appended"
    );
    open.close(&mut buf);

    let Frame::Good { payload, frame_len } = decode_frame(&buf[13..]) else {
        panic!("the joined record did not decode");
    };
    assert_eq!(frame_len, buf.len() - 13);
    let mut r = BatchReader::new(payload).unwrap();
    let h = r.header();
    assert_eq!((h.first_seq, h.count, h.synced_upto), (100, 4, 24));
    let mut seqs = Vec::new();
    while let Some(e) = r.next_entry().unwrap() {
        if e.seq == 103 {
            assert_eq!(e.value, &[102u8; 200][..]);
        }
        if e.seq == 102 {
            assert_eq!(13 + FRAME_HEADER_LEN + e.offset, at2);
        }
        seqs.push(e.seq);
    }
    assert_eq!(seqs, vec![100, 101, 102, 103]);
}

#[test]
fn records_with_separated_entries_stand_alone() {
    let mut buf = Vec::new();
    let rs = [
        (record(100, 0, false), 100, false),
        (record(102, 0, true), 102, true),
        (record(105, 0, false), 105, false),
    ];
    let mut open = None;
    for (r, seq, separated) in &rs {
        let count = if *separated { 3 } else { 2 };
        let (o, at) = OpenBatchRecord::append(open, &mut buf, r, *seq, count, *separated);
        assert_eq!(at + r.len(), buf.len() + BATCH_ENTRIES_AT);
        open = Some(o);
    }
    if let Some(o) = open {
        o.close(&mut buf);
    }
    let expected = [
        finished(100, 0, false),
        finished(102, 0, true),
        finished(105, 0, false),
    ]
    .concat();
    assert_eq!(buf, expected, "no record joined one with a separated entry");
}

#[test]
fn a_gap_in_sequence_numbers_starts_a_new_record() {
    let r1 = record(100, 24, false);
    let r2 = record(105, 24, false);
    let mut buf = Vec::new();
    let (open, _) = OpenBatchRecord::append(None, &mut buf, &r1, 100, 2, false);
    let (open, at2) = OpenBatchRecord::append(Some(open), &mut buf, &r2, 105, 2, false);
    assert_eq!(at2, r1.len() + BATCH_ENTRIES_AT);
    open.close(&mut buf);
    assert_eq!(
        buf,
        [finished(100, 24, false), finished(105, 24, false)].concat(),
        "both records stand as written"
    );
}

#[test]
fn a_record_nothing_joined_closes_to_what_finish_writes() {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, 7, 0);
    w.add(&mut buf, LogEntryKind::Inline, b"small", b"v");
    w.add(&mut buf, LogEntryKind::Inline, b"medium", &[7; 200]);
    w.finish(&mut buf);
    assert_eq!(finished(7, 0, false), buf);
}

//! Regression test: decoding a value-log batch whose sequence numbers run past the
//! largest sequence must fail with a decode error, not panic (debug builds) or wrap around
//! (release builds). The reader now rejects such a batch when it reads the header.
//!
//! Found by the AFL++ target `fuzz/src/bin/vlog_batch.rs` within a minute. `BatchReader::
//! next_entry` (src/format/vlog.rs, `self.header.first_seq + u64::from(self.index)`) adds
//! without checking; so does `scan_value_file` (src/vlog/scan.rs, `header.first_seq +
//! u64::from(header.count) - 1`). The frame checksum keeps random damage out, but a file
//! with such a record (a bug elsewhere, a hostile file) panics recovery and `twain dump`.

use twain::format::vlog::{BatchReader, BatchRecordWriter, LogEntryKind};

#[test]
fn batch_whose_sequences_overflow_is_a_decode_error() {
    let mut buf = Vec::new();
    let mut w = BatchRecordWriter::begin(&mut buf, u64::MAX, 24);
    w.add(&mut buf, LogEntryKind::Delete, b"a", b"");
    // The writer would overflow too; write the second entry's bytes by hand.
    buf.extend_from_slice(&[LogEntryKind::Delete as u8, 1, b'b']);
    let payload_start = 8;
    // Fix the count to 2 (after the frame header: type 1, synced_upto 8, first_seq 8,
    // count 4).
    let count_at = payload_start + 17;
    buf[count_at..count_at + 4].copy_from_slice(&2u32.to_le_bytes());
    let payload = &buf[payload_start..];
    let outcome = std::panic::catch_unwind(|| {
        let Ok(mut r) = BatchReader::new(payload) else {
            return 0;
        };
        let mut entries = 0;
        while let Ok(Some(_)) = r.next_entry() {
            entries += 1;
        }
        entries
    });
    match outcome {
        Ok(entries) => assert!(entries < 2, "the decoder wrapped the sequence number"),
        Err(_) => panic!("the decoder panicked on overflowing sequence numbers"),
    }
}

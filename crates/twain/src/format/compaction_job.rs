//! The messages that carry a compaction part between a host and a compaction worker
//! (`docs/format/compaction-job.md`): a job (`compaction::job::PartJob`) and its outcome
//! (`PartOutcome`), each in a versioned, checksummed envelope.
//!
//! Decoding never trusts a count: elements are read one by one from the bytes there are, so
//! a message can claim no more than it holds; every failure is a [`DecodeError`] with the
//! offset of what failed.

use super::coding::{DecodeError, Decoder, masked_crc, put_len_prefixed, put_varint};
use super::compression::Compression;
use super::manifest::{TableRecord, ValueFileOrigin, ValueFileRecord};
use crate::compaction::job::{ManualRange, PartFigures, PartJob, PartOutcome, PartSettings};
use crate::compaction::split::PartRange;
use crate::placement::Placement;
use crate::table::TableOptions;
use crate::vlog::DropWriter;
use std::collections::BTreeMap;

/// The first bytes of every message.
pub const MAGIC: [u8; 4] = *b"TWCJ";
/// The version this code writes and the only one it reads.
pub const VERSION: u8 = 4;
/// Message kind: a job, host to worker.
pub const KIND_JOB: u8 = 1;
/// Message kind: an outcome, worker to host.
pub const KIND_OUTCOME: u8 = 2;
/// Bytes of the envelope around a body: magic, version, kind, and the trailing checksum.
pub const ENVELOPE_LEN: usize = 4 + 1 + 1 + 4;
/// Levels a job may name (the options allow at most 16).
const MAX_LEVELS: u64 = 16;

/// Encodes `job` as a job message.
pub fn encode_job(job: &PartJob) -> Vec<u8> {
    let mut b = begin(KIND_JOB);
    put_varint(&mut b, job.level as u64);
    put_varint(&mut b, job.output_level as u64);
    put_tables(&mut b, &job.inputs);
    put_tables(&mut b, &job.lower);
    put_optional(&mut b, job.range.start.as_deref());
    put_optional(&mut b, job.range.end.as_deref());
    put_varint(&mut b, job.snapshots.len() as u64);
    for &s in &job.snapshots {
        put_varint(&mut b, s);
    }
    put_varint(&mut b, job.deeper.len() as u64);
    for level in &job.deeper {
        put_varint(&mut b, level.len() as u64);
        for (lo, hi) in level {
            put_len_prefixed(&mut b, lo);
            put_len_prefixed(&mut b, hi);
        }
    }
    put_varint(&mut b, job.value_files.len() as u64);
    for (&number, &(epoch, origin)) in &job.value_files {
        put_varint(&mut b, number);
        put_varint(&mut b, u64::from(epoch));
        b.push(origin as u8);
    }
    let s = &job.settings;
    put_varint(&mut b, s.target_file_size);
    put_varint(&mut b, s.table.block_size as u64);
    put_varint(&mut b, s.table.restart_interval as u64);
    put_varint(&mut b, u64::from(s.table.bloom_bits_per_key));
    b.push(codec_byte(s.table.compression));
    put_varint(&mut b, s.placement.medium_threshold as u64);
    put_varint(&mut b, s.placement.inline_threshold as u64);
    put_varint(&mut b, s.placement.merge_level as u64);
    b.push(codec_byte(s.value_compression));
    b.push(u8::from(s.refresh));
    match &job.manual {
        None => b.push(0),
        Some(m) => {
            b.push(1);
            put_optional(&mut b, m.begin.as_deref());
            put_optional(&mut b, m.end.as_deref());
        }
    }
    put_varint(&mut b, job.numbers.start);
    put_varint(&mut b, job.numbers.end);
    put_varint(&mut b, job.now);
    finish(b)
}

fn codec_byte(c: Compression) -> u8 {
    match c {
        Compression::None => 0,
        Compression::Lz4 => 1,
        Compression::Zstd => 2,
    }
}

fn codec_of(d: &mut Decoder<'_>, what: &str) -> Result<Compression, DecodeError> {
    match d.u8(what)? {
        0 => Ok(Compression::None),
        1 => Ok(Compression::Lz4),
        2 => Ok(Compression::Zstd),
        c => Err(d.error(format!("unknown {what} {c}"))),
    }
}

/// Decodes a job message.
pub fn decode_job(msg: &[u8]) -> Result<PartJob, DecodeError> {
    let mut d = open(msg, KIND_JOB)?;
    let level = level_of(&mut d, "level")?;
    let output_level = level_of(&mut d, "output level")?;
    if output_level < level {
        return Err(d.error(format!(
            "output level {output_level} is above level {level}"
        )));
    }
    let inputs = tables(&mut d)?;
    let lower = tables(&mut d)?;
    let range = PartRange {
        start: optional(&mut d, "range start")?,
        end: optional(&mut d, "range end")?,
    };
    let mut snapshots = Vec::new();
    for _ in 0..count(&mut d, "snapshot count")? {
        snapshots.push(d.varint("snapshot")?);
    }
    let mut deeper = Vec::new();
    let levels = d.varint("deeper level count")?;
    if levels > MAX_LEVELS {
        return Err(d.error(format!("{levels} deeper levels (at most {MAX_LEVELS})")));
    }
    for _ in 0..levels {
        let mut ranges = Vec::new();
        for _ in 0..count(&mut d, "range count")? {
            let lo = d.len_prefixed("smallest key")?.to_vec();
            let hi = d.len_prefixed("largest key")?.to_vec();
            ranges.push((lo, hi));
        }
        deeper.push(ranges);
    }
    let mut value_files = BTreeMap::new();
    for _ in 0..count(&mut d, "value file count")? {
        let number = d.varint("value file number")?;
        let epoch = d.varint_u32("epoch")?;
        let origin = match d.u8("origin")? {
            0 => ValueFileOrigin::Log,
            1 => ValueFileOrigin::Transient,
            2 => ValueFileOrigin::Placed,
            3 => ValueFileOrigin::Hash,
            o => return Err(d.error(format!("unknown value file origin {o}"))),
        };
        value_files.insert(number, (epoch, origin));
    }
    let target_file_size = d.varint("target file size")?;
    let table = TableOptions {
        block_size: usize_of(&mut d, "block size")?,
        restart_interval: usize_of(&mut d, "restart interval")?,
        bloom_bits_per_key: d.varint_u32("bloom bits per key")?,
        compression: codec_of(&mut d, "compression")?,
    };
    if target_file_size == 0 || table.block_size == 0 || table.restart_interval == 0 {
        return Err(d.error("zero table size, block size or restart interval"));
    }
    let placement = Placement {
        medium_threshold: usize_of(&mut d, "medium threshold")?,
        inline_threshold: usize_of(&mut d, "inline threshold")?,
        merge_level: level_of(&mut d, "merge level")?,
    };
    let value_compression = codec_of(&mut d, "value compression")?;
    let refresh = flag(&mut d, "refresh")?;
    let manual = if flag(&mut d, "manual")? {
        Some(ManualRange {
            begin: optional(&mut d, "manual begin")?,
            end: optional(&mut d, "manual end")?,
        })
    } else {
        None
    };
    let start = d.varint("first reserved number")?;
    let end = d.varint("end of reserved numbers")?;
    if end < start {
        return Err(d.error(format!("reserved numbers {start}..{end} run backwards")));
    }
    let now = d.varint("time")?;
    close(&d)?;
    Ok(PartJob {
        level,
        output_level,
        inputs,
        lower,
        range,
        snapshots,
        deeper,
        value_files,
        settings: PartSettings {
            target_file_size,
            table,
            placement,
            value_compression,
            refresh,
        },
        manual,
        numbers: start..end,
        now,
        hash_forward: None,
    })
}

/// Encodes `outcome` as an outcome message.
pub fn encode_outcome(outcome: &PartOutcome) -> Vec<u8> {
    let mut b = begin(KIND_OUTCOME);
    put_tables(&mut b, &outcome.tables);
    let drops = outcome.drops.sorted();
    put_varint(&mut b, drops.len() as u64);
    for (file, list) in &drops {
        put_varint(&mut b, *file);
        put_varint(&mut b, list.len() as u64);
        for x in list {
            put_varint(&mut b, x.seq);
            put_varint(&mut b, u64::from(x.epoch));
            put_varint(&mut b, u64::from(x.len));
            put_len_prefixed(&mut b, &x.key);
        }
    }
    let required = outcome.drops.required();
    put_varint(&mut b, required.len() as u64);
    for (&file, &epoch) in required {
        put_varint(&mut b, file);
        put_varint(&mut b, u64::from(epoch));
    }
    match &outcome.placed {
        None => b.push(0),
        Some(r) => {
            b.push(1);
            put_varint(&mut b, r.number);
            put_varint(&mut b, u64::from(r.epoch));
            put_varint(&mut b, r.total_bytes);
            put_varint(&mut b, r.separated_bytes);
            put_varint(&mut b, r.separated_count);
        }
    }
    let f = &outcome.figures;
    for v in [
        f.table_bytes_written,
        f.value_bytes_read,
        f.medium_bytes_merged,
        f.replaced_inline_bytes,
        f.replaced_separated_bytes,
        f.handle_refreshes,
        f.expired_entries,
    ] {
        put_varint(&mut b, v);
    }
    finish(b)
}

/// Decodes an outcome message.
pub fn decode_outcome(msg: &[u8]) -> Result<PartOutcome, DecodeError> {
    let mut d = open(msg, KIND_OUTCOME)?;
    let tables = tables(&mut d)?;
    let mut drops = DropWriter::new();
    for _ in 0..count(&mut d, "dropped file count")? {
        let file = d.varint("value file number")?;
        for _ in 0..count(&mut d, "drop count")? {
            let seq = d.varint("sequence")?;
            let epoch = d.varint_u32("epoch")?;
            let len = d.varint_u32("length")?;
            let key = d.len_prefixed("key")?;
            drops.add(file, seq, epoch, len, key);
        }
    }
    for _ in 0..count(&mut d, "required epoch count")? {
        let file = d.varint("value file number")?;
        let epoch = d.varint_u32("epoch")?;
        drops.require_epoch(file, epoch);
    }
    let placed = if flag(&mut d, "placed file")? {
        Some(ValueFileRecord {
            number: d.varint("value file number")?,
            epoch: d.varint_u32("epoch")?,
            total_bytes: d.varint("total bytes")?,
            separated_bytes: d.varint("separated bytes")?,
            separated_count: d.varint("separated count")?,
        })
    } else {
        None
    };
    let figures = PartFigures {
        table_bytes_written: d.varint("table bytes written")?,
        value_bytes_read: d.varint("value bytes read")?,
        medium_bytes_merged: d.varint("medium bytes merged")?,
        replaced_inline_bytes: d.varint("replaced inline bytes")?,
        replaced_separated_bytes: d.varint("replaced separated bytes")?,
        handle_refreshes: d.varint("handle refreshes")?,
        expired_entries: d.varint("expired entries")?,
    };
    close(&d)?;
    Ok(PartOutcome {
        tables,
        drops,
        placed,
        figures,
    })
}

pub(super) fn begin(kind: u8) -> Vec<u8> {
    let mut b = Vec::with_capacity(256);
    b.extend_from_slice(&MAGIC);
    b.push(VERSION);
    b.push(kind);
    b
}

pub(super) fn finish(mut b: Vec<u8>) -> Vec<u8> {
    let crc = masked_crc(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// Checks the envelope of `msg` and returns a decoder over its body.
pub(super) fn open(msg: &[u8], kind: u8) -> Result<Decoder<'_>, DecodeError> {
    if msg.len() < ENVELOPE_LEN {
        return Err(DecodeError::new(
            0,
            format!("message of {} bytes", msg.len()),
        ));
    }
    let (content, crc) = msg.split_at(msg.len() - 4);
    let mut d = Decoder::new(content);
    if d.array::<4>("magic")? != MAGIC {
        return Err(DecodeError::new(
            0,
            "not a compaction job message (bad magic)",
        ));
    }
    let version = d.u8("version")?;
    if version != VERSION {
        return Err(DecodeError::new(
            4,
            format!("message version {version}; this build speaks {VERSION}"),
        ));
    }
    let got = d.u8("kind")?;
    if got != kind {
        return Err(DecodeError::new(
            5,
            format!("message kind {got}, expected {kind}"),
        ));
    }
    let stored = <[u8; 4]>::try_from(crc)
        .map(u32::from_le_bytes)
        .map_err(|_| DecodeError::new(content.len(), "no checksum"))?;
    if masked_crc(content) != stored {
        return Err(DecodeError::new(content.len(), "message checksum mismatch"));
    }
    Ok(d)
}

pub(super) fn close(d: &Decoder<'_>) -> Result<(), DecodeError> {
    if d.is_empty() {
        Ok(())
    } else {
        Err(d.error(format!("{} bytes after the message's end", d.remaining())))
    }
}

fn put_tables(b: &mut Vec<u8>, tables: &[TableRecord]) {
    put_varint(b, tables.len() as u64);
    for t in tables {
        put_varint(b, t.level as u64);
        put_varint(b, t.number);
        put_varint(b, t.file_size);
        put_len_prefixed(b, &t.smallest);
        put_len_prefixed(b, &t.largest);
        put_varint(b, t.smallest_seq);
        put_varint(b, t.largest_seq);
    }
}

fn tables(d: &mut Decoder<'_>) -> Result<Vec<TableRecord>, DecodeError> {
    let mut out = Vec::new();
    for _ in 0..count(d, "table count")? {
        out.push(TableRecord {
            level: level_of(d, "table level")?,
            number: d.varint("table number")?,
            file_size: d.varint("table size")?,
            smallest: d.len_prefixed("smallest key")?.to_vec(),
            largest: d.len_prefixed("largest key")?.to_vec(),
            smallest_seq: d.varint("smallest sequence")?,
            largest_seq: d.varint("largest sequence")?,
        });
    }
    Ok(out)
}

fn put_optional(b: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        None => b.push(0),
        Some(x) => {
            b.push(1);
            put_len_prefixed(b, x);
        }
    }
}

fn optional(d: &mut Decoder<'_>, what: &str) -> Result<Option<Vec<u8>>, DecodeError> {
    Ok(if flag(d, what)? {
        Some(d.len_prefixed(what)?.to_vec())
    } else {
        None
    })
}

fn flag(d: &mut Decoder<'_>, what: &str) -> Result<bool, DecodeError> {
    match d.u8(what)? {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(d.error(format!("{what}: flag {v}, expected 0 or 1"))),
    }
}

/// A count of elements that follow: each takes at least one byte, so no count can exceed
/// the bytes left.
fn count(d: &mut Decoder<'_>, what: &str) -> Result<u64, DecodeError> {
    let n = d.varint(what)?;
    if n > d.remaining() as u64 {
        return Err(d.error(format!(
            "{what} {n} exceeds the {} bytes left",
            d.remaining()
        )));
    }
    Ok(n)
}

fn usize_of(d: &mut Decoder<'_>, what: &str) -> Result<usize, DecodeError> {
    let v = d.varint(what)?;
    usize::try_from(v).map_err(|_| d.error(format!("{what} {v} does not fit in memory")))
}

fn level_of(d: &mut Decoder<'_>, what: &str) -> Result<usize, DecodeError> {
    let v = d.varint(what)?;
    if v >= MAX_LEVELS {
        return Err(d.error(format!("{what} {v} (levels are below {MAX_LEVELS})")));
    }
    Ok(v as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::internal_key;

    fn record(level: usize, number: u64, lo: &str, hi: &str) -> TableRecord {
        TableRecord {
            level,
            number,
            file_size: 1000 + number,
            smallest: internal_key(lo.as_bytes(), 5, 1),
            largest: internal_key(hi.as_bytes(), 9, 2),
            smallest_seq: 5,
            largest_seq: 9,
        }
    }

    fn job() -> PartJob {
        PartJob {
            level: 1,
            output_level: 2,
            inputs: vec![record(1, 7, "a", "f")],
            lower: vec![record(2, 3, "a", "c"), record(2, 4, "d", "k")],
            range: PartRange {
                start: Some(b"b".to_vec()),
                end: None,
            },
            snapshots: vec![3, 1 << 40],
            deeper: vec![vec![(b"a".to_vec(), b"z".to_vec())], Vec::new()],
            value_files: [
                (9, (2, ValueFileOrigin::Log)),
                (12, (1, ValueFileOrigin::Transient)),
            ]
            .into_iter()
            .collect(),
            settings: PartSettings {
                target_file_size: 64 << 20,
                table: TableOptions {
                    compression: Compression::Lz4,
                    ..TableOptions::default()
                },
                placement: Placement {
                    medium_threshold: 100,
                    inline_threshold: 1024,
                    merge_level: 0,
                },
                value_compression: Compression::Zstd,
                refresh: true,
            },
            manual: Some(ManualRange {
                begin: None,
                end: Some(b"q".to_vec()),
            }),
            numbers: 100..104,
            now: 1_700_000_000_000,
            hash_forward: None,
        }
    }

    fn outcome() -> PartOutcome {
        let mut drops = DropWriter::new();
        drops.add(9, 44, 2, 120, b"key-a");
        drops.add(9, 40, 1, 130, b"key-b");
        drops.add(12, 7, 1, 300, b"");
        drops.require_epoch(12, 1);
        PartOutcome {
            tables: vec![record(2, 100, "b", "g"), record(2, 101, "h", "k")],
            drops,
            placed: Some(ValueFileRecord {
                number: 103,
                epoch: 1,
                total_bytes: 5000,
                separated_bytes: 4000,
                separated_count: 4,
            }),
            figures: PartFigures {
                table_bytes_written: 2201,
                value_bytes_read: 1,
                medium_bytes_merged: 2,
                replaced_inline_bytes: 3,
                replaced_separated_bytes: 4,
                handle_refreshes: 5,
                expired_entries: 6,
            },
        }
    }

    #[test]
    fn a_job_round_trips() {
        let j = job();
        assert_eq!(decode_job(&encode_job(&j)).unwrap(), j);
        let plain = PartJob {
            manual: None,
            range: PartRange::default(),
            deeper: Vec::new(),
            ..job()
        };
        assert_eq!(decode_job(&encode_job(&plain)).unwrap(), plain);
    }

    #[test]
    fn an_outcome_round_trips() {
        let o = outcome();
        let back = decode_outcome(&encode_outcome(&o)).unwrap();
        assert_eq!(back.tables, o.tables);
        assert_eq!(back.drops.sorted(), o.drops.sorted());
        assert_eq!(back.drops.required(), o.drops.required());
        assert_eq!(back.placed, o.placed);
        assert_eq!(back.figures, o.figures);
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_an_error() {
        for msg in [encode_job(&job()), encode_outcome(&outcome())] {
            let is_job = msg.get(5) == Some(&KIND_JOB);
            let decode = |m: &[u8]| {
                if is_job {
                    decode_job(m).map(|_| ())
                } else {
                    decode_outcome(m).map(|_| ())
                }
            };
            for n in 0..msg.len() {
                assert!(
                    decode(msg.get(..n).unwrap_or_default()).is_err(),
                    "{n} bytes"
                );
            }
            for i in 0..msg.len() {
                let mut m = msg.clone();
                if let Some(b) = m.get_mut(i) {
                    *b ^= 0x40;
                }
                assert!(decode(&m).is_err(), "byte {i} flipped");
            }
        }
    }

    #[test]
    fn envelope_errors_say_what_is_wrong() {
        let msg = encode_job(&job());
        let err = decode_outcome(&msg).unwrap_err();
        assert!(err.what.contains("kind 1, expected 2"), "{}", err.what);
        let mut newer = msg.clone();
        if let Some(v) = newer.get_mut(4) {
            *v = VERSION + 1;
        }
        let what = decode_job(&newer).unwrap_err().what;
        assert!(what.contains(&format!("version {}", VERSION + 1)), "{what}");
        let mut other = msg;
        if let Some(m) = other.get_mut(0) {
            *m = b'X';
        }
        assert!(decode_job(&other).unwrap_err().what.contains("magic"));
    }

    /// The worked example of `docs/format/compaction-job.md` is this code's encoding, and
    /// its constants are this code's.
    #[test]
    fn the_format_document_matches_the_code() {
        let mut drops = DropWriter::new();
        drops.add(9, 4, 0, 1040, b"a");
        let example = PartOutcome {
            tables: vec![TableRecord {
                level: 2,
                number: 100,
                file_size: 4000,
                smallest: internal_key(b"a", 8, 1),
                largest: internal_key(b"b", 3, 1),
                smallest_seq: 3,
                largest_seq: 8,
            }],
            drops,
            placed: None,
            figures: PartFigures {
                table_bytes_written: 4000,
                handle_refreshes: 1,
                expired_entries: 0,
                ..PartFigures::default()
            },
        };
        let bytes = encode_outcome(&example);
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../docs/format/compaction-job.md"),
        )
        .unwrap();
        let block = doc
            .split("<!-- example: outcome -->\n```hex\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap_or_default();
        let documented: Vec<&str> = block.split_whitespace().collect();
        assert_eq!(documented, hex, "document the bytes:\n{}", hex.join(" "));
        for (name, value) in [
            ("VERSION", u64::from(VERSION)),
            ("KIND_JOB", u64::from(KIND_JOB)),
            ("KIND_OUTCOME", u64::from(KIND_OUTCOME)),
            ("ENVELOPE_LEN", ENVELOPE_LEN as u64),
        ] {
            let row = format!("| `{name}` | {value} |");
            assert!(doc.contains(&row), "no row {row}");
        }
    }

    #[test]
    fn a_count_larger_than_the_message_is_refused_before_anything_is_allocated() {
        let mut b = begin(KIND_OUTCOME);
        put_varint(&mut b, u64::MAX >> 1);
        let err = decode_outcome(&finish(b)).unwrap_err();
        assert!(err.what.contains("exceeds"), "{}", err.what);
    }
}

//! The value log: the write-ahead log that also stores separated values.
//! Specified in `docs/format/value-log.md`.
//!
//! ```text
//! value_file := file_header(ValueLog, file_number) record*
//! record := frame(record_type: u8 | synced_upto: u64 LE | body)   -- see record.rs
//! record_type := 0x01 (batch) | 0x02 (sync marker) | 0x03 (relocation)
//! batch body := first_seq: u64 LE | count: u32 LE | entry{count}
//! sync marker body := (empty)
//! relocation body := count: u32 LE | (seq: u64 LE | separated entry){count}
//! entry := 0x00 key_len: varint key                                   -- delete
//!        | 0x01 key_len: varint value_len: varint key value           -- inline put
//!        | 0x02 key_len: varint value_len: varint key value entry_crc -- separated put
//!        | 0x03 expires_at: u64 LE (inline put | separated put)        -- expiring put
//!        | 0x04 start_len: varint end_len: varint start end           -- range deletion
//!        | 0x05 key_len: varint value_len: varint key compressed_value entry_crc
//!                                               -- separated put, value compressed
//! entry_crc := masked crc32c of (seq: u64 LE ++ the entry's bytes from its kind byte
//!              through the value), as u32 LE
//! ```
//! Entry `i` of a batch has sequence number `first_seq + i`. A value handle points at a
//! separated entry: `offset` is the file offset of its kind byte, `len` its length through
//! `entry_crc`. Because the entry checksum mixes in the sequence number, reading a value
//! through a handle verifies the bytes, the key and the version in one pass.
//!
//! `synced_upto` is the file offset up to which this file was known to be durable when
//! the record was written. Recovery uses it to tell a torn tail (nothing durable after the
//! damage) from corruption of durable bytes (a later record proves they were synced).

use super::coding::{DecodeError, Decoder, put_varint, varint_len};
use super::compression::StoredValue;
use super::record::{FRAME_HEADER_LEN, begin_frame, finish_frame};
use crate::key::SeqNo;

/// Bytes of a batch record's header: record type, synced offset, first sequence, count.
pub const BATCH_HEADER_LEN: usize = 21;

/// The type byte that starts every value-log record.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in value files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum RecordType {
    /// A write batch.
    Batch = 1,
    /// No data: written after a sync on clean close, so that its `synced_upto` proves
    /// everything before it was durable.
    SyncMarker = 2,
    /// Separated values moved here by value GC in lsm-lookup mode, each with the sequence
    /// number it always had.
    Relocation = 3,
    /// No data: the last record of a value file the writer left for the next one. Its
    /// `synced_upto` is only what was known durable when it was written (the file is synced
    /// in full later, in the background); its body names the next value file, so recovery
    /// can tell a missing file from the end of the log.
    Seal = 4,
}

impl TryFrom<u8> for RecordType {
    type Error = u8;

    fn try_from(b: u8) -> Result<Self, u8> {
        match b {
            1 => Ok(RecordType::Batch),
            2 => Ok(RecordType::SyncMarker),
            3 => Ok(RecordType::Relocation),
            4 => Ok(RecordType::Seal),
            other => Err(other),
        }
    }
}

/// Bytes of the checksum that ends a separated entry.
pub const ENTRY_CRC_LEN: usize = 4;

/// The kind byte of a value-log entry.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in value files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum LogEntryKind {
    /// A deletion.
    Delete = 0,
    /// A put whose value stays inline in the key store.
    Inline = 1,
    /// A put whose value is separated: the key store holds a handle to this entry.
    Separated = 2,
    /// A range deletion: every key from the entry's key (included) to its value (the end
    /// key, excluded). Encoded like an inline put; never expires.
    RangeDelete = 4,
}

impl TryFrom<u8> for LogEntryKind {
    type Error = u8;

    fn try_from(b: u8) -> Result<Self, u8> {
        match b {
            0 => Ok(LogEntryKind::Delete),
            1 => Ok(LogEntryKind::Inline),
            2 => Ok(LogEntryKind::Separated),
            4 => Ok(LogEntryKind::RangeDelete),
            other => Err(other),
        }
    }
}

/// The kind byte of a separated put whose value is stored compressed (a
/// `compressed_value`, see `format::compression`). It decodes as a
/// [`LogEntryKind::Separated`] entry with [`LogEntry::compressed`] set.
///
/// DO NOT CHANGE: embedded in value files.
pub const COMPRESSED_SEPARATED: u8 = 5;

/// The byte that starts an expiring put: the expiry time follows, then the put itself
/// (inline or separated), whose offset and length are those a handle names.
///
/// DO NOT CHANGE: embedded in value files.
pub const EXPIRY_PREFIX: u8 = 3;

/// Bytes of an expiring put's prefix: the prefix byte and the expiry time.
pub const EXPIRY_PREFIX_LEN: usize = 9;

fn put_expiry_prefix(buf: &mut Vec<u8>, expires_at: Option<u64>) {
    if let Some(at) = expires_at {
        buf.push(EXPIRY_PREFIX);
        buf.extend_from_slice(&at.to_le_bytes());
    }
}

/// Writes one batch record into a buffer: call [`BatchRecordWriter::begin`], then
/// [`add`](BatchRecordWriter::add) each entry, then [`finish`](BatchRecordWriter::finish).
#[derive(Debug)]
pub struct BatchRecordWriter {
    frame_start: usize,
    first_seq: SeqNo,
    count: u32,
}

/// Where an entry landed inside the encoded buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryPlacement {
    /// Offset of the entry's kind byte in the buffer.
    pub offset: usize,
    /// Length of the entry.
    pub len: usize,
}

impl BatchRecordWriter {
    /// Starts a batch record at the end of `buf`.
    pub fn begin(buf: &mut Vec<u8>, first_seq: SeqNo, synced_upto: u64) -> BatchRecordWriter {
        let frame_start = begin_frame(buf);
        buf.push(RecordType::Batch as u8);
        buf.extend_from_slice(&synced_upto.to_le_bytes());
        buf.extend_from_slice(&first_seq.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        BatchRecordWriter {
            frame_start,
            first_seq,
            count: 0,
        }
    }

    /// Appends an entry (`value` is ignored for deletes) and returns where it landed.
    pub fn add(
        &mut self,
        buf: &mut Vec<u8>,
        kind: LogEntryKind,
        key: &[u8],
        value: &[u8],
    ) -> EntryPlacement {
        self.add_expiring(buf, kind, key, value, None)
    }

    /// Like [`add`](Self::add), for a put that expires at `expires_at` (ignored for a
    /// delete or a range deletion). The placement is the put's own, after the expiry
    /// prefix.
    pub fn add_expiring(
        &mut self,
        buf: &mut Vec<u8>,
        kind: LogEntryKind,
        key: &[u8],
        value: &[u8],
        expires_at: Option<u64>,
    ) -> EntryPlacement {
        let seq = self.first_seq + u64::from(self.count);
        self.count += 1;
        if matches!(kind, LogEntryKind::Inline | LogEntryKind::Separated) {
            put_expiry_prefix(buf, expires_at);
        }
        if kind == LogEntryKind::Separated {
            return put_separated(buf, seq, key, value);
        }
        let offset = buf.len();
        buf.push(kind as u8);
        put_varint(buf, key.len() as u64);
        if kind != LogEntryKind::Delete {
            put_varint(buf, value.len() as u64);
        }
        buf.extend_from_slice(key);
        if kind != LogEntryKind::Delete {
            buf.extend_from_slice(value);
        }
        EntryPlacement {
            offset,
            len: buf.len() - offset,
        }
    }

    /// Appends a separated put whose value is `stored` (plain or compressed), expiring at
    /// `expires_at` if given, and returns where the entry (after any prefix) landed.
    pub fn add_stored(
        &mut self,
        buf: &mut Vec<u8>,
        key: &[u8],
        stored: StoredValue<'_>,
        expires_at: Option<u64>,
    ) -> EntryPlacement {
        let seq = self.first_seq + u64::from(self.count);
        self.count += 1;
        put_expiry_prefix(buf, expires_at);
        put_separated_stored(buf, seq, key, stored)
    }

    /// Completes the record: fills in the count and the frame header.
    pub fn finish(self, buf: &mut [u8]) {
        finish_batch(buf, self.frame_start, self.count);
    }
}

/// Where a batch record's count sits, from the start of its frame.
const BATCH_COUNT_AT: usize = FRAME_HEADER_LEN + 17;

/// Where a batch record's first entry starts, from the start of its frame.
pub const BATCH_ENTRIES_AT: usize = FRAME_HEADER_LEN + BATCH_HEADER_LEN;

/// Fills in the count and the frame header of the batch record begun at `frame_start`,
/// which runs to the end of `buf`.
fn finish_batch(buf: &mut [u8], frame_start: usize, count: u32) {
    let count_at = frame_start + BATCH_COUNT_AT;
    if let Some(slot) = buf.get_mut(count_at..count_at + 4) {
        slot.copy_from_slice(&count.to_le_bytes());
    }
    finish_frame(buf, frame_start);
}

/// The batch record at the end of a buffer that later batches may still join, so that
/// small batches written one after another share one frame (`docs/format/value-log.md`,
/// "Joined batches"): a batch joins when its first sequence number follows the record's
/// last and neither holds a separated entry (a frame is the unit value GC punches out of a
/// file, so records of separated values stay one batch each). The record's count and frame
/// header are left unfilled while it is open; [`close`](Self::close) fills them in, once
/// per record however many batches joined it, and only then may the buffer's bytes leave
/// memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenBatchRecord {
    frame_start: usize,
    next_seq: SeqNo,
    count: u32,
    joinable: bool,
}

impl OpenBatchRecord {
    /// Appends `record`, one batch record of `count` entries from sequence number
    /// `first_seq` as [`BatchRecordWriter`] wrote it, not finished (its count and frame
    /// header are filled in when the open record closes), to `buf`; `separated` says
    /// whether it holds a separated entry.
    /// `open` is the record still open at the end of `buf`, if any: `record`'s entries
    /// join it when neither holds a separated entry, the sequence numbers follow on and
    /// the joined payload stays within [`MAX_FRAME_PAYLOAD`]; otherwise `open` is closed
    /// and `record` starts a new open record. Returns the open record and where
    /// `record`'s first entry landed in `buf`.
    ///
    /// [`MAX_FRAME_PAYLOAD`]: super::record::MAX_FRAME_PAYLOAD
    pub fn append(
        open: Option<OpenBatchRecord>,
        buf: &mut Vec<u8>,
        record: &[u8],
        first_seq: SeqNo,
        count: u32,
        separated: bool,
    ) -> (OpenBatchRecord, usize) {
        let entries = record.get(BATCH_ENTRIES_AT..).unwrap_or_default();
        if let Some(mut open) = open {
            let payload = buf.len() - open.frame_start - FRAME_HEADER_LEN;
            let fits = payload + entries.len() <= super::record::MAX_FRAME_PAYLOAD;
            let follows = open.next_seq == first_seq && open.count.checked_add(count).is_some();
            if open.joinable && !separated && follows && fits {
                let at = buf.len();
                buf.extend_from_slice(entries);
                open.next_seq = first_seq.saturating_add(u64::from(count));
                open.count += count;
                return (open, at);
            }
            open.close(buf);
        }
        let frame_start = buf.len();
        buf.extend_from_slice(record);
        let open = OpenBatchRecord {
            frame_start,
            next_seq: first_seq.saturating_add(u64::from(count)),
            count,
            joinable: !separated,
        };
        (open, frame_start + BATCH_ENTRIES_AT)
    }

    /// Completes the record, which runs to the end of `buf`: fills in its count and frame
    /// header.
    pub fn close(self, buf: &mut [u8]) {
        finish_batch(buf, self.frame_start, self.count);
    }
}

/// Writes one relocation record: [`RelocationWriter::begin`], [`add`](Self::add) each
/// record, [`finish`](Self::finish).
#[derive(Debug)]
pub struct RelocationWriter {
    frame_start: usize,
    count: u32,
}

impl RelocationWriter {
    /// Starts a relocation record at the end of `buf`.
    pub fn begin(buf: &mut Vec<u8>, synced_upto: u64) -> RelocationWriter {
        let frame_start = begin_frame(buf);
        buf.push(RecordType::Relocation as u8);
        buf.extend_from_slice(&synced_upto.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        RelocationWriter {
            frame_start,
            count: 0,
        }
    }

    /// Appends `key@seq -> value` and returns where its separated entry landed.
    pub fn add(
        &mut self,
        buf: &mut Vec<u8>,
        seq: SeqNo,
        key: &[u8],
        value: &[u8],
    ) -> EntryPlacement {
        self.add_expiring(buf, seq, key, value, None)
    }

    /// Like [`add`](Self::add), for a pair that expires at `expires_at`.
    pub fn add_expiring(
        &mut self,
        buf: &mut Vec<u8>,
        seq: SeqNo,
        key: &[u8],
        value: &[u8],
        expires_at: Option<u64>,
    ) -> EntryPlacement {
        self.add_stored(buf, seq, key, StoredValue::plain(value), expires_at)
    }

    /// Like [`add_expiring`](Self::add_expiring), with the value in its stored form
    /// (kept compressed if it was).
    pub fn add_stored(
        &mut self,
        buf: &mut Vec<u8>,
        seq: SeqNo,
        key: &[u8],
        stored: StoredValue<'_>,
        expires_at: Option<u64>,
    ) -> EntryPlacement {
        self.count += 1;
        buf.extend_from_slice(&seq.to_le_bytes());
        put_expiry_prefix(buf, expires_at);
        put_separated_stored(buf, seq, key, stored)
    }

    /// Completes the record.
    pub fn finish(self, buf: &mut [u8]) {
        let count_at = self.frame_start + FRAME_HEADER_LEN + 9;
        if let Some(slot) = buf.get_mut(count_at..count_at + 4) {
            slot.copy_from_slice(&self.count.to_le_bytes());
        }
        finish_frame(buf, self.frame_start);
    }
}

/// Appends a standalone separated entry (the form SVTables store, and the form a value
/// handle points at inside a batch) for `key -> value` at sequence `seq`.
pub fn put_separated(buf: &mut Vec<u8>, seq: SeqNo, key: &[u8], value: &[u8]) -> EntryPlacement {
    put_separated_stored(buf, seq, key, StoredValue::plain(value))
}

/// Like [`put_separated`], with the value in its stored form: a compressed one makes a
/// kind [`COMPRESSED_SEPARATED`] entry.
pub fn put_separated_stored(
    buf: &mut Vec<u8>,
    seq: SeqNo,
    key: &[u8],
    stored: StoredValue<'_>,
) -> EntryPlacement {
    let offset = buf.len();
    buf.push(if stored.compressed {
        COMPRESSED_SEPARATED
    } else {
        LogEntryKind::Separated as u8
    });
    put_varint(buf, key.len() as u64);
    put_varint(buf, stored.bytes.len() as u64);
    buf.extend_from_slice(key);
    buf.extend_from_slice(stored.bytes);
    let crc = entry_crc(seq, buf.get(offset..).unwrap_or_default());
    buf.extend_from_slice(&crc.to_le_bytes());
    EntryPlacement {
        offset,
        len: buf.len() - offset,
    }
}

/// The encoded size of an entry, for accounting before encoding.
pub fn entry_len(kind: LogEntryKind, key_len: usize, value_len: usize) -> usize {
    match kind {
        LogEntryKind::Delete => 1 + varint_len(key_len as u64) + key_len,
        LogEntryKind::Inline | LogEntryKind::RangeDelete => {
            1 + varint_len(key_len as u64) + varint_len(value_len as u64) + key_len + value_len
        }
        LogEntryKind::Separated => entry_len(LogEntryKind::Inline, key_len, value_len) + 4,
    }
}

fn entry_crc(seq: SeqNo, entry_without_crc: &[u8]) -> u32 {
    let mut crc = crc32c::crc32c(&seq.to_le_bytes());
    crc = crc32c::crc32c_append(crc, entry_without_crc);
    super::coding::mask_crc(crc)
}

/// The decoded header of a batch or relocation record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchHeader {
    /// Batch or relocation.
    pub record_type: RecordType,
    /// Sequence number of the first entry (0 for a relocation record, whose entries carry
    /// their own).
    pub first_seq: SeqNo,
    /// File offset known durable when the record was written.
    pub synced_upto: u64,
    /// Number of entries.
    pub count: u32,
}

/// One entry of a decoded batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry<'a> {
    /// What the entry is.
    pub kind: LogEntryKind,
    /// Its sequence number.
    pub seq: SeqNo,
    /// The user key.
    pub key: &'a [u8],
    /// The value (empty for deletes).
    pub value: &'a [u8],
    /// When the put expires (milliseconds since the Unix epoch), if it does.
    pub expires_at: Option<u64>,
    /// Whether a separated put's `value` is its compressed form (entry kind
    /// [`COMPRESSED_SEPARATED`]); see [`LogEntry::stored`].
    pub compressed: bool,
    /// Offset of the entry's kind byte within the batch payload (after an expiry prefix).
    pub offset: usize,
    /// The entry's length.
    pub len: usize,
}

impl<'a> LogEntry<'a> {
    /// A separated put's value as the entry stores it.
    pub fn stored(&self) -> StoredValue<'a> {
        StoredValue {
            bytes: self.value,
            compressed: self.compressed,
        }
    }
}

/// Decodes the entries of a batch or relocation record's payload (the frame's payload),
/// checking every separated entry's checksum.
#[derive(Debug)]
pub struct BatchReader<'a> {
    payload: &'a [u8],
    dec: Decoder<'a>,
    header: BatchHeader,
    index: u32,
}

impl<'a> BatchReader<'a> {
    /// Starts decoding `payload`.
    pub fn new(payload: &'a [u8]) -> Result<BatchReader<'a>, DecodeError> {
        let mut dec = Decoder::new(payload);
        let kind = dec.u8("record type")?;
        let record_type = match RecordType::try_from(kind) {
            Ok(t @ (RecordType::Batch | RecordType::Relocation)) => t,
            _ => {
                return Err(DecodeError::new(
                    0,
                    format!("not a batch or relocation record: type {kind}"),
                ));
            }
        };
        let synced_upto = dec.u64("synced offset")?;
        let first_seq = match record_type {
            RecordType::Batch => dec.u64("batch first sequence")?,
            _ => 0,
        };
        let header = BatchHeader {
            record_type,
            first_seq,
            synced_upto,
            count: dec.u32("record count")?,
        };
        if header.count == 0 {
            return Err(dec.error("record with no entries"));
        }
        if header
            .first_seq
            .checked_add(u64::from(header.count))
            .is_none_or(|end| end > crate::key::MAX_SEQNO + 1)
        {
            return Err(DecodeError::new(
                9,
                "batch sequence numbers exceed the maximum",
            ));
        }
        Ok(BatchReader {
            payload,
            dec,
            header,
            index: 0,
        })
    }

    /// The batch header.
    pub fn header(&self) -> BatchHeader {
        self.header
    }

    /// The next entry, `None` after the last; an error if the bytes do not decode or
    /// bytes remain after the last entry.
    pub fn next_entry(&mut self) -> Result<Option<LogEntry<'a>>, DecodeError> {
        match self.next_entry_checked()? {
            Some((e, false)) => Err(DecodeError::new(
                e.offset,
                "separated entry checksum mismatch",
            )),
            other => Ok(other.map(|(e, _)| e)),
        }
    }

    /// Like [`next_entry`](Self::next_entry), but a separated entry whose checksum does
    /// not match comes back with `false` instead of an error, and decoding can go on with
    /// the next entry: value GC uses it to read past one damaged record of a damaged
    /// frame. Such an entry's bytes (its key too) are not to be trusted.
    pub fn next_entry_checked(&mut self) -> Result<Option<(LogEntry<'a>, bool)>, DecodeError> {
        if self.index == self.header.count {
            if !self.dec.is_empty() {
                return Err(self.dec.error("bytes after the last batch entry"));
            }
            return Ok(None);
        }
        let seq = match self.header.record_type {
            RecordType::Relocation => {
                let at = self.dec.pos();
                let seq = self.dec.u64("relocated sequence")?;
                if seq > crate::key::MAX_SEQNO {
                    return Err(DecodeError::new(
                        at,
                        "relocated sequence exceeds the maximum",
                    ));
                }
                seq
            }
            _ => self.header.first_seq + u64::from(self.index),
        };
        self.index += 1;
        let mut offset = self.dec.pos();
        let mut kind_byte = self.dec.u8("entry kind")?;
        let mut expires_at = None;
        if kind_byte == EXPIRY_PREFIX {
            expires_at = Some(self.dec.u64("expiry time")?);
            offset = self.dec.pos();
            kind_byte = self.dec.u8("entry kind")?;
            if kind_byte == LogEntryKind::Delete as u8
                || kind_byte == LogEntryKind::RangeDelete as u8
                || kind_byte == EXPIRY_PREFIX
            {
                return Err(DecodeError::new(
                    offset,
                    format!("an expiry prefix before entry kind {kind_byte}"),
                ));
            }
        }
        let compressed = kind_byte == COMPRESSED_SEPARATED;
        let kind = if compressed {
            LogEntryKind::Separated
        } else {
            LogEntryKind::try_from(kind_byte)
                .map_err(|b| DecodeError::new(offset, format!("unknown log entry kind {b}")))?
        };
        if self.header.record_type == RecordType::Relocation && kind != LogEntryKind::Separated {
            return Err(DecodeError::new(
                offset,
                "a relocation record holds only separated entries",
            ));
        }
        let key_len = self
            .dec
            .varint_len(crate::options::MAX_KEY_SIZE, "key length")?;
        let value_len = match kind {
            LogEntryKind::Delete => 0,
            // The end key of a range deletion.
            LogEntryKind::RangeDelete => self
                .dec
                .varint_len(crate::options::MAX_KEY_SIZE, "end key length")?,
            _ => self
                .dec
                .varint_len(crate::options::MAX_VALUE_SIZE, "value length")?,
        };
        let key = self.dec.bytes(key_len, "key")?;
        let value = self.dec.bytes(value_len, "value")?;
        if kind == LogEntryKind::RangeDelete && key > value {
            return Err(DecodeError::new(
                offset,
                "a range deletion whose start is after its end",
            ));
        }
        let mut intact = true;
        if kind == LogEntryKind::Separated {
            let body = self.payload.get(offset..self.dec.pos()).unwrap_or_default();
            let stored = self.dec.u32("entry checksum")?;
            intact = stored == entry_crc(seq, body);
        }
        let entry = LogEntry {
            kind,
            seq,
            key,
            value,
            expires_at,
            compressed,
            offset,
            len: self.dec.pos() - offset,
        };
        Ok(Some((entry, intact)))
    }
}

/// Where a separated entry's value lies in the entry's bytes, and whether those bytes are
/// the value's compressed form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeparatedValue {
    /// The stored value's range within the entry.
    pub range: std::ops::Range<usize>,
    /// Whether the stored value is compressed (entry kind [`COMPRESSED_SEPARATED`]).
    pub compressed: bool,
}

/// Decodes a separated entry read through a handle (`buf` holds exactly the handle's
/// bytes) and returns where its stored value lies within `buf`. Fails unless the entry is
/// a separated put of `key` at sequence `seq` with a matching checksum.
pub fn decode_separated(buf: &[u8], key: &[u8], seq: SeqNo) -> Result<SeparatedValue, DecodeError> {
    let mut d = Decoder::new(buf);
    let kind = d.u8("entry kind")?;
    if kind != LogEntryKind::Separated as u8 && kind != COMPRESSED_SEPARATED {
        return Err(DecodeError::new(
            0,
            format!("expected a separated entry, found kind {kind}"),
        ));
    }
    let key_len = d.varint_len(crate::options::MAX_KEY_SIZE, "key length")?;
    let value_len = d.varint_len(crate::options::MAX_VALUE_SIZE, "value length")?;
    let stored_key = d.bytes(key_len, "key")?;
    let value_start = d.pos();
    d.bytes(value_len, "value")?;
    let body_end = d.pos();
    let stored_crc = d.u32("entry checksum")?;
    if !d.is_empty() {
        return Err(d.error("handle length does not match the entry"));
    }
    if stored_key != key {
        return Err(DecodeError::new(0, "value entry belongs to another key"));
    }
    if stored_crc != entry_crc(seq, buf.get(..body_end).unwrap_or_default()) {
        return Err(DecodeError::new(
            0,
            "value entry checksum mismatch (damaged bytes or another version)",
        ));
    }
    Ok(SeparatedValue {
        range: value_start..body_end,
        compressed: kind == COMPRESSED_SEPARATED,
    })
}

/// Appends a sync marker frame saying the file was durable up to `synced_upto`.
pub fn put_sync_marker(buf: &mut Vec<u8>, synced_upto: u64) {
    let start = begin_frame(buf);
    buf.push(RecordType::SyncMarker as u8);
    buf.extend_from_slice(&synced_upto.to_le_bytes());
    finish_frame(buf, start);
}

/// Bytes of a seal record's payload: type, synced offset, next file number.
pub const SEAL_PAYLOAD_LEN: usize = 17;

/// Appends a seal frame: the file was durable up to `synced_upto` when it was written, and
/// the log continues in value file `next_file`.
pub fn put_seal(buf: &mut Vec<u8>, synced_upto: u64, next_file: u64) {
    let start = begin_frame(buf);
    buf.push(RecordType::Seal as u8);
    buf.extend_from_slice(&synced_upto.to_le_bytes());
    buf.extend_from_slice(&next_file.to_le_bytes());
    finish_frame(buf, start);
}

/// The next value file a seal record names.
pub fn decode_seal(payload: &[u8]) -> Result<u64, DecodeError> {
    let mut d = Decoder::new(payload);
    if d.u8("record type")? != RecordType::Seal as u8 {
        return Err(DecodeError::new(0, "not a seal record"));
    }
    d.u64("synced offset")?;
    let next = d.u64("next value file")?;
    if !d.is_empty() {
        return Err(d.error("bytes after a seal record"));
    }
    Ok(next)
}

/// The type and `synced_upto` of any value-log record.
pub fn peek_record(payload: &[u8]) -> Result<(RecordType, u64), DecodeError> {
    let mut d = Decoder::new(payload);
    let kind = d.u8("record type")?;
    let t = RecordType::try_from(kind)
        .map_err(|k| DecodeError::new(0, format!("unknown value-log record type {k}")))?;
    let synced_upto = d.u64("synced offset")?;
    if t == RecordType::SyncMarker && !d.is_empty() {
        return Err(d.error("bytes after a sync marker"));
    }
    if t == RecordType::Seal && d.remaining() != 8 {
        return Err(d.error("a seal record holds exactly the next file number"));
    }
    Ok((t, synced_upto))
}

/// Reads a batch record's header without decoding its entries: used when scanning past a
/// damaged record to find later intact ones. `None` if the payload is not a batch.
pub fn peek_header(payload: &[u8]) -> Option<BatchHeader> {
    let mut d = Decoder::new(payload);
    if d.u8("").ok()? != RecordType::Batch as u8 {
        return None;
    }
    let synced_upto = d.u64("").ok()?;
    Some(BatchHeader {
        record_type: RecordType::Batch,
        first_seq: d.u64("").ok()?,
        synced_upto,
        count: d.u32("").ok()?,
    })
}

#[cfg(test)]
#[path = "vlog_tests.rs"]
mod tests;

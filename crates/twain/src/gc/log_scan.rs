//! Reading the separated records of a sealed value log file for value GC, past damage.
//!
//! Every separated entry carries its own checksum over its sequence number and bytes, so an
//! entry whose checksum holds is trusted even inside a frame whose checksum does not: one
//! damaged byte costs one record, not the whole frame. A damaged frame's length is trusted
//! only if the next frame starts where it says (an intact frame is there, or the file ends
//! there); otherwise nothing after the damage can be found, and the rest of the file is
//! reported unreadable.

use super::Throttle;
use super::damage::{Damage, MAX_DAMAGES};
use crate::Result;
use crate::error::IoContext;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use crate::format::record::{FRAME_HEADER_LEN, Frame, MAX_FRAME_PAYLOAD, decode_frame};
use crate::format::vlog::{BatchReader, LogEntry, LogEntryKind, RecordType, peek_record};
use crate::fs::{Fs, ReadableFile};
use std::path::Path;
use std::sync::Arc;

/// What a frame met by [`scan_log`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// A batch of entries.
    Batch,
    /// A sync marker.
    SyncMarker,
    /// A seal marker.
    Seal,
    /// A frame whose checksum does not hold.
    Damaged,
}

/// What [`scan_log`] hands on: every intact separated entry, and each frame after its
/// entries.
pub(crate) trait LogVisitor {
    /// An intact separated entry whose kind byte is at file offset `at`.
    fn entry(&mut self, at: u64, e: &LogEntry<'_>);
    /// The frame `[start, end)` whose entries were just handed on.
    fn frame(&mut self, start: u64, end: u64, kind: FrameKind) {
        let _ = (start, end, kind);
    }
}

impl<F: FnMut(u64, &LogEntry<'_>)> LogVisitor for F {
    fn entry(&mut self, at: u64, e: &LogEntry<'_>) {
        self(at, e);
    }
}

/// The end of the run of `skip` (sorted, not overlapping) that holds offset `at`, if any.
pub(crate) fn skip_to(skip: &[(u64, u64)], at: u64) -> Option<u64> {
    let i = skip.partition_point(|&(_, end)| end <= at);
    skip.get(i)
        .filter(|&&(start, _)| start <= at)
        .map(|&(_, end)| end)
}

/// Hands every intact separated entry of value log file `number` at `path` to `visitor`
/// with the file offset of its kind byte, and each frame after its entries; records damage
/// in `damage` (at most [`MAX_DAMAGES`] places; the first is always kept). The punched runs
/// in `skip` (sorted, whole frames) are not read: the scan goes on at their end. Returns
/// the bytes read. Only I/O errors fail.
pub(crate) fn scan_log(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    skip: &[(u64, u64)],
    throttle: &mut Throttle,
    damage: &mut Vec<Damage>,
    visitor: &mut impl LogVisitor,
) -> Result<u64> {
    let file = fs.open_read(path).ctx("open", path)?;
    // The scan reads the file in explicit chunks of the throttle's length: read-ahead on
    // top would send the disk requests of megabytes whatever that length says.
    file.advise_random();
    let file_len = file.len().ctx("stat", path)?;
    let mut w = Window::new(file, file_len, path, throttle.read_len());
    let mut note = |offset: u64, key: Option<&[u8]>, what: String| {
        if damage.len() < MAX_DAMAGES {
            damage.push(Damage {
                offset,
                key: key.map(<[u8]>::to_vec),
                what,
            });
        }
    };
    match decode_header(FileKind::ValueLog, w.get(0, FILE_HEADER_LEN as u64)?) {
        Ok(n) if n == number => {}
        Ok(n) => {
            note(
                0,
                None,
                format!("header names value file {n}; nothing in it can be read"),
            );
            return Ok(w.read(throttle));
        }
        Err(e) => {
            note(
                0,
                None,
                format!("{}; nothing in the file can be read", e.what),
            );
            return Ok(w.read(throttle));
        }
    }
    let mut at = FILE_HEADER_LEN as u64;
    while at < file_len {
        if let Some(end) = skip_to(skip, at) {
            at = end;
            continue;
        }
        let Some(len) = frame_len(w.get(at, FRAME_HEADER_LEN as u64)?, at, file_len) else {
            let what = "frame header damaged or cut short: the rest of the file is unreadable";
            note(at, None, what.into());
            break;
        };
        let next = at + len;
        let frame = w.get(at, len)?;
        let (payload, intact) = match decode_frame(frame) {
            Frame::Good { payload, .. } => (payload, true),
            _ => (frame.get(FRAME_HEADER_LEN..).unwrap_or_default(), false),
        };
        let payload_at = at + FRAME_HEADER_LEN as u64;
        if !intact {
            note(at, None, "frame checksum mismatch".into());
        }
        let kind = entries(payload, payload_at, intact, &mut note, visitor);
        visitor.frame(at, next, kind);
        w.read(throttle);
        w.chunk = throttle.read_len();
        // A damaged frame's length is believed only if the next frame is where it says (or
        // a punched run starts there, which only ever follows an intact frame).
        if !intact
            && next < file_len
            && skip_to(skip, next).is_none()
            && !good_frame_at(&mut w, next, file_len)?
        {
            note(
                at,
                None,
                "damaged frame whose length cannot be trusted: the rest of the file is unreadable"
                    .into(),
            );
            break;
        }
        at = next;
    }
    Ok(w.read(throttle))
}

/// The whole length of the frame whose header is `head`, at `at`, if it fits the file.
fn frame_len(head: &[u8], at: u64, file_len: u64) -> Option<u64> {
    let len = u32::from_le_bytes(head.get(4..8)?.try_into().ok()?) as u64;
    let whole = FRAME_HEADER_LEN as u64 + len;
    (len <= MAX_FRAME_PAYLOAD as u64 && at + whole <= file_len).then_some(whole)
}

/// Whether an intact frame starts at `at`.
fn good_frame_at(w: &mut Window<'_>, at: u64, file_len: u64) -> Result<bool> {
    let Some(len) = frame_len(w.get(at, FRAME_HEADER_LEN as u64)?, at, file_len) else {
        return Ok(false);
    };
    Ok(matches!(decode_frame(w.get(at, len)?), Frame::Good { .. }))
}

/// Decodes the entries of one record's payload; `intact` says whether its frame's
/// checksum held (if not, only entries with their own checksum are believed). Returns
/// what the frame holds.
fn entries(
    payload: &[u8],
    payload_at: u64,
    intact: bool,
    note: &mut impl FnMut(u64, Option<&[u8]>, String),
    visitor: &mut impl LogVisitor,
) -> FrameKind {
    let mut kind = match (peek_record(payload), intact) {
        (Ok((RecordType::SyncMarker, _)), true) => return FrameKind::SyncMarker,
        (Ok((RecordType::Seal, _)), true) => return FrameKind::Seal,
        (Ok((RecordType::SyncMarker | RecordType::Seal, _)), false) => {
            return FrameKind::Damaged;
        }
        (Ok(_), true) => FrameKind::Batch,
        (Ok(_), false) => FrameKind::Damaged,
        (Err(e), true) => {
            note(payload_at + e.offset as u64, None, e.what);
            return FrameKind::Damaged;
        }
        (Err(_), false) => return FrameKind::Damaged,
    };
    let mut reader = match BatchReader::new(payload) {
        Ok(r) => r,
        Err(e) => {
            note(payload_at + e.offset as u64, None, e.what);
            return FrameKind::Damaged;
        }
    };
    loop {
        match reader.next_entry_checked() {
            Ok(None) => return kind,
            Ok(Some((e, true))) if e.kind == LogEntryKind::Separated => {
                visitor.entry(payload_at + e.offset as u64, &e);
            }
            Ok(Some((_, true))) => {}
            Ok(Some((e, false))) => {
                kind = FrameKind::Damaged;
                note(
                    payload_at + e.offset as u64,
                    Some(e.key),
                    "separated entry checksum mismatch".into(),
                );
            }
            Err(e) => {
                // Past this point the entries cannot be delimited.
                note(payload_at + e.offset as u64, None, e.what);
                return FrameKind::Damaged;
            }
        }
    }
}

/// Serves byte ranges of a file from a sliding in-memory chunk, counting what it read.
struct Window<'p> {
    file: Arc<dyn ReadableFile>,
    file_len: u64,
    path: &'p Path,
    start: u64,
    buf: Vec<u8>,
    read: u64,
    charged: u64,
    /// Bytes read from the file at a time (more when one frame is longer).
    chunk: u64,
}

impl<'p> Window<'p> {
    fn new(file: Arc<dyn ReadableFile>, file_len: u64, path: &'p Path, chunk: u64) -> Window<'p> {
        Window {
            file,
            file_len,
            path,
            start: 0,
            buf: Vec::new(),
            read: 0,
            charged: 0,
            chunk,
        }
    }

    /// Up to `len` bytes at `offset` (fewer at the end of the file).
    fn get(&mut self, offset: u64, len: u64) -> Result<&[u8]> {
        let offset = offset.min(self.file_len);
        let want_end = (offset + len).min(self.file_len);
        if offset < self.start || want_end > self.start + self.buf.len() as u64 {
            let n = (want_end - offset)
                .max(self.chunk)
                .min(self.file_len - offset);
            self.buf.resize(n as usize, 0);
            self.file
                .read_exact_at(&mut self.buf, offset)
                .ctx("read", self.path)?;
            self.start = offset;
            self.read += n;
            // Reading in bulk, the next chunk is on its way while this one is worked on.
            if self.chunk >= super::BULK_READ && offset + n < self.file_len {
                let next = offset + n;
                self.file
                    .will_need(next, self.chunk.min(self.file_len - next));
            }
        }
        let from = (offset - self.start) as usize;
        let to = (want_end - self.start) as usize;
        Ok(self.buf.get(from..to).unwrap_or_default())
    }

    /// Charges the bytes read so far to `throttle`; returns the total.
    fn read(&mut self, throttle: &mut Throttle) -> u64 {
        throttle.spend(self.read - self.charged);
        self.charged = self.read;
        self.read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::file_header::encode_header;
    use crate::format::vlog::{BatchRecordWriter, put_sync_marker};
    use crate::fs::MemFs;

    /// A value file of two batches of two separated entries each, and a sync marker.
    /// Returns the file and the offsets of the frames and of the values.
    fn file() -> (Vec<u8>, Vec<usize>, Vec<usize>) {
        let mut buf = encode_header(FileKind::ValueLog, 7).to_vec();
        let (mut frames, mut values) = (Vec::new(), Vec::new());
        for first in [10, 12] {
            frames.push(buf.len());
            let mut w = BatchRecordWriter::begin(&mut buf, first, 0);
            for i in 0..2 {
                let p = w.add(&mut buf, LogEntryKind::Separated, b"key", &[i as u8; 40]);
                values.push(p.offset + p.len - 4 - 20);
            }
            w.finish(&mut buf);
        }
        let end = buf.len() as u64;
        put_sync_marker(&mut buf, end);
        (buf, frames, values)
    }

    fn scan(bytes: &[u8]) -> (Vec<u64>, Vec<Damage>) {
        let fs = MemFs::new();
        let path = Path::new("/000007.vlog");
        let mut f = fs.create(path).unwrap();
        f.append(bytes).unwrap();
        let (mut seqs, mut damage) = (Vec::new(), Vec::new());
        let mut on_entry = |_: u64, e: &LogEntry<'_>| seqs.push(e.seq);
        scan_log(
            &fs,
            path,
            7,
            &[],
            &mut Throttle::new(0),
            &mut damage,
            &mut on_entry,
        )
        .unwrap();
        (seqs, damage)
    }

    /// The scan reads as long as the throttle's pace says, asking again as it goes: a log
    /// of just over 2 MiB is read in nine or ten reads while users read (and the pace says
    /// so), in one otherwise, and in a few short reads and then one long one when users stop
    /// reading during the scan.
    #[test]
    fn the_scan_reads_as_long_as_its_pace_says() {
        use crate::fs::{FaultFs, OpKind};
        use crate::gc::{BULK_READ, Pace, SHARED_READ};
        let mut buf = encode_header(FileKind::ValueLog, 7).to_vec();
        for first in 0..540u64 {
            let mut w = BatchRecordWriter::begin(&mut buf, first, 0);
            w.add(&mut buf, LogEntryKind::Separated, b"key", &[7; 4000]);
            w.finish(&mut buf);
        }
        assert!(buf.len() > 2 << 20 && (buf.len() as u64) < BULK_READ);
        /// Says `first`, then `then` once asked with a check.
        struct Len {
            first: u64,
            then: u64,
            checked: std::cell::Cell<bool>,
        }
        impl Pace for Len {
            fn check(&self) {
                self.checked.set(true);
            }
            fn read_len(&self) -> u64 {
                if self.checked.get() {
                    self.then
                } else {
                    self.first
                }
            }
        }
        let reads = |first: u64, then: u64| {
            let mem = MemFs::new();
            let path = Path::new("/000007.vlog");
            mem.create(path).unwrap().append(&buf).unwrap();
            let fs = FaultFs::over_mem(&mem);
            let pace = Len {
                first,
                then,
                checked: std::cell::Cell::new(false),
            };
            let mut throttle = Throttle::new(0).paced(Some(&pace));
            let (mut n, mut damage) = (0, Vec::new());
            let mut on_entry = |_: u64, _: &LogEntry<'_>| n += 1;
            let before = fs.ops_of(OpKind::Read);
            let read = scan_log(&fs, path, 7, &[], &mut throttle, &mut damage, &mut on_entry);
            assert_eq!((n, damage.len()), (540, 0));
            let reads = fs.ops_of(OpKind::Read) - before;
            // A frame cut by a read's end is read again whole by the next read.
            let read = read.unwrap();
            assert!(read >= buf.len() as u64 && read <= buf.len() as u64 + reads * 4100);
            reads
        };
        let shared = buf.len().div_ceil(SHARED_READ as usize) as u64;
        assert!((shared..=shared + 1).contains(&reads(SHARED_READ, SHARED_READ)));
        assert_eq!(reads(BULK_READ, BULK_READ), 1);
        // Users start reading as the scan begins: after its first MiB (when the throttle
        // asks the pace) the reads turn short. The first read took 4 MiB, the whole file.
        assert_eq!(reads(BULK_READ, SHARED_READ), 1);
        // They stop: the reads after the first MiB are long, the rest of the file in one.
        let r = reads(SHARED_READ, BULK_READ);
        assert!((5..=6).contains(&r), "four short reads, then one long: {r}");
    }

    #[test]
    fn an_intact_file_yields_every_entry() {
        let (bytes, _, _) = file();
        assert_eq!(scan(&bytes), (vec![10, 11, 12, 13], vec![]));
    }

    #[test]
    fn a_damaged_entry_costs_that_entry_only() {
        let (mut bytes, frames, values) = file();
        bytes[values[0]] ^= 1;
        let (seqs, damage) = scan(&bytes);
        assert_eq!(seqs, vec![11, 12, 13]);
        assert_eq!(damage[0].offset, frames[0] as u64);
        assert_eq!(damage[1].key.as_deref(), Some(&b"key"[..]));
    }

    #[test]
    fn a_damaged_frame_length_hides_the_rest() {
        let (mut bytes, frames, _) = file();
        bytes[frames[0] + 4] ^= 1;
        let (seqs, damage) = scan(&bytes);
        assert!(!seqs.contains(&12) && !seqs.contains(&13), "{seqs:?}");
        assert!(damage.last().unwrap().what.contains("unreadable"));
    }

    #[test]
    fn a_damaged_file_header_hides_everything() {
        let (mut bytes, _, _) = file();
        bytes[3] ^= 1;
        let (seqs, damage) = scan(&bytes);
        assert!(seqs.is_empty());
        assert_eq!(damage.len(), 1);
    }
}

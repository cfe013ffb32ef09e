//! Reading every separated record of a value file, log or SVTable, in one sequential pass,
//! past damage: what was damaged is reported in the [`Scan`], for [`judge`](super::judge).

use super::Throttle;
use super::damage::{Damage, MAX_DAMAGES};
use super::log_scan::{FrameKind, LogVisitor, scan_log, skip_to};
use super::punch_plan::Span;
use crate::error::IoContext;
use crate::format::compression::StoredValue;
use crate::format::file_header::FILE_HEADER_LEN;
use crate::format::vlog::{LogEntry, decode_separated};
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::seq_set::SeqSet;
use crate::vlog::ValueFile;
use crate::{Error, Result};

/// The most records (and dropped sequence numbers) a read reserves room for up front.
const RESERVE_CAP: u64 = 1 << 18;

/// One separated record of a value file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The user key.
    pub key: Vec<u8>,
    /// The sequence number.
    pub seq: SeqNo,
    /// The value as its entry stores it (see [`compressed`](Self::compressed)).
    pub value: Vec<u8>,
    /// Whether `value` is the value's compressed form; copies keep it so.
    pub compressed: bool,
    /// The entry's size in the file.
    pub len: u32,
    /// Where the entry starts in the file: the offset a handle made for it names.
    pub offset: u64,
}

impl Record {
    /// The value in its stored form, for writing it elsewhere unchanged.
    pub fn stored(&self) -> StoredValue<'_> {
        StoredValue {
            bytes: &self.value,
            compressed: self.compressed,
        }
    }
}

/// What a read of a value file found.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// The intact records wanted. Records of an SVTable come in key order; a log's in log
    /// order.
    pub records: Vec<Record>,
    /// Bytes read.
    pub read: u64,
    /// Records accounted for: read intact, or (in an SVTable) dropped and left unread.
    pub intact: u64,
    /// The sequence numbers of those that are in the drop set.
    pub intact_dropped: SeqSet,
    /// Damaged places, in file order (the first [`MAX_DAMAGES`]).
    pub damage: Vec<Damage>,
    /// The file's layout, punched runs left out (for [`choose`](super::punch_plan::choose)):
    /// a value log's frames, an SVTable's entries, in file order.
    pub spans: Vec<Span>,
    /// Sequences in the drop set that a value log holds more than once (see
    /// [`Job::read`](super::Job::read)).
    pub dropped_twice: SeqSet,
}

impl Scan {
    /// Counts an intact record, `dead` if it is in the drop set. Returns false for a dead
    /// one counted before: its sequence number met twice.
    fn account(&mut self, seq: SeqNo, dead: bool) -> bool {
        self.intact += 1;
        !dead || self.intact_dropped.insert(seq)
    }
}

/// Hands a value log's entries to a [`Scan`] and lays out its frames.
struct LogReader<'a> {
    scan: &'a mut Scan,
    dropped: &'a SeqSet,
    skip_dropped: bool,
    /// The frame being read: whether it holds a live record, and its dead records.
    live: bool,
    dead: (u64, u64),
}

impl LogVisitor for LogReader<'_> {
    fn entry(&mut self, at: u64, e: &LogEntry<'_>) {
        let dead = self.dropped.contains(&e.seq);
        if !self.scan.account(e.seq, dead) {
            self.scan.dropped_twice.insert(e.seq);
        }
        if dead {
            self.dead.0 += 1;
            self.dead.1 += e.len as u64;
        } else {
            self.live = true;
        }
        if !(self.skip_dropped && dead) {
            self.scan.records.push(Record {
                key: e.key.to_vec(),
                seq: e.seq,
                value: e.value.to_vec(),
                compressed: e.compressed,
                len: e.len as u32,
                offset: at,
            });
        }
    }

    fn frame(&mut self, start: u64, end: u64, kind: FrameKind) {
        let live = self.live || matches!(kind, FrameKind::Seal | FrameKind::Damaged);
        self.scan.spans.push(Span {
            start,
            end,
            live,
            dead_records: self.dead.0,
            dead_bytes: self.dead.1,
        });
        self.live = false;
        self.dead = (0, 0);
    }
}

/// Every intact separated record of `file`, except those in `dropped` if `skip_dropped`;
/// the punched runs in `punched` (their records all dropped) are not read. Damage is
/// reported in the result; only I/O errors fail (and a file that cannot be opened at all).
pub(crate) fn read_records(
    fs: &dyn Fs,
    file: &ValueFile,
    punched: &[(u64, u64)],
    throttle: &mut Throttle,
    dropped: &SeqSet,
    skip_dropped: bool,
) -> Result<Scan> {
    let mut scan = Scan::default();
    // Room reserved once, for what the counts say the file holds: growing these as the
    // records come copies (or rehashes) everything read so far. Capped, since the counts
    // are only estimates.
    let wanted = if skip_dropped {
        file.separated_count().saturating_sub(dropped.len() as u64)
    } else {
        file.separated_count()
    };
    scan.records.reserve(wanted.min(RESERVE_CAP) as usize);
    scan.intact_dropped
        .reserve(dropped.len().min(RESERVE_CAP as usize));
    if file.epoch() == 0 {
        let mut damage = Vec::new();
        let mut reader = LogReader {
            scan: &mut scan,
            dropped,
            skip_dropped,
            live: false,
            dead: (0, 0),
        };
        let read = scan_log(
            fs,
            file.path(),
            file.number(),
            punched,
            throttle,
            &mut damage,
            &mut reader,
        )?;
        scan.read = read;
        scan.damage = damage;
        // The file's last frame stays: a marker there says how the file ended.
        if let Some(last) = scan.spans.last_mut() {
            last.live = true;
        }
        return Ok(scan);
    }
    let path = file.path();
    // A damaged footer or index leaves nothing to find the entries by.
    let index = match file.svtable().and_then(|i| Ok((i, i.entries(path)?))) {
        Ok(i) => i,
        Err(Error::Corruption { offset, what, .. }) => {
            scan.damage.push(Damage {
                offset,
                key: None,
                what: format!("{what}; no entry of the SVTable can be found"),
            });
            return Ok(scan);
        }
        Err(e) => return Err(e),
    };
    let (index, entries) = index;
    let end = index.footer().index_offset;
    let reader = file.reader()?;
    let mut chunk_start = FILE_HEADER_LEN as u64;
    let mut chunk: Vec<u8> = Vec::new();
    for (key, seq, offset, len) in entries {
        if skip_to(punched, offset).is_some() {
            // Punched: dead, and left unread like the dropped records below.
            continue;
        }
        let dead = dropped.contains(&seq);
        let mut span = Span {
            start: offset,
            end: offset + u64::from(len),
            live: !dead,
            dead_records: u64::from(dead),
            dead_bytes: if dead { u64::from(len) } else { 0 },
        };
        if skip_dropped && dead {
            scan.account(seq, dead);
            scan.spans.push(span);
            continue;
        }
        let entry_end = offset + u64::from(len);
        let bytes = if offset < FILE_HEADER_LEN as u64 || entry_end > end {
            None
        } else {
            if entry_end > chunk_start + chunk.len() as u64 || offset < chunk_start {
                chunk_start = offset;
                let read_len = throttle.read_len();
                let n = (end - offset).min(read_len.max(u64::from(len)));
                chunk = reader.read_vec(offset, n as usize).ctx("read", path)?;
                // Reading in bulk, the next chunk is on its way while this one is worked on.
                // (Up to the entry area's end; dead entries in that span may come along,
                // as they do inside a chunk.)
                if read_len >= super::BULK_READ && offset + n < end {
                    reader.will_need(offset + n, read_len.min(end - offset - n));
                }
                scan.read += n;
                throttle.spend(n);
            }
            let at = (offset - chunk_start) as usize;
            chunk.get(at..at + len as usize)
        };
        let decoded = match bytes {
            None => Err("SVTable entry outside the entry area".to_string()),
            Some(b) => decode_separated(b, &key, seq)
                .map(|v| (b.get(v.range).unwrap_or_default().to_vec(), v.compressed))
                .map_err(|e| e.what),
        };
        // A damaged entry stays where it is.
        span.live |= decoded.is_err();
        scan.spans.push(span);
        match decoded {
            Ok((value, compressed)) => {
                scan.account(seq, dead);
                scan.records.push(Record {
                    value,
                    compressed,
                    key,
                    seq,
                    len,
                    offset,
                });
            }
            Err(what) if scan.damage.len() < MAX_DAMAGES => scan.damage.push(Damage {
                offset,
                key: Some(key),
                what,
            }),
            Err(_) => {}
        }
    }
    Ok(scan)
}

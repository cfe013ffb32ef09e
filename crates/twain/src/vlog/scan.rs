//! Reading a value file from front to back, as recovery (and later GC and `twain check`)
//! does, telling a torn tail from corruption.

use crate::error::IoContext;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use crate::format::record::{FRAME_HEADER_LEN, Frame, decode_frame};
use crate::format::vlog::{BatchReader, RecordType, decode_seal, peek_header, peek_record};
use crate::fs::{Fs, ReadableFile};
use crate::key::SeqNo;
use crate::{Error, Result};
use std::path::Path;
use std::sync::Arc;

/// Bytes of a sync marker's frame (frame header and payload).
pub const MARKER_FRAME_LEN: u64 = 17;

/// Bytes read from the file at a time.
const CHUNK: usize = 4 << 20;

/// What a scan of a value file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOutcome {
    /// Offset just past the last intact record (the file's valid length).
    pub valid_end: u64,
    /// The file's length on disk.
    pub file_len: u64,
    /// If the file ended in a torn record: its offset and what was wrong.
    pub torn_at: Option<(u64, String)>,
    /// The largest sequence number seen.
    pub max_seq: Option<SeqNo>,
    /// Whether the file's last intact record is a sync marker vouching for everything
    /// before it — as a clean close leaves the active file (and a roll left every sealed
    /// file before seal records existed); torn bytes may follow it.
    pub ends_with_marker: bool,
    /// The next value file, if the file's last intact record is a seal record: the writer
    /// left it complete for that file.
    pub sealed_next: Option<u64>,
    /// The largest `synced_upto` of an intact record: past the header, it proves that the
    /// file was synced once, and so (syncs go in file order) that every older value file was
    /// durable in full.
    pub max_synced_upto: u64,
    /// Holes stepped over (`scan_value_file_past_holes` only): the `[start, end)` extent
    /// of whole records each one spans, in file order.
    pub holes: Vec<(u64, u64)>,
    /// The bytes of the zeroed blocks inside them.
    pub hole_bytes: u64,
}

impl ScanOutcome {
    /// Whether the writer left the file complete: an intact seal record (whatever torn
    /// bytes of the sync marker that follows it), or a close marker ends it.
    pub fn is_complete(&self) -> bool {
        self.sealed_next.is_some() || (self.torn_at.is_none() && self.ends_with_marker)
    }

    /// Whether writing must not continue in this file: a seal or a close marker ends it
    /// (a crash that cut a file continued after its marker would look complete).
    pub fn is_ended(&self) -> bool {
        self.sealed_next.is_some() || self.ends_with_marker
    }

    /// Whether an intact record says the file was synced past its header.
    pub fn was_synced(&self) -> bool {
        self.max_synced_upto > FILE_HEADER_LEN as u64
    }
}

/// Whether the value log whose files after the flushed point are `numbers` (ascending) was
/// closed cleanly: its newest file ends in the close marker (an intact marker last, no seal
/// before it). A clean close writes that marker after the manifest's last edit is durable,
/// and an open removes it before it writes anything, so a manifest whose last edit is
/// damaged or incomplete beside it has lost an acknowledged edit (`db::open`, `check`).
pub(crate) fn closed_cleanly(fs: &dyn Fs, dir: &Path, numbers: &[u64]) -> Result<bool> {
    let Some(&newest) = numbers.last() else {
        return Ok(false);
    };
    let path = crate::format::names::value_file_path(dir, newest, 0);
    let outcome = scan_value_file(fs, &path, newest, true, |_, _, _| Ok(()))?;
    Ok(outcome.sealed_next.is_none() && outcome.is_complete())
}

/// Reads the whole of `path` in chunks; hands each intact batch record to `on_batch`
/// with the file offset and length of its frame.
///
/// A damaged or incomplete record is a *torn tail* only if `may_be_torn` (the file is the
/// last value file, the only one that can hold unsynced bytes) and no later intact record
/// claims that the damaged bytes were already durable (`synced_upto`). Anything else is
/// [`Error::Corruption`] naming the file and offset.
pub fn scan_value_file(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    may_be_torn: bool,
    on_batch: impl FnMut(u64, u64, &mut BatchReader<'_>) -> Result<()>,
) -> Result<ScanOutcome> {
    scan_value_file_skipping(fs, path, number, may_be_torn, &[], on_batch)
}

/// [`scan_value_file`] that skips the punched runs `skip` of a sealed file (sorted `[start,
/// end)` extents of whole frames, `docs/format/manifest.md` tag 12): the scan goes on at
/// a run's end without reading it.
pub(crate) fn scan_value_file_skipping(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    may_be_torn: bool,
    skip: &[(u64, u64)],
    on_batch: impl FnMut(u64, u64, &mut BatchReader<'_>) -> Result<()>,
) -> Result<ScanOutcome> {
    scan(fs, path, number, may_be_torn, skip, false, on_batch)
}

/// [`scan_value_file_skipping`] that also steps over holes no manifest names: where a
/// record is damaged, the whole blocks after its start read as zeros, and an intact record
/// follows them, as value GC's hole punching leaves a file (`super::holes`), the scan
/// records the extent in [`ScanOutcome::holes`] and goes on after it. For repair, which
/// lost the manifest that named the punched runs.
pub(crate) fn scan_value_file_past_holes(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    may_be_torn: bool,
    skip: &[(u64, u64)],
    on_batch: impl FnMut(u64, u64, &mut BatchReader<'_>) -> Result<()>,
) -> Result<ScanOutcome> {
    scan(fs, path, number, may_be_torn, skip, true, on_batch)
}

fn scan(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    may_be_torn: bool,
    skip: &[(u64, u64)],
    past_holes: bool,
    mut on_batch: impl FnMut(u64, u64, &mut BatchReader<'_>) -> Result<()>,
) -> Result<ScanOutcome> {
    let file = fs.open_read(path).ctx("open", path)?;
    let file_len = file.len().ctx("stat", path)?;
    let mut chunks = ChunkReader::new(file, file_len, path);
    let header = chunks.window(0, FILE_HEADER_LEN)?;
    let header_ok = match decode_header(FileKind::ValueLog, header) {
        Ok(n) if n == number => true,
        Ok(n) => {
            return Err(Error::corruption(
                path,
                0,
                format!("header names value file {n}, expected {number}"),
            ));
        }
        Err(e) if may_be_torn => {
            // The header is synced before any record can be: a bad header with no later
            // record vouching for it is a creation that never completed — another thread's
            // directory sync can make the name durable before the header is.
            let what = e.what.clone();
            if later_durable_record(&mut chunks, 0, file_len, None)?.is_some() {
                return Err(e.into_corruption(path, 0));
            }
            return Ok(ScanOutcome {
                valid_end: 0,
                file_len,
                torn_at: Some((0, what)),
                max_seq: None,
                ends_with_marker: false,
                sealed_next: None,
                max_synced_upto: 0,
                holes: Vec::new(),
                hole_bytes: 0,
            });
        }
        Err(e) => return Err(e.into_corruption(path, 0)),
    };
    debug_assert!(header_ok);
    let mut offset = FILE_HEADER_LEN as u64;
    let mut max_seq: Option<SeqNo> = None;
    let mut last_marker: Option<(u64, u64)> = None;
    let mut seal: Option<(u64, u64)> = None;
    let mut max_synced_upto = 0u64;
    let (mut holes, mut hole_bytes) = (Vec::new(), 0u64);
    while offset < file_len {
        if let Some(end) = crate::gc::skip_to(skip, offset) {
            offset = end;
            continue;
        }
        let avail = chunks.window(offset, FRAME_HEADER_LEN)?;
        let needed = match decode_frame(avail) {
            Frame::Truncated { needed } if needed > 0 => needed,
            _ => FRAME_HEADER_LEN,
        };
        let window = chunks.window(offset, needed)?;
        let damage = match decode_frame(window) {
            Frame::Good { payload, frame_len } => {
                let (kind, synced_upto) = peek_record(payload)
                    .map_err(|e| e.into_corruption(path, offset + FRAME_HEADER_LEN as u64))?;
                if let Some((at, _)) = seal
                    && kind != RecordType::SyncMarker
                {
                    return Err(Error::corruption(
                        path,
                        offset,
                        format!(
                            "a record other than a sync marker follows the seal record at offset {at}"
                        ),
                    ));
                }
                max_synced_upto = max_synced_upto.max(synced_upto);
                if kind == RecordType::Seal {
                    let next = decode_seal(payload)
                        .map_err(|e| e.into_corruption(path, offset + FRAME_HEADER_LEN as u64))?;
                    if next <= number {
                        return Err(Error::corruption(
                            path,
                            offset,
                            format!("seal record names value file {next} as the next one"),
                        ));
                    }
                    seal = Some((offset, next));
                    offset += frame_len as u64;
                    continue;
                }
                if kind == RecordType::SyncMarker {
                    last_marker = Some((offset, synced_upto));
                    offset += frame_len as u64;
                    continue;
                }
                let mut reader = BatchReader::new(payload)
                    .map_err(|e| e.into_corruption(path, offset + FRAME_HEADER_LEN as u64))?;
                let header = reader.header();
                // Relocation records carry old sequences; only batches advance the log's.
                if header.record_type == RecordType::Batch {
                    if let Some(prev) = max_seq
                        && header.first_seq <= prev
                    {
                        return Err(Error::corruption(
                            path,
                            offset,
                            format!("batch sequence {} does not follow {prev}", header.first_seq),
                        ));
                    }
                    max_seq = Some(header.first_seq + u64::from(header.count) - 1);
                }
                on_batch(offset, frame_len as u64, &mut reader)?;
                offset += frame_len as u64;
                continue;
            }
            Frame::Truncated { .. } => "record extends past the end of the file".to_string(),
            Frame::Bad { what } => what.to_string(),
        };
        if past_holes
            && seal.is_none()
            && let Some(hole) = super::holes::past_hole(&mut chunks, offset, max_seq)?
        {
            holes.push((offset, hole.resume));
            hole_bytes += hole.zeroed;
            offset = hole.resume;
            continue;
        }
        if !may_be_torn {
            return Err(Error::corruption(path, offset, damage));
        }
        if let Some(proof) = later_durable_record(&mut chunks, offset, file_len, max_seq)? {
            return Err(Error::corruption(
                path,
                offset,
                format!("{damage}; the record at offset {proof} shows these bytes were synced"),
            ));
        }
        return Ok(ScanOutcome {
            valid_end: offset,
            file_len,
            torn_at: Some((offset, damage)),
            max_seq,
            ends_with_marker: last_marker
                .is_some_and(|(at, upto)| upto == at && at + MARKER_FRAME_LEN == offset),
            sealed_next: seal.map(|(_, next)| next),
            max_synced_upto,
            holes,
            hole_bytes,
        });
    }
    // The marker must be the last record and cover everything before it.
    let ends_with_marker =
        last_marker.is_some_and(|(at, upto)| upto == at && at + MARKER_FRAME_LEN == offset);
    Ok(ScanOutcome {
        valid_end: offset,
        file_len,
        torn_at: None,
        max_seq,
        ends_with_marker,
        sealed_next: seal.map(|(_, next)| next),
        max_synced_upto,
        holes,
        hole_bytes,
    })
}

/// Looks past damage at `damaged` for an intact later batch whose `synced_upto` covers
/// the damage, which proves the damaged bytes had been made durable. Returns its offset.
fn later_durable_record(
    chunks: &mut ChunkReader,
    damaged: u64,
    file_len: u64,
    max_seq: Option<SeqNo>,
) -> Result<Option<u64>> {
    let mut at = damaged + 1;
    while at + FRAME_HEADER_LEN as u64 <= file_len {
        let head = chunks.window(at, FRAME_HEADER_LEN)?;
        let needed = match decode_frame(head) {
            Frame::Truncated { needed } if needed > 0 && (at + needed as u64) <= file_len => needed,
            _ => {
                at += 1;
                continue;
            }
        };
        let window = chunks.window(at, needed)?;
        if let Frame::Good { payload, frame_len } = decode_frame(window)
            && let Ok((kind, synced_upto)) = peek_record(payload)
            && (kind != RecordType::Batch
                || peek_header(payload).is_some_and(|h| max_seq.is_none_or(|m| h.first_seq > m)))
        {
            if synced_upto > damaged {
                return Ok(Some(at));
            }
            at += frame_len as u64;
            continue;
        }
        at += 1;
    }
    Ok(None)
}

/// Serves byte windows of a file from a sliding in-memory chunk.
pub(super) struct ChunkReader<'p> {
    file: Arc<dyn ReadableFile>,
    file_len: u64,
    path: &'p Path,
    start: u64,
    buf: Vec<u8>,
}

impl<'p> ChunkReader<'p> {
    fn new(file: Arc<dyn ReadableFile>, file_len: u64, path: &'p Path) -> ChunkReader<'p> {
        ChunkReader {
            file,
            file_len,
            path,
            start: 0,
            buf: Vec::new(),
        }
    }

    /// The file's length.
    pub(super) fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Up to `len` bytes at `offset` (fewer at the end of the file).
    pub(super) fn window(&mut self, offset: u64, len: usize) -> Result<&[u8]> {
        let want_end = (offset + len as u64).min(self.file_len);
        let have_end = self.start + self.buf.len() as u64;
        if offset < self.start || want_end > have_end {
            let read_len = (want_end - offset)
                .max(CHUNK as u64)
                .min(self.file_len - offset);
            self.buf.resize(read_len as usize, 0);
            self.file
                .read_exact_at(&mut self.buf, offset)
                .ctx("read", self.path)?;
            self.start = offset;
        }
        let from = (offset - self.start) as usize;
        let to = (want_end - self.start) as usize;
        Ok(self.buf.get(from..to).unwrap_or_default())
    }
}

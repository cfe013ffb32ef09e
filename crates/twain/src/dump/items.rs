//! The records of a value file, SVTable, manifest or drop file as a stream of [`Item`]s, in
//! file order: what `dump_file` prints as text and `twain dump --json` as objects, and what
//! `twain dump --from/--to/--limit` selects from. Memory stays at one frame (or one
//! SVTable entry) at a time.

use super::{check_header, punched_runs};
use crate::error::IoContext;
use crate::format::drops::decode_block;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind};
use crate::format::manifest::VersionEdit;
use crate::format::names::{FileType, parse_file_name_with_epoch};
use crate::format::record::{FRAME_HEADER_LEN, Frame, decode_frame};
use crate::format::vlog::LogEntryKind;
use crate::fs::Fs;
use crate::key::SeqNo;
use crate::vlog::scan_value_file_skipping;
use crate::{Error, Result};
use std::path::Path;
use std::sync::Arc;

/// One thing a file holds, as a dump shows it.
#[derive(Debug)]
pub enum Item<'a> {
    /// The file itself: a value log or an SVTable.
    ValueFile {
        /// Its number.
        number: u64,
        /// Its epoch (0 for a log).
        epoch: u32,
        /// For an SVTable: entries, entry bytes, index offset and index size.
        svtable: Option<(u64, u64, u64, u64)>,
    },
    /// A manifest or drop file and its number.
    Framed {
        /// What kind.
        kind: FileKind,
        /// Its number.
        number: u64,
    },
    /// A run value GC punched out of the file: its records are dead and not read.
    Punched {
        /// First byte.
        start: u64,
        /// End (exclusive).
        end: u64,
    },
    /// A value log's batch or relocation record.
    Batch {
        /// Its frame's offset.
        at: u64,
        /// Its frame's length.
        len: u64,
        /// Its first sequence number (0 for a relocation record).
        first_seq: SeqNo,
        /// Its entry count.
        count: u32,
        /// The offset it says was durable when it was written.
        synced_upto: u64,
    },
    /// An entry of a value log's record or of an SVTable.
    Entry(Entry<'a>),
    /// A manifest edit.
    Edit {
        /// Its frame's offset.
        at: u64,
        /// The edit.
        edit: &'a VersionEdit,
    },
    /// A drop file's block of `(sequence, entry length)` records.
    Drops {
        /// Its frame's offset.
        at: u64,
        /// The records.
        records: &'a [(u64, u32)],
    },
    /// Where reading stopped before the file's end: a torn tail or damage.
    Stop {
        /// `torn tail` or `damaged record`.
        kind: &'static str,
        /// The offset.
        at: u64,
        /// What was found there (may be empty).
        what: String,
    },
    /// A value log's end: its valid bytes and its length.
    End {
        /// Offset just past the last intact record.
        valid_end: u64,
        /// The file's length.
        file_len: u64,
    },
}

/// An entry of a value file.
#[derive(Debug)]
pub struct Entry<'a> {
    /// Its sequence number.
    pub seq: SeqNo,
    /// `delete`, `inline`, `separated`, `separated compressed`, `delete-range` or (in a
    /// hash segment) `tombstone`.
    pub kind: &'static str,
    /// The user key (a range deletion's start).
    pub key: &'a [u8],
    /// The value (a range deletion's end key; decompressed if stored compressed), or what
    /// was wrong with a compressed value that does not decode; none for a delete or a
    /// tombstone.
    pub value: Option<std::result::Result<std::borrow::Cow<'a, [u8]>, String>>,
    /// The stored value's length, if it is stored compressed.
    pub stored_len: Option<usize>,
    /// When the put expires (ms since the Unix epoch).
    pub expires_at: Option<u64>,
    /// The entry's file offset and length.
    pub offset: u64,
    /// The entry's length in the file.
    pub len: u64,
}

/// How [`walk_log`] ends a scan its visitor stopped.
const STOPPED: &str = "dump walk stopped by its visitor";

/// What a visitor says after each item: go on, or stop reading.
pub type Visit<'v> = dyn FnMut(Item<'_>) -> Result<bool> + 'v;

/// Walks the records of the value file, SVTable, manifest or drop file at `path` (chosen by
/// its name), handing each to `visit` until it returns `false`. Checks the file's header or
/// footer first; an error for any other kind of file.
pub fn walk(fs: &Arc<dyn Fs>, path: &Path, visit: &mut Visit<'_>) -> Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match parse_file_name_with_epoch(name) {
        Some((FileType::ValueLog, n, _)) => walk_log(fs.as_ref(), path, n, visit),
        Some((FileType::SvTable, n, epoch)) => walk_svtable(fs, path, n, epoch, visit),
        Some((FileType::Manifest, _, _)) => {
            walk_framed(fs.as_ref(), path, FileKind::Manifest, visit)
        }
        Some((FileType::Drops, _, _)) => walk_framed(fs.as_ref(), path, FileKind::Drops, visit),
        _ => Err(Error::InvalidArgument(format!(
            "{name}: not a value file, SVTable, manifest or drop file"
        ))),
    }
}

fn walk_log(fs: &dyn Fs, path: &Path, number: u64, visit: &mut Visit<'_>) -> Result<()> {
    // The header first: the scan below would otherwise look through the whole file for a
    // record that vouches for a damaged header.
    check_header(fs, path, FileKind::ValueLog)?;
    let mut going = visit(Item::ValueFile {
        number,
        epoch: 0,
        svtable: None,
    })?;
    let punched = punched_runs(fs, path, number, 0);
    for &(start, end) in &punched {
        going = going && visit(Item::Punched { start, end })?;
    }
    let scanned = scan_value_file_skipping(fs, path, number, true, &punched, |at, len, reader| {
        if !going {
            // The visitor has what it wanted: end the scan here, not at the file's end.
            return Err(Error::InvalidArgument(STOPPED.into()));
        }
        let h = reader.header();
        going = visit(Item::Batch {
            at,
            len,
            first_seq: h.first_seq,
            count: h.count,
            synced_upto: h.synced_upto,
        })?;
        while going
            && let Some(e) = reader
                .next_entry()
                .map_err(|e| e.into_corruption(path, at + 8))?
        {
            let kind = match e.kind {
                LogEntryKind::Delete => "delete",
                LogEntryKind::Inline => "inline",
                LogEntryKind::Separated if e.compressed => "separated compressed",
                LogEntryKind::Separated => "separated",
                LogEntryKind::RangeDelete => "delete-range",
            };
            let value = (e.kind != LogEntryKind::Delete)
                .then(|| e.stored().value().map_err(|err| err.what));
            going = visit(Item::Entry(Entry {
                seq: e.seq,
                kind,
                key: e.key,
                value,
                stored_len: e.compressed.then_some(e.value.len()),
                expires_at: e.expires_at,
                offset: at + 8 + e.offset as u64,
                len: e.len as u64,
            }))?;
        }
        Ok(())
    });
    let outcome = match scanned {
        Err(Error::InvalidArgument(what)) if !going && what == STOPPED => return Ok(()),
        other => other?,
    };
    if !going {
        return Ok(());
    }
    if let Some((at, what)) = outcome.torn_at {
        let kind = "torn tail";
        if !visit(Item::Stop { kind, at, what })? {
            return Ok(());
        }
    }
    visit(Item::End {
        valid_end: outcome.valid_end,
        file_len: outcome.file_len,
    })
    .map(|_| ())
}

fn walk_svtable(
    fs: &Arc<dyn Fs>,
    path: &Path,
    number: u64,
    epoch: u32,
    visit: &mut Visit<'_>,
) -> Result<()> {
    let file = crate::vlog::ValueFile::with_epoch(
        Arc::clone(fs),
        path.parent().unwrap_or(Path::new(".")),
        number,
        epoch,
    );
    let index = file.svtable()?;
    let f = index.footer();
    let svtable = Some((f.entry_count, f.entry_bytes, f.index_offset, f.index_size));
    if !visit(Item::ValueFile {
        number,
        epoch,
        svtable,
    })? {
        return Ok(());
    }
    let punched = punched_runs(fs.as_ref(), path, number, epoch);
    for &(start, end) in &punched {
        if !visit(Item::Punched { start, end })? {
            return Ok(());
        }
    }
    for item in index.items(path)? {
        let (key, seq) = (item.key, item.seq);
        let Some((offset, len)) = item.record else {
            let tombstone = Entry {
                seq,
                kind: "tombstone",
                key: &key,
                value: None,
                stored_len: None,
                expires_at: None,
                offset: 0,
                len: 0,
            };
            if !visit(Item::Entry(tombstone))? {
                return Ok(());
            }
            continue;
        };
        if crate::gc::skip_to(&punched, offset).is_some() {
            continue;
        }
        let h = crate::format::handle::ValueHandle {
            file: number,
            epoch,
            offset,
            len,
        };
        let (stored, compressed) = file.read_stored(&h, &key, seq)?;
        let value = if compressed {
            // Shown as damage, as a log's entry is; the walk goes on.
            crate::format::compression::decompress_value(&stored)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| e.what)
        } else {
            Ok(std::borrow::Cow::Borrowed(&stored[..]))
        };
        let entry = Entry {
            seq,
            kind: if compressed {
                "separated compressed"
            } else {
                "separated"
            },
            key: &key,
            value: Some(value),
            stored_len: compressed.then_some(stored.len()),
            expires_at: None,
            offset,
            len: u64::from(len),
        };
        if !visit(Item::Entry(entry))? {
            return Ok(());
        }
    }
    Ok(())
}

/// A manifest or drop file frame by frame: each frame's header is read first, then its
/// payload, so memory stays at one frame however long the file is.
fn walk_framed(fs: &dyn Fs, path: &Path, kind: FileKind, visit: &mut Visit<'_>) -> Result<()> {
    let (number, len) = check_header(fs, path, kind)?;
    let f = fs.open_read(path).ctx("open", path)?;
    if !visit(Item::Framed { kind, number })? {
        return Ok(());
    }
    let mut offset = FILE_HEADER_LEN as u64;
    while offset < len {
        let head_len = (len - offset).min(FRAME_HEADER_LEN as u64) as usize;
        let head = f.read_vec(offset, head_len).ctx("read", path)?;
        let frame = match decode_frame(&head) {
            Frame::Truncated { needed } if needed > 0 && offset + needed as u64 <= len => {
                f.read_vec(offset, needed).ctx("read", path)?
            }
            _ => head,
        };
        let at = offset + FRAME_HEADER_LEN as u64;
        let going = match decode_frame(&frame) {
            Frame::Good { payload, frame_len } => {
                let going = match kind {
                    FileKind::Manifest => {
                        let edit = VersionEdit::decode(payload)
                            .map_err(|e| e.into_corruption(path, at))?;
                        visit(Item::Edit {
                            at: offset,
                            edit: &edit,
                        })?
                    }
                    _ => {
                        let records =
                            decode_block(payload).map_err(|e| e.into_corruption(path, at))?;
                        visit(Item::Drops {
                            at: offset,
                            records: &records,
                        })?
                    }
                };
                offset += frame_len as u64;
                going
            }
            Frame::Truncated { .. } => {
                visit(Item::Stop {
                    kind: "torn tail",
                    at: offset,
                    what: String::new(),
                })?;
                false
            }
            Frame::Bad { what } => {
                visit(Item::Stop {
                    kind: "damaged record",
                    at: offset,
                    what: what.to_string(),
                })?;
                false
            }
        };
        if !going {
            break;
        }
    }
    Ok(())
}

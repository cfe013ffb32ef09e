//! Readable dumps of every file kind, for `twain dump` and bug reports.

use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::drops::decode_block;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use crate::format::manifest::{ValueFileOrigin, VersionEdit};
use crate::format::names::{FileType, parse_file_name_with_epoch};
use crate::format::record::{FRAME_HEADER_LEN, Frame, decode_frame};
use crate::format::table::{FOOTER_LEN, Footer};
use crate::format::vlog::LogEntryKind;
use crate::fs::{Fs, ReadableFile};
use crate::table::Table;
use crate::vlog::scan_value_file_skipping;
use crate::{Error, Result};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Escapes bytes for display: printable ASCII as is, everything else as `\xNN`.
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'\\' || b == b' ' {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
}

/// At most `n` leading bytes of a value, escaped, with its length.
fn preview(value: &[u8]) -> String {
    const N: usize = 24;
    let shown = value.get(..N.min(value.len())).unwrap_or_default();
    let more = if value.len() > N { "..." } else { "" };
    format!("{} bytes \"{}{more}\"", value.len(), escape(shown))
}

fn write_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io {
        op: "write dump of",
        path: path.to_path_buf(),
        source: e,
    }
}

/// The longest `CURRENT` file dumped: it names one manifest.
const MAX_CURRENT_LEN: u64 = 4096;

/// Dumps the file at `path`, choosing the format by its name.
///
/// Refuses anything but a regular file (a FIFO would block the open, a device never end)
/// and checks the file's header or footer (its magic) before reading further. Memory stays
/// bounded: tables are read a block at a time, logs a frame at a time, so the most held at
/// once is one block or one frame (at most 1 GiB, `MAX_FRAME_PAYLOAD`), never the file.
pub fn dump_file(fs: &Arc<dyn Fs>, path: &Path, out: &mut dyn Write) -> Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::InvalidArgument(format!("{} has no file name", path.display())))?;
    if !fs.is_file(path).ctx("stat", path)? {
        return Err(Error::InvalidArgument(format!(
            "{}: not a regular file (a directory, FIFO, socket or device); dump reads only \
             regular files",
            path.display()
        )));
    }
    match parse_file_name_with_epoch(name).map(|(k, n, _)| (k, n)) {
        Some((FileType::SvTable, n)) => {
            let epoch = parse_file_name_with_epoch(name).map_or(0, |(_, _, e)| e);
            dump_svtable(fs, path, n, epoch, out)
        }
        Some((FileType::Table, n)) => {
            let reader = fs.open_read(path).ctx("open", path)?;
            let size = reader.len().ctx("stat", path)?;
            check_table_footer(reader.as_ref(), path, size)?;
            let table = Table::open(
                n,
                path.to_path_buf(),
                reader,
                size,
                Arc::new(BlockCache::new(0)),
            )?;
            crate::table::dump(&table, out)
        }
        Some((FileType::ValueLog, n)) => dump_value_file(fs.as_ref(), path, n, out),
        Some((FileType::Manifest, _)) => dump_framed(fs.as_ref(), path, FileKind::Manifest, out),
        Some((FileType::Drops, _)) => dump_framed(fs.as_ref(), path, FileKind::Drops, out),
        Some((FileType::Current, _)) => {
            let f = fs.open_read(path).ctx("open", path)?;
            let len = f.len().ctx("stat", path)?;
            if len > MAX_CURRENT_LEN {
                return Err(Error::corruption(
                    path,
                    0,
                    format!(
                        "{len} bytes: a CURRENT file names one manifest in at most \
                         {MAX_CURRENT_LEN} bytes"
                    ),
                ));
            }
            let bytes = f.read_vec(0, len as usize).ctx("read", path)?;
            writeln!(out, "CURRENT -> {}", escape(&bytes)).map_err(write_err(path))
        }
        Some((FileType::Identity, _)) => {
            let dir = path.parent().unwrap_or(Path::new("."));
            match crate::format::identity::read_identity(fs.as_ref(), dir)? {
                Some(id) => writeln!(out, "IDENTITY {id}").map_err(write_err(path)),
                None => Err(Error::InvalidArgument(format!("{name}: no such file"))),
            }
        }
        Some((FileType::InfoLog, _)) => {
            // Text for people: shown as it is, a chunk at a time.
            let f = fs.open_read(path).ctx("open", path)?;
            let len = f.len().ctx("stat", path)?;
            let mut at = 0u64;
            while at < len {
                let n = (len - at).min(64 << 10) as usize;
                let chunk = f.read_vec(at, n).ctx("read", path)?;
                out.write_all(&chunk).map_err(write_err(path))?;
                at += n as u64;
            }
            Ok(())
        }
        _ => Err(Error::InvalidArgument(format!(
            "{name}: not a twain file (expected NNNNNN.sst, .vlog, NNNNNN-E.svt, .manifest, .drop, CURRENT or IDENTITY)"
        ))),
    }
}

/// Reads and checks the header of the `kind` file at `path`: its magic, version and
/// checksum. Returns the file number it names and the file's length.
fn check_header(fs: &dyn Fs, path: &Path, kind: FileKind) -> Result<(u64, u64)> {
    let f = fs.open_read(path).ctx("open", path)?;
    let len = f.len().ctx("stat", path)?;
    let head = f
        .read_vec(0, FILE_HEADER_LEN.min(len as usize))
        .ctx("read", path)?;
    let number = decode_header(kind, &head).map_err(|e| e.into_corruption(path, 0))?;
    Ok((number, len))
}

/// The largest index, filter or properties block a table dump reads (the table builder's
/// own limit on a block).
const MAX_META_BLOCK: u64 = 1 << 30;

/// Checks a table's footer (its magic first) and that the blocks it names are at most
/// [`MAX_META_BLOCK`] bytes, before `Table::open` reads them whole.
fn check_table_footer(f: &dyn ReadableFile, path: &Path, size: u64) -> Result<()> {
    let footer_at = size.checked_sub(FOOTER_LEN as u64).ok_or_else(|| {
        Error::corruption(
            path,
            0,
            format!("file of {size} bytes is too short to be a table"),
        )
    })?;
    let raw = f.read_vec(footer_at, FOOTER_LEN).ctx("read", path)?;
    let footer = Footer::decode(&raw).map_err(|e| e.into_corruption(path, footer_at))?;
    for (name, h) in [
        ("index", footer.index),
        ("properties", footer.properties),
        ("filter", footer.filter),
    ] {
        if h.size > MAX_META_BLOCK {
            return Err(Error::corruption(
                path,
                footer_at,
                format!(
                    "{name} block of {} bytes exceeds the {MAX_META_BLOCK}-byte limit",
                    h.size
                ),
            ));
        }
    }
    Ok(())
}

fn dump_value_file(fs: &dyn Fs, path: &Path, number: u64, out: &mut dyn Write) -> Result<()> {
    // The header first: the scan below would otherwise look through the whole file for a
    // record that vouches for a damaged header.
    check_header(fs, path, FileKind::ValueLog)?;
    writeln!(out, "value file {number} ({})", path.display()).map_err(write_err(path))?;
    let punched = punched_runs(fs, path, number, 0);
    for (start, end) in &punched {
        writeln!(out, "punched run @{start}..{end}: dead records, skipped")
            .map_err(write_err(path))?;
    }
    let mut io_err = None;
    let outcome = scan_value_file_skipping(fs, path, number, true, &punched, |at, len, reader| {
        let h = reader.header();
        let r = writeln!(
            out,
            "batch @{at} len {len}: first_seq {} count {} synced_upto {}",
            h.first_seq, h.count, h.synced_upto
        );
        while let Some(e) = reader
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
            // A compressed value is shown as the value it holds, with its stored size.
            let value = match e.stored().value() {
                Ok(v) if e.compressed => {
                    format!("{} (stored in {} bytes)", preview(&v), e.value.len())
                }
                Ok(v) => preview(&v),
                Err(err) => format!("<compressed value that does not decode: {}>", err.what),
            };
            let expiry = e
                .expires_at
                .map_or_else(String::new, |t| format!(" expires {t}"));
            let r2 = writeln!(
                out,
                "  seq {} {kind} key \"{}\" value {}{expiry} (entry @{} len {})",
                e.seq,
                escape(e.key),
                value,
                at + 8 + e.offset as u64,
                e.len
            );
            if let Err(e) = r2 {
                io_err.get_or_insert(e);
            }
        }
        if let Err(e) = r {
            io_err.get_or_insert(e);
        }
        Ok(())
    })?;
    if let Some(e) = io_err {
        return Err(write_err(path)(e));
    }
    if let Some((at, what)) = outcome.torn_at {
        writeln!(out, "torn tail at {at}: {what}").map_err(write_err(path))?;
    }
    writeln!(
        out,
        "end: {} valid bytes of {}",
        outcome.valid_end, outcome.file_len
    )
    .map_err(write_err(path))
}

/// The punched runs (`docs/format/manifest.md` tag 12) that the manifest of the database
/// holding `path` records for epoch `epoch` of value file `number`; none if the file is
/// not in a database directory whose manifest reads.
fn punched_runs(fs: &dyn Fs, path: &Path, number: u64, epoch: u32) -> Vec<(u64, u64)> {
    // The most levels an engine may have: a manifest of any database reads.
    const MAX_LEVELS: usize = 16;
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    match crate::version::read_manifest(fs, dir, MAX_LEVELS) {
        Ok((state, _))
            if state
                .value_files
                .get(&number)
                .and_then(|f| f.sealed)
                .is_some_and(|s| s.epoch == epoch) =>
        {
            state.punched.get(&number).cloned().unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

fn dump_svtable(
    fs: &Arc<dyn Fs>,
    path: &Path,
    number: u64,
    epoch: u32,
    out: &mut dyn Write,
) -> Result<()> {
    let file = crate::vlog::ValueFile::with_epoch(
        Arc::clone(fs),
        path.parent().unwrap_or(Path::new(".")),
        number,
        epoch,
    );
    let index = file.svtable()?;
    let f = index.footer();
    let w = write_err(path);
    writeln!(
        out,
        "SVTable: value file {number}, epoch {epoch}, {} entries ({} bytes), index at {} ({} bytes)",
        f.entry_count, f.entry_bytes, f.index_offset, f.index_size
    )
    .map_err(&w)?;
    let punched = punched_runs(fs.as_ref(), path, number, epoch);
    for (start, end) in &punched {
        writeln!(out, "punched run @{start}..{end}: dead entries, skipped").map_err(&w)?;
    }
    for item in index.items(path)? {
        let (key, seq) = (item.key, item.seq);
        let Some((offset, len)) = item.record else {
            writeln!(out, "  key \"{}\" seq {seq} tombstone", escape(&key)).map_err(&w)?;
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
            let v = file.read_value(&h, &key, seq)?;
            format!("{} (stored in {} bytes)", preview(&v), stored.len())
        } else {
            preview(&stored)
        };
        writeln!(
            out,
            "  key \"{}\" seq {seq} @{offset} len {len} value {value}",
            escape(&key),
        )
        .map_err(&w)?;
    }
    Ok(())
}

/// Dumps a manifest or drop file frame by frame: each frame's header is read first, then
/// its payload, so memory stays at one frame however long the file is.
fn dump_framed(fs: &dyn Fs, path: &Path, kind: FileKind, out: &mut dyn Write) -> Result<()> {
    let (number, len) = check_header(fs, path, kind)?;
    let f = fs.open_read(path).ctx("open", path)?;
    let w = write_err(path);
    writeln!(out, "{kind:?} file, number {number}").map_err(&w)?;
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
        match decode_frame(&frame) {
            Frame::Good { payload, frame_len } => {
                let at = offset + FRAME_HEADER_LEN as u64;
                match kind {
                    FileKind::Manifest => {
                        let e = VersionEdit::decode(payload)
                            .map_err(|e| e.into_corruption(path, at))?;
                        writeln!(out, "edit @{offset}:").map_err(&w)?;
                        dump_edit(&e, out).map_err(&w)?;
                    }
                    _ => {
                        let drops =
                            decode_block(payload).map_err(|e| e.into_corruption(path, at))?;
                        writeln!(out, "drop block @{offset}: {} records", drops.len())
                            .map_err(&w)?;
                        for (seq, len) in drops {
                            writeln!(out, "  seq {seq} len {len}").map_err(&w)?;
                        }
                    }
                }
                offset += frame_len as u64;
            }
            Frame::Truncated { .. } => {
                writeln!(out, "torn tail at {offset}").map_err(&w)?;
                break;
            }
            Frame::Bad { what } => {
                writeln!(out, "damaged record at {offset}: {what}").map_err(&w)?;
                break;
            }
        }
    }
    Ok(())
}

fn dump_edit(e: &VersionEdit, out: &mut dyn Write) -> std::io::Result<()> {
    if let Some(n) = e.next_file_number {
        writeln!(out, "  next_file_number {n}")?;
    }
    if let Some(s) = e.last_sequence {
        writeln!(out, "  last_sequence {s}")?;
    }
    if let Some((f, o)) = e.flushed_point {
        writeln!(out, "  flushed_point file {f} offset {o}")?;
    }
    for t in &e.added_tables {
        writeln!(
            out,
            "  add table {} L{} size {} keys \"{}\"..\"{}\" seqs {}..{}",
            t.number,
            t.level,
            t.file_size,
            escape(crate::key::user_key(&t.smallest)),
            escape(crate::key::user_key(&t.largest)),
            t.smallest_seq,
            t.largest_seq
        )?;
    }
    for (l, n) in &e.deleted_tables {
        writeln!(out, "  delete table {n} L{l}")?;
    }
    for v in &e.added_value_files {
        writeln!(
            out,
            "  seal value file {} epoch {} total {} separated {} ({} entries)",
            v.number, v.epoch, v.total_bytes, v.separated_bytes, v.separated_count
        )?;
    }
    for d in &e.value_file_drops {
        writeln!(
            out,
            "  drops in value file {}: {} entries, {} bytes",
            d.number, d.count, d.bytes
        )?;
    }
    for n in &e.deleted_value_files {
        writeln!(out, "  delete value file {n}")?;
    }
    for (l, k) in &e.compact_pointers {
        writeln!(
            out,
            "  compact pointer L{l} \"{}\"",
            escape(crate::key::user_key(k))
        )?;
    }
    for p in &e.value_file_punches {
        writeln!(
            out,
            "  punched runs in value file {} epoch {}: {} runs, {} entries, {} bytes freed",
            p.number,
            p.epoch,
            p.runs.len(),
            p.records,
            p.punched_bytes
        )?;
    }
    for (n, origin) in &e.value_file_origins {
        let what = match origin {
            ValueFileOrigin::Log => "log",
            ValueFileOrigin::Transient => "transient (a flush's medium values)",
            ValueFileOrigin::Placed => "placed (values a compaction re-placed)",
            ValueFileOrigin::Hash => "hash segment",
        };
        writeln!(out, "  value file {n} origin {what}")?;
    }
    if let Some(groups) = e.hash_groups {
        writeln!(out, "  hash layout, {groups} groups")?;
    }
    for (n, group) in &e.hash_segments {
        writeln!(out, "  value file {n} origin hash segment of group {group}")?;
    }
    for n in &e.hash_cold_segments {
        writeln!(out, "  value file {n} is a cold hash segment")?;
    }
    if let Some(c) = &e.counters {
        let pairs: Vec<String> = c.iter().map(|(id, v)| format!("{id}={v}")).collect();
        writeln!(out, "  counters {}", pairs.join(" "))?;
    }
    Ok(())
}

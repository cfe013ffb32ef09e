//! Readable dumps of every file kind, for `twain dump` and bug reports.

mod items;

use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use crate::format::manifest::{ValueFileOrigin, VersionEdit};
use crate::format::names::{FileType, parse_file_name_with_epoch};
use crate::format::table::{FOOTER_LEN, Footer};
use crate::fs::{Fs, ReadableFile};
use crate::table::Table;
use crate::{Error, Result};
pub use items::{Entry, Item, Visit, walk};
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
        Some((
            FileType::SvTable | FileType::ValueLog | FileType::Manifest | FileType::Drops,
            _,
        )) => {
            let text = TextWriter::new(path);
            let mut failed = None;
            items::walk(fs, path, &mut |item| match text.write(&item, out) {
                Ok(()) => Ok(true),
                Err(e) => {
                    failed = Some(e);
                    Ok(false)
                }
            })?;
            failed.map_or(Ok(()), |e| Err(write_err(path)(e)))
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
pub(crate) fn check_header(fs: &dyn Fs, path: &Path, kind: FileKind) -> Result<(u64, u64)> {
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

/// The punched runs (`docs/format/manifest.md` tag 12) that the manifest of the database
/// holding `path` records for epoch `epoch` of value file `number`; none if the file is
/// not in a database directory whose manifest reads.
pub(crate) fn punched_runs(fs: &dyn Fs, path: &Path, number: u64, epoch: u32) -> Vec<(u64, u64)> {
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

/// Renders [`Item`]s as the text `dump_file` prints, one line or a few per item.
#[derive(Debug, Clone)]
pub struct TextWriter {
    path: std::path::PathBuf,
    svtable: bool,
}

impl TextWriter {
    /// A writer for the items of the file at `path` (an SVTable's entries are shown by
    /// key first, a log's by sequence).
    pub fn new(path: &Path) -> TextWriter {
        TextWriter {
            path: path.to_path_buf(),
            svtable: path.extension().is_some_and(|e| e == "svt"),
        }
    }

    /// Writes `item`.
    pub fn write(&self, item: &Item<'_>, out: &mut dyn Write) -> std::io::Result<()> {
        match item {
            Item::ValueFile {
                number,
                epoch,
                svtable: Some((count, bytes, index_at, index_len)),
            } => {
                writeln!(
                    out,
                    "SVTable: value file {number}, epoch {epoch}, {count} entries ({bytes} bytes), index at {index_at} ({index_len} bytes)"
                )
            }
            Item::ValueFile { number, .. } => {
                writeln!(out, "value file {number} ({})", self.path.display())
            }
            Item::Framed { kind, number } => writeln!(out, "{kind:?} file, number {number}"),
            Item::Punched { start, end } => {
                let what = if self.svtable { "entries" } else { "records" };
                writeln!(out, "punched run @{start}..{end}: dead {what}, skipped")
            }
            Item::Batch {
                at,
                len,
                first_seq,
                count,
                synced_upto,
            } => writeln!(
                out,
                "batch @{at} len {len}: first_seq {first_seq} count {count} synced_upto {synced_upto}"
            ),
            Item::Entry(e) => {
                let value = match &e.value {
                    None => String::new(),
                    Some(Ok(v)) => match e.stored_len {
                        Some(n) => format!(" value {} (stored in {n} bytes)", preview(v)),
                        None => format!(" value {}", preview(v)),
                    },
                    Some(Err(what)) => {
                        format!(" value <compressed value that does not decode: {what}>")
                    }
                };
                if self.svtable {
                    if e.kind == "tombstone" {
                        return writeln!(
                            out,
                            "  key \"{}\" seq {} tombstone",
                            escape(e.key),
                            e.seq
                        );
                    }
                    return writeln!(
                        out,
                        "  key \"{}\" seq {} @{} len {}{value}",
                        escape(e.key),
                        e.seq,
                        e.offset,
                        e.len
                    );
                }
                let expiry = e
                    .expires_at
                    .map_or_else(String::new, |t| format!(" expires {t}"));
                writeln!(
                    out,
                    "  seq {} {} key \"{}\"{value}{expiry} (entry @{} len {})",
                    e.seq,
                    e.kind,
                    escape(e.key),
                    e.offset,
                    e.len
                )
            }
            Item::Edit { at, edit } => {
                writeln!(out, "edit @{at}:")?;
                write_edit(edit, out)
            }
            Item::Drops { at, records } => {
                writeln!(out, "drop block @{at}: {} records", records.len())?;
                for (seq, len) in records.iter() {
                    writeln!(out, "  seq {seq} len {len}")?;
                }
                Ok(())
            }
            Item::Stop { kind, at, what } if what.is_empty() => writeln!(out, "{kind} at {at}"),
            Item::Stop { kind, at, what } => writeln!(out, "{kind} at {at}: {what}"),
            Item::End {
                valid_end,
                file_len,
            } => writeln!(out, "end: {valid_end} valid bytes of {file_len}"),
        }
    }
}

pub fn write_edit(e: &VersionEdit, out: &mut dyn Write) -> std::io::Result<()> {
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

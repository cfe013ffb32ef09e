//! What `twain dump` says of a file before (or instead of) its entries: the same header
//! for every kind — file, kind, number, epoch, size, how many entries and their key range
//! — then the kind's own properties. The directory summary is one such header a file.
//!
//! Everything here is cheap: a table's footer, index, properties and first and last
//! blocks; an SVTable's footer and index; a manifest's or drop file's frames (small files);
//! a value file's header only (counting its records means reading all of it).

use super::table;
use crate::text::Text;
use crate::units::{Sizes, counted};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use twain::format::names::{FileType, parse_file_name_with_epoch};
use twain::format::record::{FRAME_HEADER_LEN, Frame, decode_frame};
use twain::fs::Fs;
use twain::{Error, Result};

/// The longest `CURRENT` file read: it names one manifest.
const MAX_CURRENT_LEN: u64 = 4096;

/// A kind of file in a database directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `CURRENT`: names the live manifest.
    Current,
    /// `IDENTITY`: the database's id.
    Identity,
    /// A manifest: the log of version edits.
    Manifest,
    /// An SSTable.
    Table,
    /// A value file at epoch 0 (the value log).
    ValueFile,
    /// A value file rewritten by value GC (epoch 1 and up).
    SvTable,
    /// A drop file: the drop records of one value file.
    DropFile,
    /// `LOCK`.
    Lock,
    /// `LOG` or `LOG.old`: the engine's events as text.
    InfoLog,
    /// A temporary file.
    Temporary,
    /// Anything else in the directory.
    Other,
}

impl Kind {
    /// The kind of the file named `name`, with its number and epoch.
    pub fn of(name: &str) -> (Kind, Option<u64>, Option<u32>) {
        let Some((t, number, epoch)) = parse_file_name_with_epoch(name) else {
            return (Kind::Other, None, None);
        };
        let kind = match t {
            FileType::Current => Kind::Current,
            FileType::Identity => Kind::Identity,
            FileType::Manifest => Kind::Manifest,
            FileType::Table => Kind::Table,
            FileType::ValueLog => Kind::ValueFile,
            FileType::SvTable => Kind::SvTable,
            FileType::Drops => Kind::DropFile,
            FileType::Lock => Kind::Lock,
            FileType::InfoLog => Kind::InfoLog,
            FileType::Temp => Kind::Temporary,
        };
        match kind {
            Kind::Table | Kind::Manifest | Kind::ValueFile => (kind, Some(number), None),
            Kind::SvTable | Kind::DropFile => (kind, Some(number), Some(epoch)),
            _ => (kind, None, None),
        }
    }

    /// The word the header uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Current => "CURRENT",
            Kind::Identity => "IDENTITY",
            Kind::Manifest => "manifest",
            Kind::Table => "table",
            Kind::ValueFile => "value file",
            Kind::SvTable => "SVTable",
            Kind::DropFile => "drop file",
            Kind::Lock => "lock",
            Kind::InfoLog => "info log",
            Kind::Temporary => "temporary",
            Kind::Other => "other",
        }
    }

    /// Whether `twain dump` reads files of this kind.
    pub fn is_dumpable(self) -> bool {
        !matches!(
            self,
            Kind::Lock | Kind::InfoLog | Kind::Temporary | Kind::Other
        )
    }
}

/// A property's value.
#[derive(Debug, Clone)]
pub enum Field {
    /// A count.
    Count(u64),
    /// A size in bytes.
    Size(u64),
    /// Text.
    Text(String),
}

impl Field {
    fn show(&self, sizes: Sizes) -> String {
        match self {
            Field::Count(n) => n.to_string(),
            Field::Size(b) => sizes.show(*b),
            Field::Text(t) => t.clone(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Field::Count(n) | Field::Size(n) => json!(n),
            Field::Text(t) => json!(t),
        }
    }
}

/// What a file holds, as the header of its dump says.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The file.
    pub path: PathBuf,
    /// Its kind.
    pub kind: Kind,
    /// Its number, for numbered kinds.
    pub number: Option<u64>,
    /// Its epoch, for SVTables and drop files.
    pub epoch: Option<u32>,
    /// Its length in bytes.
    pub size: u64,
    /// How many items it holds and what they are ("entries", "edits", "records"), where
    /// that is cheap to know.
    pub count: Option<(&'static str, u64)>,
    /// Its smallest and largest user key, where cheap to know.
    pub keys: Option<(Vec<u8>, Vec<u8>)>,
    /// The kind's own properties, in order.
    pub properties: Vec<(&'static str, Field)>,
}

impl Summary {
    /// A summary with the name's kind, number and epoch, and nothing read yet.
    pub fn bare(path: &Path, size: u64) -> Summary {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let (kind, number, epoch) = Kind::of(name);
        Summary {
            path: path.to_path_buf(),
            kind,
            number,
            epoch,
            size,
            count: None,
            keys: None,
            properties: Vec::new(),
        }
    }

    /// The key range as the header shows it: `"first".."last"`.
    pub fn key_range(&self, text: Text) -> Option<String> {
        let (lo, hi) = self.keys.as_ref()?;
        Some(format!("\"{}\"..\"{}\"", text.show(lo), text.show(hi)))
    }

    /// The header and the properties as `name  value` lines.
    pub fn to_text(&self, text: Text, sizes: Sizes) -> String {
        let mut lines: Vec<(&str, String)> = vec![
            ("file", self.path.display().to_string()),
            ("kind", self.kind.name().to_string()),
        ];
        if let Some(n) = self.number {
            lines.push(("number", n.to_string()));
        }
        if let Some(e) = self.epoch {
            lines.push(("epoch", e.to_string()));
        }
        lines.push(("size", sizes.show(self.size)));
        if let Some((what, n)) = self.count {
            lines.push((what, n.to_string()));
        }
        if let Some(range) = self.key_range(text) {
            lines.push(("keys", range));
        }
        for (name, value) in &self.properties {
            lines.push((name, value.show(sizes)));
        }
        let width = lines.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        lines
            .iter()
            .map(|(name, value)| format!("{name:<width$}  {value}\n"))
            .collect()
    }

    /// The header and the properties as JSON fields (exact numbers; keys as `text`
    /// shows them).
    pub fn to_json(&self, text: Text) -> Map<String, Value> {
        let mut o = Map::new();
        o.insert("file".into(), json!(self.path.to_string_lossy()));
        o.insert("kind".into(), json!(self.kind.name()));
        o.insert("number".into(), json!(self.number));
        o.insert("epoch".into(), json!(self.epoch));
        o.insert("size".into(), json!(self.size));
        if let Some((what, n)) = self.count {
            o.insert(what.into(), json!(n));
        }
        if let Some((lo, hi)) = &self.keys {
            o.insert("smallest_key".into(), json!(text.show(lo)));
            o.insert("largest_key".into(), json!(text.show(hi)));
        }
        let props: Map<String, Value> = self
            .properties
            .iter()
            .map(|(name, value)| (name.to_string(), value.json()))
            .collect();
        o.insert("properties".into(), Value::Object(props));
        o
    }

    /// The count as the directory summary shows it: "20 entries".
    pub fn count_text(&self) -> Option<String> {
        let (what, n) = self.count?;
        let one = match what {
            "entries" => "entry",
            other => other.strip_suffix('s').unwrap_or(other),
        };
        Some(counted(n, one))
    }
}

/// Reads the summary of the regular file at `path`, a file `twain dump` reads
/// ([`Kind::is_dumpable`]), checking its header or footer.
pub fn summarize(fs: &Arc<dyn Fs>, path: &Path) -> Result<Summary> {
    let size = fs.file_size(path).map_err(io("stat", path))?;
    let mut s = Summary::bare(path, size);
    match s.kind {
        Kind::Table => table::summarize(fs.as_ref(), &mut s)?,
        Kind::ValueFile => {
            check_header(fs.as_ref(), path, FileKind::ValueLog)?;
        }
        Kind::SvTable => svtable(fs, &mut s)?,
        Kind::Manifest => {
            check_header(fs.as_ref(), path, FileKind::Manifest)?;
            let (edits, tail) = frames(fs.as_ref(), path, size, |_, _| Ok(()))?;
            s.count = Some(("edits", edits));
            s.properties.extend(tail.map(|t| ("tail", Field::Text(t))));
        }
        Kind::DropFile => {
            check_header(fs.as_ref(), path, FileKind::Drops)?;
            let mut records = 0;
            let (blocks, tail) = frames(fs.as_ref(), path, size, |at, payload| {
                let block = twain::format::drops::decode_block(payload)
                    .map_err(|e| e.into_corruption(path, at))?;
                records += block.len() as u64;
                Ok(())
            })?;
            s.count = Some(("records", records));
            s.properties.push(("blocks", Field::Count(blocks)));
            s.properties.extend(tail.map(|t| ("tail", Field::Text(t))));
        }
        Kind::Current => {
            if size > MAX_CURRENT_LEN {
                return Err(Error::corruption(
                    path,
                    0,
                    format!(
                        "{size} bytes: a CURRENT file names one manifest in at most \
                         {MAX_CURRENT_LEN} bytes"
                    ),
                ));
            }
            let f = fs.open_read(path).map_err(io("open", path))?;
            let bytes = f.read_vec(0, size as usize).map_err(io("read", path))?;
            let name = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            s.properties
                .push(("manifest", Field::Text(twain::dump::escape(name))));
        }
        Kind::Identity => {
            let dir = path.parent().unwrap_or(Path::new("."));
            let id = twain::format::identity::read_identity(fs.as_ref(), dir)?
                .ok_or_else(|| Error::InvalidArgument(format!("{}: gone", path.display())))?;
            s.properties.push(("id", Field::Text(id)));
        }
        Kind::Lock | Kind::InfoLog | Kind::Temporary | Kind::Other => {
            return Err(Error::InvalidArgument(format!(
                "{}: not a twain file (expected NNNNNN.sst, .vlog, NNNNNN-E.svt, .manifest, \
                 .drop, CURRENT or IDENTITY)",
                path.display()
            )));
        }
    }
    Ok(s)
}

/// The error of a failed `op` on `path`.
pub fn io<'a>(op: &'static str, path: &'a Path) -> impl Fn(std::io::Error) -> Error + 'a {
    move |source| Error::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

/// Checks the header of the `kind` file at `path`: magic, version and checksum.
fn check_header(fs: &dyn Fs, path: &Path, kind: FileKind) -> Result<u64> {
    let f = fs.open_read(path).map_err(io("open", path))?;
    let len = f.len().map_err(io("stat", path))?;
    let head = f
        .read_vec(0, FILE_HEADER_LEN.min(len as usize))
        .map_err(io("read", path))?;
    decode_header(kind, &head).map_err(|e| e.into_corruption(path, 0))
}

/// An SVTable's footer and index: its entries, their bytes and key range.
fn svtable(fs: &Arc<dyn Fs>, s: &mut Summary) -> Result<()> {
    let (number, epoch) = (s.number.unwrap_or(0), s.epoch.unwrap_or(0));
    let dir = s.path.parent().unwrap_or(Path::new("."));
    let file = twain::vlog::ValueFile::with_epoch(Arc::clone(fs), dir, number, epoch);
    let index = file.svtable()?;
    let f = index.footer();
    let entries = index.entries(&s.path)?;
    s.count = Some(("entries", f.entry_count));
    if let (Some(first), Some(last)) = (entries.first(), entries.last()) {
        s.keys = Some((first.0.clone(), last.0.clone()));
    }
    s.properties
        .push(("entry_bytes", Field::Size(f.entry_bytes)));
    s.properties
        .push(("index_bytes", Field::Size(f.index_size)));
    Ok(())
}

/// Walks the frames of a manifest or drop file after its header, one frame in memory at
/// a time, handing each payload (with its offset) to `each`. Returns how many frames are
/// intact and, if the file does not end cleanly, where and why.
fn frames(
    fs: &dyn Fs,
    path: &Path,
    len: u64,
    mut each: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<(u64, Option<String>)> {
    let f = fs.open_read(path).map_err(io("open", path))?;
    let mut offset = FILE_HEADER_LEN as u64;
    let mut count = 0;
    while offset < len {
        let head_len = (len - offset).min(FRAME_HEADER_LEN as u64) as usize;
        let head = f.read_vec(offset, head_len).map_err(io("read", path))?;
        let frame = match decode_frame(&head) {
            Frame::Truncated { needed } if needed > 0 && offset + needed as u64 <= len => {
                f.read_vec(offset, needed).map_err(io("read", path))?
            }
            _ => head,
        };
        match decode_frame(&frame) {
            Frame::Good { payload, frame_len } => {
                each(offset + FRAME_HEADER_LEN as u64, payload)?;
                count += 1;
                offset += frame_len as u64;
            }
            Frame::Truncated { .. } => return Ok((count, Some(format!("torn at {offset}")))),
            Frame::Bad { what } => {
                return Ok((count, Some(format!("damaged at {offset}: {what}"))));
            }
        }
    }
    Ok((count, None))
}

//! `twain dump FILE.sst`: a table's properties and its entries, every version of every
//! key in internal-key order, within a key range and up to a limit.

use super::summary::{Field, Summary, io};
use crate::text::Text;
use crate::units::Sizes;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use twain::cache::BlockCache;
use twain::format::handle::ValueHandle;
use twain::format::table::{FOOTER_LEN, Footer};
use twain::fs::Fs;
use twain::iter::InternalIterator;
use twain::key::{EntryKind, MAX_SEQNO, ParsedKey, lookup_key};
use twain::table::Table;
use twain::{Error, Result};

/// The largest index, filter or properties block read: the table builder's own limit on
/// a block. A damaged footer naming a larger one is refused before anything is read.
const MAX_META_BLOCK: u64 = 1 << 30;

/// How many bytes of an inline value the text shows.
const VALUE_PREVIEW: usize = 24;

/// Which entries to list: user keys in `[from, to)`, at most `limit` of them.
#[derive(Debug, Default)]
pub struct Selection {
    /// First user key (inclusive).
    pub from: Option<Vec<u8>>,
    /// Last user key (exclusive).
    pub to: Option<Vec<u8>>,
    /// At most this many entries.
    pub limit: Option<usize>,
}

/// Opens the table at `path`, checking its footer (magic first) and the sizes of the
/// blocks it names before reading them whole.
fn open(fs: &dyn Fs, path: &Path, number: u64) -> Result<Arc<Table>> {
    let reader = fs.open_read(path).map_err(io("open", path))?;
    let size = reader.len().map_err(io("stat", path))?;
    let footer_at = size.checked_sub(FOOTER_LEN as u64).ok_or_else(|| {
        Error::corruption(
            path,
            0,
            format!("file of {size} bytes is too short to be a table"),
        )
    })?;
    let raw = reader
        .read_vec(footer_at, FOOTER_LEN)
        .map_err(io("read", path))?;
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
    let cache = Arc::new(BlockCache::new(0));
    Table::open(number, path.to_path_buf(), reader, size, cache).map(Arc::new)
}

/// Fills in a table's summary: entries, key range (its first and last block) and
/// properties.
pub fn summarize(fs: &dyn Fs, s: &mut Summary) -> Result<()> {
    let table = open(fs, &s.path, s.number.unwrap_or(0))?;
    let p = table.properties();
    s.count = Some(("entries", p.num_entries));
    let mut it = table.iter(false);
    it.seek_to_first()?;
    if it.valid() {
        let first = ParsedKey::parse(it.key()).user_key.to_vec();
        it.seek_to_last()?;
        if it.valid() {
            s.keys = Some((first, ParsedKey::parse(it.key()).user_key.to_vec()));
        }
    }
    let f = table.footer();
    s.properties.extend([
        ("format_version", Field::Count(u64::from(f.format_version))),
        ("deletions", Field::Count(p.num_deletions)),
        ("inline_values", Field::Count(p.num_inline)),
        ("value_handles", Field::Count(p.num_handles)),
        ("key_bytes", Field::Size(p.raw_key_bytes)),
        ("inline_value_bytes", Field::Size(p.raw_value_bytes)),
        ("handle_value_bytes", Field::Size(p.handle_value_bytes)),
        ("smallest_seq", Field::Count(p.smallest_seq)),
        ("largest_seq", Field::Count(p.largest_seq)),
        ("data_blocks", Field::Count(p.num_data_blocks)),
        ("index_bytes", Field::Size(f.index.size)),
        ("filter_bytes", Field::Size(f.filter.size)),
    ]);
    if let Some(filter) = table.filter() {
        let probes = filter.num_probes();
        s.properties
            .push(("filter_probes", Field::Count(u64::from(probes))));
    }
    Ok(())
}

/// One entry as the listing shows it.
struct Entry<'a> {
    key: ParsedKey<'a>,
    value: &'a [u8],
}

impl Entry<'_> {
    /// `"key" seq 5 inline 300 B "value..."`, `"key" seq 6 handle -> value file 3 epoch 0,
    /// entry at 53, 312 B` (the entry's place and length in the value file) or
    /// `"key" seq 7 delete`.
    fn to_text(&self, text: Text, sizes: Sizes) -> String {
        let mut head = format!("\"{}\" seq {}", text.show(self.key.user_key), self.key.seq);
        let Ok((expires_at, value)) = twain::key::split_expiry(self.key.kind, self.value) else {
            return format!("{head} too short for its expiry time");
        };
        if let Some(at) = expires_at {
            head.push_str(&format!(" expires {at}"));
        }
        let entry = Entry {
            key: self.key,
            value,
        };
        entry.plain_text(head, text, sizes)
    }

    fn plain_text(&self, head: String, text: Text, sizes: Sizes) -> String {
        match self.key.entry_kind() {
            Some(EntryKind::Inline) => {
                let shown = self.value.get(..VALUE_PREVIEW).unwrap_or(self.value);
                let more = if shown.len() < self.value.len() {
                    "..."
                } else {
                    ""
                };
                format!(
                    "{head} inline {} \"{}\"{more}",
                    sizes.show(self.value.len() as u64),
                    text.show(shown)
                )
            }
            Some(EntryKind::Handle) => match ValueHandle::decode(self.value) {
                Ok(h) => format!(
                    "{head} handle -> value file {} epoch {}, entry at {}, {}",
                    h.file,
                    h.epoch,
                    h.offset,
                    sizes.show(u64::from(h.len))
                ),
                Err(e) => format!("{head} handle undecodable ({})", e.what),
            },
            Some(EntryKind::Delete) => format!("{head} delete"),
            None => format!("{head} kind {}?", self.key.kind),
        }
    }

    /// `{"key", "seq", "kind", ...}`: an inline value whole (`value`, `value_len`), a
    /// handle's fields (`handle`: `file`, `epoch`, and the entry's `offset` and `len`),
    /// nothing more for a tombstone.
    fn to_json(&self, text: Text) -> Value {
        let mut o = json!({
            "key": text.show(self.key.user_key),
            "seq": self.key.seq,
        });
        let Ok((expires_at, value)) = twain::key::split_expiry(self.key.kind, self.value) else {
            o["error"] = json!("too short for its expiry time");
            return o;
        };
        if let Some(at) = expires_at {
            o["expires_at"] = json!(at);
        }
        let this = Entry {
            key: self.key,
            value,
        };
        let extra = this.json_kind(text);
        if let (Some(o), Value::Object(extra)) = (o.as_object_mut(), extra) {
            o.extend(extra);
        }
        o
    }

    fn json_kind(&self, text: Text) -> Value {
        match self.key.entry_kind() {
            Some(EntryKind::Inline) => json!({
                "kind": "inline",
                "value_len": self.value.len(),
                "value": text.show(self.value),
            }),
            Some(EntryKind::Handle) => match ValueHandle::decode(self.value) {
                Ok(h) => json!({
                    "kind": "handle",
                    "handle": {"file": h.file, "epoch": h.epoch, "offset": h.offset, "len": h.len},
                }),
                Err(e) => json!({"kind": "handle", "error": e.what}),
            },
            Some(EntryKind::Delete) => json!({"kind": "delete"}),
            None => json!({"kind": self.key.kind}),
        }
    }
}

/// Walks the entries of the table at `path` that `sel` selects, in order, handing each
/// to `each`.
fn walk(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    sel: &Selection,
    mut each: impl FnMut(&Entry<'_>) -> Result<()>,
) -> Result<()> {
    let table = open(fs, path, number)?;
    let mut it = table.iter(false);
    match &sel.from {
        Some(from) => it.seek(&lookup_key(from, MAX_SEQNO))?,
        None => it.seek_to_first()?,
    }
    let mut left = sel.limit.unwrap_or(usize::MAX);
    while it.valid() && left > 0 {
        let key = ParsedKey::parse(it.key());
        if sel.to.as_deref().is_some_and(|to| key.user_key >= to) {
            break;
        }
        let entry = Entry {
            key,
            value: it.value(),
        };
        each(&entry)?;
        left -= 1;
        it.next()?;
    }
    Ok(())
}

/// Writes the selected entries of a table, one line each.
pub fn list_text(
    fs: &dyn Fs,
    s: &Summary,
    sel: &Selection,
    text: Text,
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<()> {
    walk(fs, &s.path, s.number.unwrap_or(0), sel, |e| {
        writeln!(out, "{}", e.to_text(text, sizes)).map_err(io("write", Path::new("stdout")))
    })
}

/// Writes the selected entries of a table as the elements of a JSON array (the caller
/// writes the brackets), one a line.
pub fn list_json(
    fs: &dyn Fs,
    s: &Summary,
    sel: &Selection,
    text: Text,
    out: &mut dyn Write,
) -> Result<()> {
    let mut first = true;
    walk(fs, &s.path, s.number.unwrap_or(0), sel, |e| {
        let sep = if first { "" } else { "," };
        first = false;
        writeln!(out, "{sep}{}", e.to_json(text)).map_err(io("write", Path::new("stdout")))
    })
}

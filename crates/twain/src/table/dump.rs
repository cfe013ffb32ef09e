//! A readable text dump of a table, for bug reports and `twain dump FILE.sst`.

use std::fmt;
use std::io::Write;
use std::path::Path;

use super::Table;
use crate::Result;
use crate::error::IoContext;
use crate::format::block::BlockIter;
use crate::format::handle::ValueHandle;
use crate::format::table::BlockHandle;
use crate::key::{EntryKind, LOOKUP_KIND, ParsedKey};

/// How many bytes of an inline value the dump shows.
const VALUE_PREVIEW: usize = 24;

/// Writes a readable dump of `table` to `out`: footer, properties, filter, index entries,
/// then every entry of every data block (user key escaped, sequence, kind, and the inline
/// value's length and first bytes, the decoded handle, or the tombstone).
///
/// Data blocks are read without filling the block cache. A damaged block stops the dump
/// with its corruption error, after everything before it has been written.
pub fn dump(table: &Table, out: &mut dyn Write) -> Result<()> {
    let out_name = Path::new("<dump output>");
    let mut w = |args: fmt::Arguments<'_>| out.write_fmt(args).ctx("write", out_name);

    let f = table.footer();
    w(format_args!(
        "table {} (number {}, {} bytes)\n",
        table.path().display(),
        table.number(),
        table.file_size()
    ))?;
    w(format_args!(
        "footer: format version {}\n",
        f.format_version
    ))?;
    if f.filter.is_null() {
        w(format_args!("  filter      none\n"))?;
    } else {
        w(format_args!("  filter      {}\n", Extent(f.filter)))?;
    }
    w(format_args!("  properties  {}\n", Extent(f.properties)))?;
    w(format_args!("  index       {}\n", Extent(f.index)))?;

    let p = table.properties();
    w(format_args!("properties:\n"))?;
    for (name, value) in [
        ("num_entries", p.num_entries),
        ("num_deletions", p.num_deletions),
        ("num_inline", p.num_inline),
        ("num_handles", p.num_handles),
        ("raw_key_bytes", p.raw_key_bytes),
        ("raw_value_bytes", p.raw_value_bytes),
        ("handle_value_bytes", p.handle_value_bytes),
        ("smallest_seq", p.smallest_seq),
        ("largest_seq", p.largest_seq),
        ("num_data_blocks", p.num_data_blocks),
    ] {
        w(format_args!("  {name:<20}{value}\n"))?;
    }
    match table.filter() {
        Some(filter) => w(format_args!(
            "filter: {} bytes of bits, {} probes\n",
            filter.bit_bytes(),
            filter.num_probes()
        ))?,
        None => w(format_args!("filter: none\n"))?,
    }

    let mut handles = Vec::new();
    let mut index = BlockIter::new(&**table.index_block());
    index
        .seek_to_first()
        .map_err(|e| table.index_corruption(e))?;
    w(format_args!("index:\n"))?;
    while index.valid() {
        let handle = table.data_handle_at(&index)?;
        w(format_args!(
            "  #{:<5} {} -> {}\n",
            handles.len(),
            Key(index.key()),
            Extent(handle)
        ))?;
        handles.push(handle);
        index.next().map_err(|e| table.index_corruption(e))?;
    }

    for (n, handle) in handles.into_iter().enumerate() {
        let stored = match table.block_type_byte(handle)? {
            0 => "plain".to_string(),
            1 => "lz4".to_string(),
            2 => "zstd".to_string(),
            t => format!("type {t}"),
        };
        w(format_args!(
            "data block #{n} {}, {stored}:\n",
            Extent(handle)
        ))?;
        let block = table.data_block(handle, false)?;
        let mut it = BlockIter::new(&*block);
        let corrupt =
            |e: crate::format::coding::DecodeError| e.into_corruption(table.path(), handle.offset);
        it.seek_to_first().map_err(corrupt)?;
        while it.valid() {
            w(format_args!(
                "  @{:<6} {}{}\n",
                it.entry_offset(),
                Key(it.key()),
                Value(it.key(), it.value())
            ))?;
            it.next().map_err(corrupt)?;
        }
    }
    Ok(())
}

/// Displays a block handle as `offset O, size S`.
struct Extent(BlockHandle);

impl fmt::Display for Extent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}, size {}", self.0.offset, self.0.size)
    }
}

/// Displays an internal key as `"user key" #seq kind`.
struct Key<'a>(&'a [u8]);

impl fmt::Display for Key<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = ParsedKey::parse(self.0);
        write!(f, "\"{}\" #{} ", p.user_key.escape_ascii(), p.seq)?;
        match p.entry_kind() {
            Some(EntryKind::Delete) => write!(f, "delete"),
            Some(EntryKind::Inline) => write!(f, "inline"),
            Some(EntryKind::Handle) => write!(f, "handle"),
            None if p.kind == LOOKUP_KIND => write!(f, "separator"),
            None => write!(f, "kind {}?", p.kind),
        }
    }
}

/// Displays an entry's value as its key's kind says, after a space (nothing for a tombstone).
struct Value<'a>(&'a [u8], &'a [u8]);

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = ParsedKey::parse(self.0);
        let value = match crate::key::split_expiry(p.kind, self.1) {
            Ok((Some(at), rest)) => {
                write!(f, " expires {at}")?;
                rest
            }
            Ok((None, rest)) => rest,
            Err(_) => return write!(f, " (too short for its expiry time)"),
        };
        match p.entry_kind() {
            Some(EntryKind::Inline) => {
                let shown = value.get(..VALUE_PREVIEW).unwrap_or(value);
                let more = if shown.len() < value.len() { "..." } else { "" };
                write!(
                    f,
                    " ({} bytes) \"{}\"{more}",
                    value.len(),
                    shown.escape_ascii()
                )
            }
            Some(EntryKind::Handle) => match ValueHandle::decode(value) {
                Ok(h) => write!(
                    f,
                    " -> file {} epoch {} offset {} len {}",
                    h.file, h.epoch, h.offset, h.len
                ),
                Err(e) => write!(f, " -> undecodable handle ({})", e.what),
            },
            Some(EntryKind::Delete) if value.is_empty() => Ok(()),
            _ => write!(f, " ({} bytes) \"{}\"", value.len(), value.escape_ascii()),
        }
    }
}

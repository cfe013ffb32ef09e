//! Writing a table: data blocks as entries arrive, then filter, properties, index and footer.

use std::cmp::Ordering;
use std::path::PathBuf;

use super::{TableOptions, TableSummary};
use crate::error::IoContext;
use crate::format::block::{BLOCK_TRAILER_LEN, BlockBuilder, BlockType, block_trailer};
use crate::format::bloom::BloomBuilder;
use crate::format::compression::{self, Compression};
use crate::format::handle::ValueHandle;
use crate::format::table::{BlockHandle, FOOTER_LEN, Footer, TableProperties};
use crate::fs::WritableFile;
use crate::key::{self, EntryKind, LOOKUP_KIND, MAX_SEQNO, ParsedKey, TRAILER_LEN};
use crate::{Error, Result};

/// The largest key plus value a table accepts (1 GiB), so that block offsets fit in `u32`.
const MAX_ENTRY_LEN: usize = 1 << 30;

/// The largest data block target size honoured (1 GiB), for the same reason.
const MAX_BLOCK_SIZE: usize = 1 << 30;

/// Writes one table to a new file.
///
/// Owns the file until [`finish`](Self::finish). Entries must arrive in strictly increasing
/// internal-key order. Dropping a builder without finishing leaves a partial file behind that
/// the caller must delete. Not thread-safe.
pub struct TableBuilder {
    file: Box<dyn WritableFile>,
    path: PathBuf,
    block_size: usize,
    data_block: BlockBuilder,
    /// One entry per data block: a key `>=` every key of the block and `<` every key of the
    /// next block, mapping to the block's handle. Every entry is a restart point.
    index_block: BlockBuilder,
    filter: Option<BloomBuilder>,
    properties: TableProperties,
    /// Bytes written so far: the offset of the next block.
    offset: u64,
    smallest: Vec<u8>,
    /// The last key of the last data block written (the table's last key once finished).
    last_block_key: Vec<u8>,
    /// The last data block written, whose index entry waits for the next block's first key
    /// so that a short separator can be chosen.
    pending_index: Option<BlockHandle>,
    /// Scratch buffers for index entries and meta blocks.
    index_key: Vec<u8>,
    scratch: Vec<u8>,
    /// How data blocks are compressed, and the buffer they are compressed into.
    compression: Compression,
    compressed: Vec<u8>,
}

impl std::fmt::Debug for TableBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableBuilder")
            .field("path", &self.path)
            .field("offset", &self.offset)
            .field("num_entries", &self.properties.num_entries)
            .finish_non_exhaustive()
    }
}

impl TableBuilder {
    /// A builder writing to `file` (named `path` in errors).
    ///
    /// REQUIRES: `file` is empty.
    pub fn new(file: Box<dyn WritableFile>, path: PathBuf, opts: &TableOptions) -> TableBuilder {
        debug_assert!(file.is_empty(), "a table must start at offset 0");
        TableBuilder {
            file,
            path,
            block_size: opts.block_size.clamp(1, MAX_BLOCK_SIZE),
            data_block: BlockBuilder::new(opts.restart_interval),
            index_block: BlockBuilder::new(1),
            filter: (opts.bloom_bits_per_key > 0)
                .then(|| BloomBuilder::new(opts.bloom_bits_per_key)),
            properties: TableProperties::default(),
            offset: 0,
            smallest: Vec::new(),
            last_block_key: Vec::new(),
            pending_index: None,
            index_key: Vec::new(),
            scratch: Vec::new(),
            compression: opts.compression,
            compressed: Vec::new(),
        }
    }

    /// Adds an entry: an internal key and its value (inline bytes, an encoded
    /// [`ValueHandle`], or empty for a tombstone, as the key's kind says).
    ///
    /// REQUIRES: `ikey` is greater than every key added before (internal-key order).
    ///
    /// Errors: [`Error::InvalidArgument`] for a key shorter than its trailer, an unknown
    /// kind, a tombstone with a value, a handle that does not decode, or an entry over
    /// 1 GiB; [`Error::Io`] if writing a full block fails.
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        if ikey.len() < TRAILER_LEN {
            return Err(Error::InvalidArgument(format!(
                "internal key of {} bytes is shorter than its trailer",
                ikey.len()
            )));
        }
        if ikey.len().saturating_add(value.len()) > MAX_ENTRY_LEN {
            return Err(Error::InvalidArgument(format!(
                "table entry of {} + {} bytes exceeds {MAX_ENTRY_LEN}",
                ikey.len(),
                value.len()
            )));
        }
        let parsed = ParsedKey::parse(ikey);
        let kind = parsed
            .entry_kind()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown entry kind {}", parsed.kind)))?;
        debug_assert!(
            self.properties.num_entries == 0 || compare_to_last(self, ikey) == Ordering::Greater,
            "table keys must strictly increase"
        );
        let (expires_at, payload) = key::split_expiry(parsed.kind, value).map_err(|_| {
            Error::InvalidArgument("an expiring entry too short for its expiry time".to_string())
        })?;
        let p = &mut self.properties;
        if let Some(at) = expires_at {
            p.earliest_expiry = Some(p.earliest_expiry.map_or(at, |e| e.min(at)));
        }
        match kind {
            EntryKind::Delete => {
                if !payload.is_empty() {
                    return Err(Error::InvalidArgument(
                        "a tombstone carries no value".to_string(),
                    ));
                }
                p.num_deletions += 1;
            }
            EntryKind::Inline => {
                p.num_inline += 1;
                p.raw_value_bytes += payload.len() as u64;
            }
            EntryKind::Handle => {
                let handle = ValueHandle::decode(payload)
                    .map_err(|e| Error::InvalidArgument(format!("bad value handle: {}", e.what)))?;
                p.num_handles += 1;
                p.handle_value_bytes += u64::from(handle.len);
            }
        }
        if p.num_entries == 0 {
            self.smallest = ikey.to_vec();
            p.smallest_seq = parsed.seq;
            p.largest_seq = parsed.seq;
        } else {
            p.smallest_seq = p.smallest_seq.min(parsed.seq);
            p.largest_seq = p.largest_seq.max(parsed.seq);
        }
        p.num_entries += 1;
        p.raw_key_bytes += parsed.user_key.len() as u64;

        if let Some(handle) = self.pending_index.take() {
            shortest_separator(&self.last_block_key, ikey, &mut self.index_key);
            self.add_index_entry(handle);
        }
        if let Some(filter) = &mut self.filter {
            filter.add_key(parsed.user_key);
        }
        self.data_block.add(ikey, value);
        if self.data_block.estimated_size() >= self.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Bytes the file would have if finished now, not counting filter, properties, index
    /// and footer.
    pub fn estimated_size(&self) -> u64 {
        self.offset + self.data_block.estimated_size() as u64
    }

    /// Entries added so far.
    pub fn num_entries(&self) -> u64 {
        self.properties.num_entries
    }

    /// Writes the last data block, the filter, properties and index blocks and the footer,
    /// then syncs the file.
    ///
    /// Errors: [`Error::InvalidArgument`] if no entry was added; [`Error::Io`] if a write or
    /// the sync fails (the file is then unusable).
    pub fn finish(mut self) -> Result<TableSummary> {
        if self.properties.num_entries == 0 {
            return Err(Error::InvalidArgument(
                "cannot finish a table with no entries".to_string(),
            ));
        }
        self.flush_data_block()?;
        if let Some(handle) = self.pending_index.take() {
            self.index_key.clear();
            self.index_key.extend_from_slice(&self.last_block_key);
            self.add_index_entry(handle);
        }
        let filter = match &self.filter {
            Some(f) => {
                self.scratch.clear();
                f.finish_into(&mut self.scratch);
                write_block(
                    self.file.as_mut(),
                    &self.path,
                    &mut self.offset,
                    &self.scratch,
                )?
            }
            None => BlockHandle::default(),
        };
        self.scratch.clear();
        self.properties.encode_to(&mut self.scratch);
        let properties = write_block(
            self.file.as_mut(),
            &self.path,
            &mut self.offset,
            &self.scratch,
        )?;
        let index_contents = self.index_block.finish();
        let index = write_block(
            self.file.as_mut(),
            &self.path,
            &mut self.offset,
            index_contents,
        )?;
        let footer = Footer::new(filter, properties, index).encode();
        self.file.append(&footer).ctx("append", &self.path)?;
        self.offset += FOOTER_LEN as u64;
        // IMPORTANT: the table must be durable before anything (the manifest) refers to it.
        self.file.sync_data().ctx("sync", &self.path)?;
        Ok(TableSummary {
            file_size: self.offset,
            smallest: self.smallest,
            largest: self.last_block_key,
            properties: self.properties,
        })
    }

    /// Writes the current data block, if it has entries, and holds its index entry back.
    fn flush_data_block(&mut self) -> Result<()> {
        if self.data_block.is_empty() {
            return Ok(());
        }
        self.last_block_key.clear();
        self.last_block_key
            .extend_from_slice(self.data_block.last_key());
        let contents = self.data_block.finish();
        let block_type = compression::compress(self.compression, contents, &mut self.compressed);
        let stored = match block_type {
            BlockType::Plain => contents,
            _ => &self.compressed,
        };
        let handle = write_typed_block(
            self.file.as_mut(),
            &self.path,
            &mut self.offset,
            stored,
            block_type,
        )?;
        self.data_block.reset();
        self.properties.num_data_blocks += 1;
        self.pending_index = Some(handle);
        Ok(())
    }

    /// Adds `self.index_key -> handle` to the index block.
    fn add_index_entry(&mut self, handle: BlockHandle) {
        self.scratch.clear();
        handle.encode_to(&mut self.scratch);
        self.index_block.add(&self.index_key, &self.scratch);
    }
}

/// How `ikey` compares to the last key added.
fn compare_to_last(b: &TableBuilder, ikey: &[u8]) -> Ordering {
    let last = if b.data_block.is_empty() {
        &b.last_block_key[..]
    } else {
        b.data_block.last_key()
    };
    key::compare_internal(ikey, last)
}

/// Appends `contents` and its trailer at `*offset`, advancing it; returns the block's handle.
fn write_block(
    file: &mut dyn WritableFile,
    path: &std::path::Path,
    offset: &mut u64,
    contents: &[u8],
) -> Result<BlockHandle> {
    write_typed_block(file, path, offset, contents, BlockType::Plain)
}

/// Like [`write_block`], for contents stored as `block_type` says.
fn write_typed_block(
    file: &mut dyn WritableFile,
    path: &std::path::Path,
    offset: &mut u64,
    contents: &[u8],
    block_type: BlockType,
) -> Result<BlockHandle> {
    let trailer = block_trailer(contents, block_type);
    file.append(contents).ctx("append", path)?;
    file.append(&trailer).ctx("append", path)?;
    let handle = BlockHandle::new(*offset, contents.len() as u64);
    *offset += (contents.len() + BLOCK_TRAILER_LEN) as u64;
    Ok(handle)
}

/// Writes into `out` a short internal key `s` with `last <= s < next`, to separate two data
/// blocks in the index.
///
/// If the user keys first differ at byte `i` and `last[i] + 1 < next[i]`, `s` is
/// `last[..i] ++ [last[i] + 1]` with the smallest trailer (`MAX_SEQNO`, `LOOKUP_KIND`);
/// otherwise `s` is `last` itself.
///
/// IMPORTANT: the separator's user key is never the user key of a stored entry (`+ 1 <`,
/// not `<=`). Otherwise `lookup_key(u, MAX_SEQNO)` could equal the separator, land in the
/// block before the one holding `u`, and `Table::get` would need a second block.
///
/// REQUIRES: `last < next` in internal-key order.
fn shortest_separator(last: &[u8], next: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let (lu, nu) = (key::user_key(last), key::user_key(next));
    let i = crate::format::block::common_prefix_len(lu, nu);
    if let (Some(&l), Some(&n)) = (lu.get(i), nu.get(i))
        && l < 0xff
        && l + 1 < n
    {
        key::append_internal_key(out, lu.get(..i).unwrap_or_default(), MAX_SEQNO, LOOKUP_KIND);
        // Insert the incremented byte between the prefix and the trailer.
        out.insert(i, l + 1);
        return;
    }
    out.extend_from_slice(last);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::internal_key;

    fn sep(last: &[u8], next: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        shortest_separator(last, next, &mut out);
        assert_ne!(key::compare_internal(&out, last), Ordering::Less);
        assert_eq!(key::compare_internal(&out, next), Ordering::Less);
        out
    }

    #[test]
    fn separator_shortens_distant_user_keys() {
        let last = internal_key(b"apple-pie", 5, 1);
        let next = internal_key(b"cherry", 9, 1);
        assert_eq!(
            sep(&last, &next),
            internal_key(b"b", MAX_SEQNO, LOOKUP_KIND)
        );
        let last = internal_key(b"user0010", 5, 1);
        let next = internal_key(b"user0030", 5, 1);
        assert_eq!(
            sep(&last, &next),
            internal_key(b"user002", MAX_SEQNO, LOOKUP_KIND)
        );
    }

    #[test]
    fn separator_keeps_last_key_when_it_cannot_shorten() {
        for (l, n) in [
            (&b"abc"[..], &b"abd"[..]), // adjacent bytes
            (b"ab", b"abc"),            // prefix
            (b"a\xff", b"b"),           // 0xff cannot be incremented
        ] {
            let last = internal_key(l, 5, 1);
            assert_eq!(sep(&last, &internal_key(n, 5, 1)), last);
        }
        // Same user key across the block boundary.
        let last = internal_key(b"k", 9, 1);
        assert_eq!(sep(&last, &internal_key(b"k", 8, 1)), last);
    }
}

//! Reading a table: open (footer, index, filter, properties), point lookups, block loading.

use bytes::Bytes;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::TableIter;
use crate::cache::BlockCache;
use crate::error::IoContext;
use crate::format::block::{BLOCK_TRAILER_LEN, Block, BlockIter, BlockType, check_block_trailer};
use crate::format::bloom::BloomFilter;
use crate::format::coding::DecodeError;
use crate::format::table::{BlockHandle, FOOTER_LEN, Footer, TableProperties};
use crate::fs::{BatchRead, ReadableFile};
use crate::key;
use crate::{Error, Result};

/// An open table: its file, and its index, filter and properties held in memory.
///
/// Immutable and thread-safe (`Send + Sync`); share it through `Arc`. Data blocks are read on
/// demand with positional reads, verified, and shared through the [`BlockCache`].
pub struct Table {
    number: u64,
    path: PathBuf,
    file: Arc<dyn ReadableFile>,
    file_size: u64,
    cache: Arc<BlockCache>,
    footer: Footer,
    index: Arc<Block>,
    filter: Option<BloomFilter>,
    properties: TableProperties,
    /// Where the data blocks end (the first meta block): every data block lies before it.
    data_end: u64,
}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Table>();
};

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("number", &self.number)
            .field("path", &self.path)
            .field("file_size", &self.file_size)
            .field("footer", &self.footer)
            .finish_non_exhaustive()
    }
}

impl Table {
    /// Opens the table `number` stored in `file` (named `path` in errors), of `file_size`
    /// bytes. Reads and verifies the footer, index, filter and properties blocks.
    ///
    /// REQUIRES: `number` identifies this file's bytes among every file sharing `cache`
    /// (it keys the cached blocks).
    ///
    /// Errors: [`Error::Corruption`] naming `path` and the offset of the damaged block (or
    /// footer); [`Error::Io`] if a read fails.
    pub fn open(
        number: u64,
        path: PathBuf,
        file: Arc<dyn ReadableFile>,
        file_size: u64,
        cache: Arc<BlockCache>,
    ) -> Result<Table> {
        let footer_at = file_size.checked_sub(FOOTER_LEN as u64).ok_or_else(|| {
            Error::corruption(
                &path,
                0,
                format!("file of {file_size} bytes is too short to be a table"),
            )
        })?;
        let raw = file.read_vec(footer_at, FOOTER_LEN).ctx("read", &path)?;
        let footer = Footer::decode(&raw).map_err(|e| e.into_corruption(&path, footer_at))?;
        let meta = [
            ("index", Some(footer.index)),
            ("properties", Some(footer.properties)),
            (
                "filter",
                (!footer.filter.is_null()).then_some(footer.filter),
            ),
        ];
        let mut data_end = footer_at;
        for (name, handle) in meta {
            let Some(h) = handle else { continue };
            if h.end().is_none_or(|end| end > footer_at) {
                return Err(Error::corruption(
                    &path,
                    footer_at,
                    format!(
                        "{name} block (offset {}, size {}) lies outside the table",
                        h.offset, h.size
                    ),
                ));
            }
            data_end = data_end.min(h.offset);
        }

        let contents = read_block(file.as_ref(), &path, footer.index)?;
        let index =
            Block::parse(contents).map_err(|e| e.into_corruption(&path, footer.index.offset))?;
        let contents = read_block(file.as_ref(), &path, footer.properties)?;
        let properties = TableProperties::decode(&contents)
            .map_err(|e| e.into_corruption(&path, footer.properties.offset))?;
        let filter = if footer.filter.is_null() {
            None
        } else {
            let contents = read_block(file.as_ref(), &path, footer.filter)?;
            Some(
                BloomFilter::decode(contents)
                    .map_err(|e| e.into_corruption(&path, footer.filter.offset))?,
            )
        };
        Ok(Table {
            number,
            path,
            file,
            file_size,
            cache,
            footer,
            index: Arc::new(index),
            filter,
            properties,
            data_end,
        })
    }

    /// The table's file number.
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The table's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The properties stored in the table.
    pub fn properties(&self) -> &TableProperties {
        &self.properties
    }

    /// The table's footer.
    pub fn footer(&self) -> &Footer {
        &self.footer
    }

    /// The filter, if the table has one.
    pub fn filter(&self) -> Option<&BloomFilter> {
        self.filter.as_ref()
    }

    /// False if no entry of `user_key` is in the table; true if one may be.
    pub fn may_contain(&self, user_key: &[u8]) -> bool {
        self.filter.as_ref().is_none_or(|f| f.may_contain(user_key))
    }

    /// The first entry whose internal key is `>= lookup`, if its user key is the lookup's.
    /// `lookup` is a [`key::lookup_key`], so this is the newest version of the key visible at
    /// the lookup's sequence number (which may be a tombstone).
    ///
    /// Costs one filter probe, one index seek and one data block seek.
    pub fn get(&self, lookup: &[u8]) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        self.get_with(lookup, true)
    }

    /// As [`Table::get`]; the data block read enters the block cache if `fill_cache`.
    pub fn get_with(&self, lookup: &[u8], fill_cache: bool) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        self.find(lookup, fill_cache, |_, it| it.value().to_vec())
    }

    /// As [`Table::get_with`], the value shared with the data block (see [`Block::pin`])
    /// instead of copied.
    pub fn get_pinned(&self, lookup: &[u8], fill_cache: bool) -> Result<Option<(Vec<u8>, Bytes)>> {
        self.find(lookup, fill_cache, |block, it| block.pin(it.value()))
    }

    /// The entry [`Table::get`] describes: its internal key, and its value as `value` makes
    /// it from the data block and the block iterator standing at the entry.
    fn find<V>(
        &self,
        lookup: &[u8],
        fill_cache: bool,
        value: impl FnOnce(&Arc<Block>, &BlockIter<&Block>) -> V,
    ) -> Result<Option<(Vec<u8>, V)>> {
        let Some(handle) = self.locate(lookup)? else {
            return Ok(None);
        };
        let block = self.data_block(handle, fill_cache)?;
        self.find_in_block(&block, handle, lookup, value)
    }

    /// The data block that holds the entry [`Table::get`] looks for, if the filter and the
    /// index allow one: the first half of a point lookup, which reads nothing.
    pub(crate) fn locate(&self, lookup: &[u8]) -> Result<Option<BlockHandle>> {
        if !self.may_contain(key::user_key(lookup)) {
            return Ok(None);
        }
        let mut index = BlockIter::new(&*self.index);
        index.seek(lookup).map_err(|e| self.index_corruption(e))?;
        if !index.valid() {
            return Ok(None);
        }
        self.data_handle_at(&index).map(Some)
    }

    /// The second half of a point lookup: the entry [`Table::get`] describes, in `block`
    /// (the data block at `handle` that [`Table::locate`] named), its value copied out.
    pub(crate) fn entry_in_block(
        &self,
        block: &Arc<Block>,
        handle: BlockHandle,
        lookup: &[u8],
    ) -> Result<Option<(Vec<u8>, Bytes)>> {
        self.find_in_block(block, handle, lookup, |_, it| {
            Bytes::copy_from_slice(it.value())
        })
    }

    fn find_in_block<V>(
        &self,
        block: &Arc<Block>,
        handle: BlockHandle,
        lookup: &[u8],
        value: impl FnOnce(&Arc<Block>, &BlockIter<&Block>) -> V,
    ) -> Result<Option<(Vec<u8>, V)>> {
        let mut it = BlockIter::new(&**block);
        it.seek(lookup)
            .map_err(|e| e.into_corruption(&self.path, handle.offset))?;
        if it.valid() && key::user_key(it.key()) == key::user_key(lookup) {
            Ok(Some((it.key().to_vec(), value(block, &it))))
        } else {
            Ok(None)
        }
    }

    /// The data block at `handle` if the block cache holds it (counted as a hit).
    pub(crate) fn cached_block(&self, handle: BlockHandle) -> Option<Arc<Block>> {
        self.cache.cached(self.number, handle.offset)
    }

    /// A read of the data block at `handle` with its trailer, to be submitted with others
    /// (`fs::read_batch`) and then passed to [`Table::block_from_read`].
    pub(crate) fn block_read(&self, handle: BlockHandle) -> Result<BatchRead> {
        let len = block_len(&self.path, handle)?;
        Ok(BatchRead::new(Arc::clone(&self.file), handle.offset, len))
    }

    /// The data block a [`Table::block_read`] of `handle` read, verified and parsed (counted
    /// as a cache miss); it enters the block cache if `fill_cache`.
    pub(crate) fn block_from_read(
        &self,
        handle: BlockHandle,
        read: BatchRead,
        fill_cache: bool,
    ) -> Result<Arc<Block>> {
        read.result.ctx("read", &self.path)?;
        let contents = check_block(&self.path, handle, read.buf)?;
        let block =
            Block::parse(contents).map_err(|e| e.into_corruption(&self.path, handle.offset))?;
        Ok(self
            .cache
            .loaded(self.number, handle.offset, block, fill_cache))
    }

    /// An iterator over the table's entries. With `fill_cache` false, the data blocks it
    /// reads are taken from the cache if present but not added to it.
    pub fn iter(self: &Arc<Table>, fill_cache: bool) -> TableIter {
        TableIter::new(Arc::clone(self), fill_cache)
    }

    /// The index block.
    pub(crate) fn index_block(&self) -> &Arc<Block> {
        &self.index
    }

    /// Decodes and bounds-checks the data block handle at the index cursor.
    /// REQUIRES: `index.valid()`.
    pub(crate) fn data_handle_at<B: std::ops::Deref<Target = Block>>(
        &self,
        index: &BlockIter<B>,
    ) -> Result<BlockHandle> {
        let entry_at = self.footer.index.offset + index.entry_offset() as u64;
        let handle = BlockHandle::decode(index.value())
            .map_err(|e| Error::corruption(&self.path, entry_at, e.what))?;
        if handle.end().is_none_or(|end| end > self.data_end) {
            return Err(Error::corruption(
                &self.path,
                entry_at,
                format!(
                    "index entry points at a data block (offset {}, size {}) outside the data area",
                    handle.offset, handle.size
                ),
            ));
        }
        Ok(handle)
    }

    /// The data block at `handle`, through the cache.
    pub(crate) fn data_block(&self, handle: BlockHandle, fill_cache: bool) -> Result<Arc<Block>> {
        self.cache
            .get_or_load(self.number, handle.offset, fill_cache, || {
                let contents = read_block(self.file.as_ref(), &self.path, handle)?;
                Block::parse(contents).map_err(|e| e.into_corruption(&self.path, handle.offset))
            })
    }

    /// The type byte of the block at `handle`, unchecked (`dump` names it; reading the
    /// block checks it).
    pub(crate) fn block_type_byte(&self, handle: BlockHandle) -> Result<u8> {
        let mut b = [0u8; 1];
        self.file
            .read_exact_at(&mut b, handle.offset.saturating_add(handle.size))
            .ctx("read", &self.path)?;
        Ok(b[0])
    }

    /// A decode error in the index block as a corruption error.
    pub(crate) fn index_corruption(&self, e: DecodeError) -> Error {
        e.into_corruption(&self.path, self.footer.index.offset)
    }
}

/// Reads the block at `handle` with its trailer, verifies the trailer, and returns the
/// contents.
fn read_block(file: &dyn ReadableFile, path: &Path, handle: BlockHandle) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; block_len(path, handle)?];
    file.read_exact_at(&mut buf, handle.offset)
        .ctx("read", path)?;
    check_block(path, handle, buf)
}

/// The bytes of the block at `handle` with its trailer.
fn block_len(path: &Path, handle: BlockHandle) -> Result<usize> {
    usize::try_from(handle.size)
        .ok()
        .and_then(|n| n.checked_add(BLOCK_TRAILER_LEN))
        .ok_or_else(|| {
            Error::corruption(
                path,
                handle.offset,
                format!("block size {} too large", handle.size),
            )
        })
}

/// Verifies the trailer of the block at `handle`, read with it into `buf`, and returns the
/// contents.
fn check_block(path: &Path, handle: BlockHandle, mut buf: Vec<u8>) -> Result<Vec<u8>> {
    let (contents_len, block_type) =
        check_block_trailer(&buf).map_err(|e| e.into_corruption(path, handle.offset))?;
    buf.truncate(contents_len);
    if block_type == BlockType::Plain {
        return Ok(buf);
    }
    crate::format::compression::decompress(block_type, &buf)
        .map_err(|e| e.into_corruption(path, handle.offset))
}

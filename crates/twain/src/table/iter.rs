//! The table iterator: a two-level cursor, index block then data blocks, in both directions.

use std::sync::Arc;

use super::Table;
use crate::Result;
use crate::format::block::{Block, BlockIter};
use crate::format::coding::DecodeError;
use crate::format::table::BlockHandle;
use crate::iter::InternalIterator;

/// A cursor over every entry of a [`Table`], in internal-key order.
///
/// Owns an `Arc` of its table, so it may outlive the caller's reference. Holds the current
/// data block (an `Arc` from the block cache) and reuses one key buffer across blocks. Not
/// thread-safe; `Send`. After an error it is invalid until repositioned.
pub struct TableIter {
    table: Arc<Table>,
    fill_cache: bool,
    index: BlockIter<Arc<Block>>,
    /// The cursor in the current data block; `None` before the first block is loaded.
    data: Option<BlockIter<Arc<Block>>>,
    /// Where the current data block is (meaningful when `data` is `Some`).
    data_handle: BlockHandle,
}

impl std::fmt::Debug for TableIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableIter")
            .field("table", &self.table.number())
            .field("valid", &self.valid())
            .field("data_block", &self.data_handle)
            .finish_non_exhaustive()
    }
}

impl TableIter {
    /// An unpositioned iterator over `table`.
    pub(crate) fn new(table: Arc<Table>, fill_cache: bool) -> TableIter {
        let index = BlockIter::new(Arc::clone(table.index_block()));
        TableIter {
            table,
            fill_cache,
            index,
            data: None,
            data_handle: BlockHandle::default(),
        }
    }

    /// The table being iterated.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// Runs a positioning step and leaves the cursor invalid if it failed.
    fn guard(&mut self, step: impl FnOnce(&mut TableIter) -> Result<()>) -> Result<()> {
        let r = step(self);
        if r.is_err() {
            self.index.invalidate();
            if let Some(d) = &mut self.data {
                d.invalidate();
            }
        }
        r
    }

    /// Runs `op` on the data cursor, turning a decode error into a corruption error of the
    /// current data block.
    fn on_data(
        &mut self,
        op: impl FnOnce(&mut BlockIter<Arc<Block>>) -> Result<(), DecodeError>,
    ) -> Result<()> {
        let Some(data) = &mut self.data else {
            return Ok(());
        };
        op(data).map_err(|e| e.into_corruption(self.table.path(), self.data_handle.offset))
    }

    /// Runs `op` on the index cursor, turning a decode error into a corruption error of the
    /// index block.
    fn on_index(
        &mut self,
        op: impl FnOnce(&mut BlockIter<Arc<Block>>) -> Result<(), DecodeError>,
    ) -> Result<()> {
        op(&mut self.index).map_err(|e| self.table.index_corruption(e))
    }

    fn data_valid(&self) -> bool {
        self.data.as_ref().is_some_and(|d| d.valid())
    }

    fn invalidate_data(&mut self) {
        if let Some(d) = &mut self.data {
            d.invalidate();
        }
    }

    /// Makes the data cursor read the block the index cursor is at (unpositioned).
    /// REQUIRES: `self.index.valid()`.
    fn load_data_block(&mut self) -> Result<()> {
        let handle = self.table.data_handle_at(&self.index)?;
        if self.data.is_some() && self.data_handle == handle {
            return Ok(());
        }
        let block = self.table.data_block(handle, self.fill_cache)?;
        match &mut self.data {
            Some(d) => d.set_block(block),
            None => self.data = Some(BlockIter::new(block)),
        }
        self.data_handle = handle;
        Ok(())
    }

    /// Moves forward over data blocks until the data cursor is at an entry or the index is
    /// exhausted.
    fn skip_empty_forward(&mut self) -> Result<()> {
        while !self.data_valid() && self.index.valid() {
            self.on_index(|i| i.next())?;
            if !self.index.valid() {
                self.invalidate_data();
                return Ok(());
            }
            self.load_data_block()?;
            self.on_data(|d| d.seek_to_first())?;
        }
        Ok(())
    }

    /// Moves backward over data blocks until the data cursor is at an entry or the index is
    /// exhausted.
    fn skip_empty_backward(&mut self) -> Result<()> {
        while !self.data_valid() && self.index.valid() {
            self.on_index(|i| i.prev())?;
            if !self.index.valid() {
                self.invalidate_data();
                return Ok(());
            }
            self.load_data_block()?;
            self.on_data(|d| d.seek_to_last())?;
        }
        Ok(())
    }

    /// Loads the block at the index cursor and runs `op` in it, or invalidates the data
    /// cursor if the index cursor is not valid.
    fn enter_block(
        &mut self,
        op: impl FnOnce(&mut BlockIter<Arc<Block>>) -> Result<(), DecodeError>,
    ) -> Result<bool> {
        if !self.index.valid() {
            self.invalidate_data();
            return Ok(false);
        }
        self.load_data_block()?;
        self.on_data(op)?;
        Ok(true)
    }
}

impl InternalIterator for TableIter {
    fn valid(&self) -> bool {
        self.data_valid()
    }

    fn seek_to_first(&mut self) -> Result<()> {
        self.guard(|it| {
            it.on_index(|i| i.seek_to_first())?;
            if it.enter_block(|d| d.seek_to_first())? {
                it.skip_empty_forward()?;
            }
            Ok(())
        })
    }

    fn seek_to_last(&mut self) -> Result<()> {
        self.guard(|it| {
            it.on_index(|i| i.seek_to_last())?;
            if it.enter_block(|d| d.seek_to_last())? {
                it.skip_empty_backward()?;
            }
            Ok(())
        })
    }

    fn seek(&mut self, target: &[u8]) -> Result<()> {
        self.guard(|it| {
            // The first block whose index key is >= target holds the answer, or the answer
            // is the first entry of a later block.
            it.on_index(|i| i.seek(target))?;
            if it.enter_block(|d| d.seek(target))? {
                it.skip_empty_forward()?;
            }
            Ok(())
        })
    }

    fn seek_for_prev(&mut self, target: &[u8]) -> Result<()> {
        self.guard(|it| {
            // Every key <= target is in the first block whose index key is >= target or
            // before it; past the last index key, the answer is the table's last entry.
            it.on_index(|i| i.seek(target))?;
            if !it.index.valid() {
                it.on_index(|i| i.seek_to_last())?;
            }
            if it.enter_block(|d| d.seek_for_prev(target))? {
                it.skip_empty_backward()?;
            }
            Ok(())
        })
    }

    fn next(&mut self) -> Result<()> {
        self.guard(|it| {
            it.on_data(|d| d.next())?;
            it.skip_empty_forward()
        })
    }

    fn prev(&mut self) -> Result<()> {
        self.guard(|it| {
            it.on_data(|d| d.prev())?;
            it.skip_empty_backward()
        })
    }

    fn key(&self) -> &[u8] {
        self.data.as_ref().map_or(&[], |d| d.key())
    }

    fn value(&self) -> &[u8] {
        self.data.as_ref().map_or(&[], |d| d.value())
    }

    fn value_bytes(&self) -> bytes::Bytes {
        self.data
            .as_ref()
            .map_or_else(bytes::Bytes::new, |d| d.block_arc().pin(d.value()))
    }
}

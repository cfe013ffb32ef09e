//! Blocks: the sorted, prefix-compressed key-value runs that SSTable data and index blocks
//! are made of, and the checksummed trailer that follows every block of a table on disk.
//! Specified in `docs/format/sstable.md`.
//!
//! ```text
//! block    := contents | block_type: u8 | masked_crc32c: u32 LE     (the trailer covers contents ++ type)
//! contents := entry* | restart_offset: u32 LE * n | n: u32 LE       (keyed blocks: data and index)
//! entry    := shared: varint | unshared: varint | value_len: varint | key_suffix | value
//! ```
//!
//! Each key is stored as the `shared` bytes it has in common with the previous key followed by
//! its `unshared` suffix. Every `restart_interval`-th entry is a *restart point*: it stores its
//! whole key (`shared = 0`) and its offset is listed in the restart array, so a seek can binary
//! search the restart points and then scan at most one interval. Keys are internal keys and
//! strictly increase in [`compare_internal`] order.

use bytes::Bytes;
use std::cmp::Ordering;
use std::ops::Deref;
use std::sync::Arc;

use super::coding::{DecodeError, Decoder, mask_crc, put_varint};
use crate::key::compare_internal;

/// Bytes that follow the contents of every block on disk: the type byte and the checksum.
pub const BLOCK_TRAILER_LEN: usize = 5;

/// Default number of entries between restart points of a data block.
pub const DEFAULT_RESTART_INTERVAL: usize = 16;

/// Bytes of one restart offset, and of the restart count.
const U32_LEN: usize = 4;

/// How a block's contents are stored.
///
/// DO NOT CHANGE THESE VALUES: they are embedded in every block of every table on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BlockType {
    /// The contents are stored as they are.
    Plain = 0,
    /// LZ4-compressed contents (`format::compression`).
    Lz4 = 1,
    /// zstd-compressed contents (`format::compression`).
    Zstd = 2,
}

impl TryFrom<u8> for BlockType {
    type Error = DecodeError;

    /// Decodes a type byte; the error's offset is 0 (callers rebase it to the byte's position).
    fn try_from(b: u8) -> Result<BlockType, DecodeError> {
        match b {
            0 => Ok(BlockType::Plain),
            1 => Ok(BlockType::Lz4),
            2 => Ok(BlockType::Zstd),
            other => Err(DecodeError::new(0, format!("unknown block type {other}"))),
        }
    }
}

/// The masked CRC-32C stored in a block trailer: it covers `contents` followed by the type byte.
pub fn block_checksum(contents: &[u8], block_type: BlockType) -> u32 {
    let crc = crc32c::crc32c(contents);
    mask_crc(crc32c::crc32c_append(crc, &[block_type as u8]))
}

/// The trailer to write after `contents`.
pub fn block_trailer(contents: &[u8], block_type: BlockType) -> [u8; BLOCK_TRAILER_LEN] {
    let crc = block_checksum(contents, block_type).to_le_bytes();
    let [c0, c1, c2, c3] = crc;
    [block_type as u8, c0, c1, c2, c3]
}

/// Verifies a block read from disk, `raw` being its contents followed by its trailer.
/// Returns the length of the contents and the block's type.
///
/// The checksum is verified before the type byte is trusted. Error offsets are relative to
/// the start of `raw`: a checksum mismatch is reported at 0 (the whole block is suspect), an
/// unknown type at the type byte.
pub fn check_block_trailer(raw: &[u8]) -> Result<(usize, BlockType), DecodeError> {
    let contents_len = raw
        .len()
        .checked_sub(BLOCK_TRAILER_LEN)
        .ok_or_else(|| DecodeError::new(0, "block shorter than its trailer"))?;
    let (contents, trailer) = raw.split_at(contents_len);
    let mut d = Decoder::new(trailer);
    let type_byte = d.u8("block type")?;
    let stored = d.u32("block checksum")?;
    let actual = mask_crc(crc32c::crc32c_append(
        crc32c::crc32c(contents),
        &[type_byte],
    ));
    if stored != actual {
        return Err(DecodeError::new(
            0,
            format!("block checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"),
        ));
    }
    let block_type = BlockType::try_from(type_byte)
        .map_err(|e| DecodeError::new(contents_len + e.offset, e.what))?;
    Ok((contents_len, block_type))
}

/// Builds the contents of one keyed block.
///
/// Owns its buffers and reuses them across blocks ([`reset`](Self::reset)). Not thread-safe.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    restart_interval: usize,
    /// Entries since the last restart point.
    counter: usize,
    last_key: Vec<u8>,
    num_entries: usize,
    finished: bool,
}

impl BlockBuilder {
    /// A builder that starts a restart point every `restart_interval` entries (at least 1).
    pub fn new(restart_interval: usize) -> BlockBuilder {
        BlockBuilder {
            buf: Vec::new(),
            restarts: Vec::new(),
            restart_interval: restart_interval.max(1),
            counter: 0,
            last_key: Vec::new(),
            num_entries: 0,
            finished: false,
        }
    }

    /// Appends an entry.
    ///
    /// REQUIRES: `key` is greater than every key added since the last reset (internal-key
    /// order); [`finish`](Self::finish) has not been called; the block stays below 4 GiB.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        debug_assert!(!self.finished, "add after finish");
        debug_assert!(
            self.num_entries == 0 || compare_internal(&self.last_key, key) == Ordering::Less,
            "block keys must strictly increase"
        );
        let shared = if self.num_entries == 0 || self.counter >= self.restart_interval {
            debug_assert!(u32::try_from(self.buf.len()).is_ok());
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
            0
        } else {
            common_prefix_len(&self.last_key, key)
        };
        let suffix = key.get(shared..).unwrap_or_default();
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, suffix.len() as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(suffix);
        self.buf.extend_from_slice(value);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(suffix);
        self.counter += 1;
        self.num_entries += 1;
    }

    /// The size the contents would have if the block were finished now.
    pub fn estimated_size(&self) -> usize {
        self.buf.len() + (self.restarts.len() + 1) * U32_LEN
    }

    /// Entries added since the last reset.
    pub fn num_entries(&self) -> usize {
        self.num_entries
    }

    /// Whether no entry was added since the last reset.
    pub fn is_empty(&self) -> bool {
        self.num_entries == 0
    }

    /// The last key added (empty if none).
    pub fn last_key(&self) -> &[u8] {
        &self.last_key
    }

    /// Appends the restart array and returns the finished contents (without trailer).
    /// An empty block is just a zero restart count.
    ///
    /// REQUIRES: not already finished since the last reset.
    pub fn finish(&mut self) -> &[u8] {
        debug_assert!(!self.finished, "finish called twice");
        for r in &self.restarts {
            self.buf.extend_from_slice(&r.to_le_bytes());
        }
        debug_assert!(u32::try_from(self.restarts.len()).is_ok());
        self.buf
            .extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        self.finished = true;
        &self.buf
    }

    /// Empties the builder for the next block, keeping its buffers.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.restarts.clear();
        self.counter = 0;
        self.last_key.clear();
        self.num_entries = 0;
        self.finished = false;
    }
}

/// The length of the longest common prefix of `a` and `b`.
pub fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The decoded contents of one keyed block, with its restart array validated.
///
/// Owns its bytes; immutable and thread-safe, shared through `Arc` by the block cache and
/// iterators. Parsing checks the restart array, so iteration never indexes outside the block;
/// entries are decoded (and checked) lazily by [`BlockIter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    data: Vec<u8>,
    /// Where the entries end and the restart array begins.
    restarts_offset: usize,
    num_restarts: usize,
}

/// A shared block as the owner of [`Bytes`] (see [`Block::pin`]).
struct SharedBlock(Arc<Block>);

impl AsRef<[u8]> for SharedBlock {
    fn as_ref(&self) -> &[u8] {
        &self.0.data
    }
}

impl Block {
    /// Parses block contents (trailer already removed and verified).
    ///
    /// Checks: the restart count fits; a non-empty block's first restart is 0; restart
    /// offsets strictly increase and point inside the entry area; an empty entry area has
    /// no restart points. Error offsets are relative to the start of the contents.
    pub fn parse(data: Vec<u8>) -> Result<Block, DecodeError> {
        let count_at = data
            .len()
            .checked_sub(U32_LEN)
            .ok_or_else(|| DecodeError::new(0, "block too short for its restart count"))?;
        let num_restarts = read_u32(&data, count_at)
            .ok_or_else(|| DecodeError::new(count_at, "truncated restart count"))?
            as usize;
        let restarts_offset = num_restarts
            .checked_mul(U32_LEN)
            .and_then(|len| count_at.checked_sub(len))
            .ok_or_else(|| {
                DecodeError::new(
                    count_at,
                    format!(
                        "restart count {num_restarts} does not fit in a block of {} bytes",
                        data.len()
                    ),
                )
            })?;
        if num_restarts == 0 && restarts_offset != 0 {
            return Err(DecodeError::new(
                count_at,
                "block has entries but no restart points",
            ));
        }
        let mut prev: Option<usize> = None;
        for i in 0..num_restarts {
            let at = restarts_offset + i * U32_LEN;
            let r = read_u32(&data, at)
                .ok_or_else(|| DecodeError::new(at, "truncated restart array"))?
                as usize;
            let ok = match prev {
                None => r == 0,
                Some(p) => r > p,
            } && r < restarts_offset;
            if !ok {
                return Err(DecodeError::new(
                    at,
                    format!(
                        "restart point {i} has bad offset {r} (entries end at {restarts_offset})"
                    ),
                ));
            }
            prev = Some(r);
        }
        Ok(Block {
            data,
            restarts_offset,
            num_restarts,
        })
    }

    /// The size of the contents in bytes (the cache weight of the block).
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// The raw contents.
    pub fn contents(&self) -> &[u8] {
        &self.data
    }

    /// `part`, a slice of this block's contents (such as a [`BlockIter::value`]), as
    /// [`Bytes`] that share the block instead of copying it: the block stays alive, in the
    /// cache or not, as long as the bytes do. A slice from anywhere else is copied.
    pub fn pin(self: &Arc<Block>, part: &[u8]) -> Bytes {
        let start = (part.as_ptr() as usize).wrapping_sub(self.data.as_ptr() as usize);
        match start.checked_add(part.len()) {
            Some(end) if !part.is_empty() && end <= self.data.len() => {
                Bytes::from_owner(SharedBlock(Arc::clone(self))).slice(start..end)
            }
            _ => Bytes::copy_from_slice(part),
        }
    }

    /// The number of restart points (0 for an empty block).
    pub fn num_restarts(&self) -> usize {
        self.num_restarts
    }

    /// Whether the block holds no entries.
    pub fn is_empty(&self) -> bool {
        self.num_restarts == 0
    }

    /// The offset of restart point `i`. REQUIRES: `i < num_restarts` (checked at parse).
    fn restart_point(&self, i: usize) -> usize {
        read_u32(&self.data, self.restarts_offset + i * U32_LEN)
            .map_or(self.restarts_offset, |r| r as usize)
    }

    /// Decodes the header of the entry at `offset`, checking that the entry lies inside the
    /// entry area.
    fn entry_at(&self, offset: usize) -> Result<EntryHeader, DecodeError> {
        let limit = self.restarts_offset;
        // Fast path: the three lengths are single-byte varints, as they are for most entries.
        let (shared, unshared, value_len, key_start) = match self.data.get(offset..offset + 3) {
            Some(&[s, u, v]) if (s | u | v) < 0x80 => {
                (s as usize, u as usize, v as usize, offset + 3)
            }
            _ => {
                let area = self.data.get(offset..limit).unwrap_or_default();
                let mut d = Decoder::new(area);
                let rebase = |e: DecodeError| DecodeError::new(offset + e.offset, e.what);
                let shared = d
                    .varint_len(usize::MAX, "shared key length")
                    .map_err(rebase)?;
                let unshared = d
                    .varint_len(usize::MAX, "unshared key length")
                    .map_err(rebase)?;
                let value_len = d.varint_len(usize::MAX, "value length").map_err(rebase)?;
                (shared, unshared, value_len, offset + d.pos())
            }
        };
        let end = key_start
            .checked_add(unshared)
            .and_then(|e| e.checked_add(value_len))
            .filter(|&e| e <= limit)
            .ok_or_else(|| DecodeError::new(offset, "block entry runs past the entry area"))?;
        Ok(EntryHeader {
            shared,
            key_start,
            value_start: key_start + unshared,
            end,
        })
    }

    /// The whole key stored at restart point `i`.
    fn restart_key(&self, i: usize) -> Result<&[u8], DecodeError> {
        let offset = self.restart_point(i);
        let e = self.entry_at(offset)?;
        if e.shared != 0 {
            return Err(DecodeError::new(
                offset,
                "restart entry shares a key prefix",
            ));
        }
        Ok(self
            .data
            .get(e.key_start..e.value_start)
            .unwrap_or_default())
    }
}

/// Reads a little-endian u32 at `at`, if it is inside `data`.
fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..at.checked_add(U32_LEN)?)?;
    let mut a = [0u8; U32_LEN];
    a.copy_from_slice(bytes);
    Some(u32::from_le_bytes(a))
}

/// The decoded header of an entry: where its parts are in the block.
#[derive(Debug, Clone, Copy)]
struct EntryHeader {
    shared: usize,
    key_start: usize,
    value_start: usize,
    end: usize,
}

/// A bidirectional cursor over the entries of a [`Block`].
///
/// `B` is how the block is held: `&Block` for a short lookup, `Arc<Block>` for an iterator
/// that outlives the borrow. Reuses one key buffer for every position, so moving allocates
/// nothing once the buffer has grown. Not thread-safe. Any decode error leaves it invalid.
#[derive(Debug)]
pub struct BlockIter<B> {
    block: B,
    /// The current key, rebuilt from the shared prefix and suffix of each entry.
    key: Vec<u8>,
    /// Offset of the current entry.
    current: usize,
    /// Offset just past the current entry (where the next one starts).
    next: usize,
    /// The restart point at or before `current`.
    restart_index: usize,
    value_start: usize,
    value_end: usize,
    valid: bool,
}

impl BlockIter<Arc<Block>> {
    /// The shared block the cursor walks (to [`pin`](Block::pin) its values).
    pub fn block_arc(&self) -> &Arc<Block> {
        &self.block
    }
}

impl<B: Deref<Target = Block>> BlockIter<B> {
    /// An unpositioned cursor over `block`.
    pub fn new(block: B) -> BlockIter<B> {
        BlockIter {
            block,
            key: Vec::new(),
            current: 0,
            next: 0,
            restart_index: 0,
            value_start: 0,
            value_end: 0,
            valid: false,
        }
    }

    /// Switches to another block, keeping the key buffer; the cursor is unpositioned.
    pub fn set_block(&mut self, block: B) {
        self.block = block;
        self.key.clear();
        self.valid = false;
    }

    /// Makes the cursor invalid (unpositioned).
    pub fn invalidate(&mut self) {
        self.valid = false;
    }

    /// The block this cursor reads.
    pub fn block(&self) -> &Block {
        &self.block
    }

    /// The restart interval holding the current entry: the hint for a later
    /// [`seek_near`](Self::seek_near).
    pub fn restart_index(&self) -> usize {
        self.restart_index
    }

    /// Whether the cursor is at an entry.
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// The current key (empty if not valid).
    pub fn key(&self) -> &[u8] {
        if self.valid { &self.key } else { &[] }
    }

    /// The current value (empty if not valid).
    pub fn value(&self) -> &[u8] {
        if !self.valid {
            return &[];
        }
        self.block
            .data
            .get(self.value_start..self.value_end)
            .unwrap_or_default()
    }

    /// The offset of the current entry in the block (for error reports and dumps).
    pub fn entry_offset(&self) -> usize {
        self.current
    }

    /// Positions at the first entry.
    pub fn seek_to_first(&mut self) -> Result<(), DecodeError> {
        if self.block.is_empty() {
            self.valid = false;
            return Ok(());
        }
        self.start_at_restart(0);
        self.parse_next().map(|_| ())
    }

    /// Positions at the last entry.
    pub fn seek_to_last(&mut self) -> Result<(), DecodeError> {
        if self.block.is_empty() {
            self.valid = false;
            return Ok(());
        }
        self.start_at_restart(self.block.num_restarts - 1);
        while self.parse_next()? && self.next < self.block.restarts_offset {}
        Ok(())
    }

    /// Positions at the first entry whose key is `>= target`, or invalid if there is none.
    pub fn seek(&mut self, target: &[u8]) -> Result<(), DecodeError> {
        self.seek_near(target, None)
    }

    /// Like [`seek`](Self::seek), for a target at or after that of an earlier seek in the
    /// same block, which ended in restart interval `hint` (see
    /// [`restart_index`](Self::restart_index)). Gallops forward from the hint, so that
    /// ascending targets — a scan's lookups in one sorted index — probe a few nearby restart
    /// points instead of a whole binary search. A target before the hint costs one probe
    /// more than `seek`.
    pub fn seek_near(&mut self, target: &[u8], hint: Option<usize>) -> Result<(), DecodeError> {
        let n = self.block.num_restarts;
        if n == 0 {
            self.valid = false;
            return Ok(());
        }
        // Find the last restart point whose key is < target (or 0); the answer is in its
        // interval or is the first entry of the next one. It lies in [lo, hi].
        let (mut lo, mut hi) = (0, n - 1);
        if let Some(h) = hint.filter(|&h| h < n) {
            if self.restart_key_less(h, target)? {
                lo = h;
                let mut step = 1;
                while let Some(probe) = h.checked_add(step).filter(|&p| p < n) {
                    if !self.restart_key_less(probe, target)? {
                        hi = probe - 1;
                        break;
                    }
                    lo = probe;
                    step *= 2;
                }
            } else {
                hi = h.saturating_sub(1);
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.restart_key_less(mid, target)? {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.start_at_restart(lo);
        while self.parse_next()? {
            if compare_internal(&self.key, target) != Ordering::Less {
                break;
            }
        }
        Ok(())
    }

    /// Positions at the last entry whose key is `<= target`, or invalid if there is none.
    pub fn seek_for_prev(&mut self, target: &[u8]) -> Result<(), DecodeError> {
        self.seek(target)?;
        if !self.valid {
            self.seek_to_last()
        } else if compare_internal(&self.key, target) == Ordering::Greater {
            self.prev()
        } else {
            Ok(())
        }
    }

    /// Moves to the next entry; invalid after the last. REQUIRES: `valid()`.
    #[expect(
        clippy::should_implement_trait,
        reason = "a fallible cursor step, named like `InternalIterator::next`"
    )]
    pub fn next(&mut self) -> Result<(), DecodeError> {
        if !self.valid {
            return Ok(());
        }
        self.parse_next().map(|_| ())
    }

    /// Moves to the previous entry by re-scanning from the restart point before it; invalid
    /// before the first. REQUIRES: `valid()`.
    pub fn prev(&mut self) -> Result<(), DecodeError> {
        if !self.valid {
            return Ok(());
        }
        let original = self.current;
        let mut ri = self.restart_index;
        while self.block.restart_point(ri) >= original {
            if ri == 0 {
                self.valid = false;
                return Ok(());
            }
            ri -= 1;
        }
        self.start_at_restart(ri);
        loop {
            if !self.parse_next()? {
                return Err(self.fail(original, "entry not reachable from its restart point"));
            }
            if self.next >= original {
                break;
            }
        }
        if self.next != original {
            return Err(self.fail(original, "restart point is not on an entry boundary"));
        }
        Ok(())
    }

    /// Whether the key at restart point `i` is below `target`.
    fn restart_key_less(&mut self, i: usize, target: &[u8]) -> Result<bool, DecodeError> {
        let key = self
            .block
            .restart_key(i)
            .inspect_err(|_| self.valid = false)?;
        Ok(compare_internal(key, target) == Ordering::Less)
    }

    /// Resets the key and makes restart point `i` the next entry to parse.
    fn start_at_restart(&mut self, i: usize) {
        self.key.clear();
        self.restart_index = i;
        self.next = self.block.restart_point(i);
        self.valid = false;
    }

    /// Parses the entry at `self.next`. Returns false (and becomes invalid) at the end of
    /// the entries.
    fn parse_next(&mut self) -> Result<bool, DecodeError> {
        let offset = self.next;
        if offset >= self.block.restarts_offset {
            self.valid = false;
            return Ok(false);
        }
        let e = self
            .block
            .entry_at(offset)
            .inspect_err(|_| self.valid = false)?;
        if e.shared > self.key.len() {
            return Err(self.fail(offset, "entry shares more bytes than the previous key has"));
        }
        let suffix = self
            .block
            .data
            .get(e.key_start..e.value_start)
            .unwrap_or_default();
        self.key.truncate(e.shared);
        self.key.extend_from_slice(suffix);
        self.current = offset;
        self.next = e.end;
        self.value_start = e.value_start;
        self.value_end = e.end;
        while self.restart_index + 1 < self.block.num_restarts
            && self.block.restart_point(self.restart_index + 1) <= offset
        {
            self.restart_index += 1;
        }
        self.valid = true;
        Ok(true)
    }

    /// Invalidates the cursor and builds the error to return.
    fn fail(&mut self, offset: usize, what: &str) -> DecodeError {
        self.valid = false;
        DecodeError::new(offset, what)
    }
}

#[cfg(test)]
mod tests;

//! The block cache: parsed SSTable blocks shared by every reader, bounded in bytes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, OptionsBuilder, Weighter};

use crate::Result;
use crate::format::block::Block;

/// Identifies a cached block: `(table number, block offset)`.
type BlockKey = (u64, u64);

/// Weighs a cached block by its content bytes (at least 1, so every entry can be evicted).
#[derive(Debug, Clone, Copy)]
struct BlockWeighter;

impl Weighter<BlockKey, Arc<Block>> for BlockWeighter {
    fn weight(&self, _key: &BlockKey, block: &Arc<Block>) -> u64 {
        (block.size() as u64).max(1)
    }
}

/// Typical block size, used only to size the cache's hash tables.
const TYPICAL_BLOCK_BYTES: u64 = 4096;

/// A concurrent cache of parsed blocks keyed by `(table number, block offset)`, holding up to
/// a capacity in bytes of block contents, with hit and miss counters.
///
/// Thread-safe; share it through an `Arc`. Blocks are handed out as `Arc<Block>`, so an
/// evicted block stays alive as long as an iterator uses it. Concurrent misses on the same
/// block load it once: the other callers wait for the first loader.
///
/// REQUIRES (of callers): a table number identifies one immutable file among every file that
/// shares this cache. A file number reused for different bytes (for example a value file
/// rewritten under the same number with a new epoch) needs its own number here.
pub struct BlockCache {
    /// `None` when the capacity is 0: nothing is cached.
    inner: Option<Cache<BlockKey, Arc<Block>, BlockWeighter>>,
    capacity: u64,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("capacity", &self.capacity)
            .field("usage_bytes", &self.usage_bytes())
            .field("hits", &self.hits())
            .field("misses", &self.misses())
            .finish()
    }
}

impl BlockCache {
    /// A cache holding up to `capacity_bytes` of block contents. A capacity of 0 caches
    /// nothing (every lookup loads).
    pub fn new(capacity_bytes: u64) -> BlockCache {
        let inner = (capacity_bytes > 0)
            .then(|| {
                OptionsBuilder::new()
                    .estimated_items_capacity(
                        (capacity_bytes / TYPICAL_BLOCK_BYTES).clamp(16, 1 << 24) as usize,
                    )
                    .weight_capacity(capacity_bytes)
                    .build()
                    .ok()
            })
            .flatten()
            .map(|opts| {
                Cache::with_options(
                    opts,
                    BlockWeighter,
                    DefaultHashBuilder::default(),
                    Default::default(),
                )
            });
        BlockCache {
            inner,
            capacity: capacity_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The block at `offset` of table `table`: from the cache if present, else from `load`.
    ///
    /// A loaded block is inserted only if `fill` is true (a long scan passes false so it does
    /// not evict the working set). An error from `load` is returned and nothing is cached.
    pub fn get_or_load(
        &self,
        table: u64,
        offset: u64,
        fill: bool,
        load: impl FnOnce() -> Result<Block>,
    ) -> Result<Arc<Block>> {
        let Some(cache) = &self.inner else {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return load().map(Arc::new);
        };
        let key = (table, offset);
        if !fill {
            if let Some(block) = cache.get(&key) {
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Ok(block);
            }
            self.misses.fetch_add(1, Ordering::Relaxed);
            return load().map(Arc::new);
        }
        let mut loaded = false;
        let block = cache.get_or_insert_with(&key, || {
            loaded = true;
            load().map(Arc::new)
        });
        let counter = if loaded { &self.misses } else { &self.hits };
        counter.fetch_add(1, Ordering::Relaxed);
        block
    }

    /// The block at `offset` of table `table` if the cache holds it, counted as a hit; a
    /// caller that then loads it itself hands it to [`BlockCache::loaded`].
    pub fn cached(&self, table: u64, offset: u64) -> Option<Arc<Block>> {
        let block = self.inner.as_ref()?.get(&(table, offset))?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(block)
    }

    /// A block its caller loaded after [`BlockCache::cached`] did not have it, counted as a
    /// miss and inserted if `fill` is true.
    pub fn loaded(&self, table: u64, offset: u64, block: Block, fill: bool) -> Arc<Block> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        let block = Arc::new(block);
        if fill && let Some(cache) = &self.inner {
            cache.insert((table, offset), Arc::clone(&block));
        }
        block
    }

    /// Lookups answered from the cache.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Lookups that had to load the block.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Bytes of block contents currently cached.
    pub fn usage_bytes(&self) -> u64 {
        self.inner.as_ref().map_or(0, |c| c.weight())
    }

    /// The capacity in bytes given at creation.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity
    }

    /// The number of cached blocks.
    pub fn len(&self) -> usize {
        self.inner.as_ref().map_or(0, |c| c.len())
    }

    /// Whether no block is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::format::block::BlockBuilder;

    fn block_of(size_hint: usize) -> Block {
        let mut b = BlockBuilder::new(16);
        b.add(b"key-----", &vec![7u8; size_hint]);
        Block::parse(b.finish().to_vec()).unwrap()
    }

    #[test]
    fn second_lookup_is_a_hit_and_does_not_load() {
        let cache = BlockCache::new(1 << 20);
        let a = cache.get_or_load(1, 0, true, || Ok(block_of(100))).unwrap();
        let b = cache
            .get_or_load(1, 0, true, || panic!("must not load"))
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!((cache.hits(), cache.misses()), (1, 1));
        assert_eq!(cache.usage_bytes(), a.size() as u64);
    }

    #[test]
    fn keys_distinguish_tables_and_offsets() {
        let cache = BlockCache::new(1 << 20);
        cache.get_or_load(1, 0, true, || Ok(block_of(10))).unwrap();
        cache.get_or_load(2, 0, true, || Ok(block_of(20))).unwrap();
        cache
            .get_or_load(1, 4096, true, || Ok(block_of(30)))
            .unwrap();
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.misses(), 3);
    }

    #[test]
    fn no_fill_uses_cached_blocks_but_inserts_nothing() {
        let cache = BlockCache::new(1 << 20);
        cache.get_or_load(1, 0, false, || Ok(block_of(10))).unwrap();
        assert!(cache.is_empty());
        cache.get_or_load(1, 0, true, || Ok(block_of(10))).unwrap();
        cache
            .get_or_load(1, 0, false, || panic!("must not load"))
            .unwrap();
        assert_eq!((cache.hits(), cache.misses()), (1, 2));
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let cache = BlockCache::new(0);
        cache.get_or_load(1, 0, true, || Ok(block_of(10))).unwrap();
        cache.get_or_load(1, 0, true, || Ok(block_of(10))).unwrap();
        assert_eq!((cache.hits(), cache.misses()), (0, 2));
        assert_eq!(cache.usage_bytes(), 0);
    }

    #[test]
    fn usage_stays_within_capacity() {
        let cache = BlockCache::new(64 * 1024);
        for i in 0..200 {
            cache
                .get_or_load(1, i * 4096, true, || Ok(block_of(4000)))
                .unwrap();
        }
        assert!(cache.usage_bytes() <= 64 * 1024, "{}", cache.usage_bytes());
        assert!(cache.usage_bytes() > 0);
    }

    #[test]
    fn load_errors_are_returned_and_not_cached() {
        let cache = BlockCache::new(1 << 20);
        let err = cache
            .get_or_load(1, 0, true, || Err(Error::InvalidArgument("boom".into())))
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)));
        assert!(cache.is_empty());
        cache.get_or_load(1, 0, true, || Ok(block_of(1))).unwrap();
        assert_eq!(cache.len(), 1);
    }
}

//! Chained setters for [`Options`]: `Options::default().memtable_size(8 << 20)`.
//!
//! `Options` is `#[non_exhaustive]`, so code outside this crate builds it from
//! `Options::default()` with these setters (or assigns its public fields, or sets them by
//! name with [`Options::set`]); new options can then be added without breaking it. Each
//! setter only stores its value: [`Options::validate`], which `Db::open` calls, checks
//! ranges and combinations.

use std::sync::Arc;

use super::{CompactionPriority, GcListener, GcMode, LevelSizing, Options, ValueLayout};
use crate::fs::Fs;

/// One chained setter per option; each field's doc gives its meaning, range and default.
macro_rules! setters {
    ($($field:ident: $ty:ty,)*) => {
        impl Options {
            $(
                #[doc = concat!("Sets `", stringify!($field), "` (see the field of that name).")]
                #[must_use]
                pub fn $field(mut self, value: $ty) -> Options {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

setters! {
    create_if_missing: bool,
    error_if_exists: bool,
    fs: Arc<dyn Fs>,
    clock: Arc<dyn crate::Clock>,
    inline_threshold: usize,
    medium_threshold: usize,
    medium_merge_level: usize,
    value_file_size: u64,
    memtable_size: usize,
    max_immutable_memtables: usize,
    memtable_max_log_bytes: u64,
    log_buffer_size: usize,
    block_size: usize,
    bloom_bits_per_key: u32,
    compression: crate::Compression,
    compression_per_level: Vec<crate::Compression>,
    value_compression: crate::Compression,
    medium_value_compression: crate::Compression,
    block_cache_size: u64,
    l0_compaction_trigger: usize,
    l0_slowdown_trigger: usize,
    l0_stop_trigger: usize,
    l1_target_size: u64,
    level_size_ratio: u64,
    level_sizing: LevelSizing,
    compaction_priority: CompactionPriority,
    num_levels: usize,
    target_file_size: u64,
    compaction_threads: usize,
    max_subcompactions: usize,
    compaction_offload: Option<crate::compaction::remote::Address>,
    compaction_offload_token: Vec<u8>,
    compaction_offload_timeout_ms: u64,
    compaction_offload_full_check: bool,
    prefetch_threads: usize,
    prefetch_min_read_micros: u64,
    mmap_reads: bool,
    background_nice: u32,
    gc_enabled: bool,
    gc_mode: GcMode,
    gc_threshold: f64,
    gc_bytes_per_sec: u64,
    space_amp_target: f64,
    gc_listener: Option<GcListener>,
    value_layout: ValueLayout,
    hash_groups: u32,
    hash_hotness: bool,
    info_log: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setters_match_setting_by_name() {
        let chained = Options::default()
            .memtable_size(8 << 20)
            .inline_threshold(512)
            .gc_threshold(0.25)
            .gc_mode(GcMode::LsmLookup)
            .compression(crate::Compression::Lz4)
            .info_log(true);
        let mut named = Options::default();
        for (name, value) in [
            ("memtable_size", "8M"),
            ("inline_threshold", "512"),
            ("gc_threshold", "0.25"),
            ("gc_mode", "lsm-lookup"),
            ("compression", "lz4"),
            ("info_log", "true"),
        ] {
            named.set(name, value).unwrap();
        }
        assert_eq!(format!("{chained:?}"), format!("{named:?}"));
        assert_ne!(format!("{chained:?}"), format!("{:?}", Options::default()));
    }

    #[test]
    fn setters_store_without_validating() {
        // Out of range: kept as given, refused by `validate` (and so by `Db::open`).
        let opts = Options::default().num_levels(1);
        assert_eq!(opts.num_levels, 1);
        assert!(opts.validate().is_err());
        let fs: Arc<dyn Fs> = Arc::new(crate::fs::MemFs::new());
        let opts = Options::default()
            .fs(fs.clone())
            .value_layout(ValueLayout::Hash)
            .gc_listener(None);
        assert!(Arc::ptr_eq(&opts.fs, &fs));
        assert_eq!(opts.value_layout, ValueLayout::Hash);
    }
}

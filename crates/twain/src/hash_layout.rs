//! The hash value layout (HashKV): which segment group a key's separated values live in.
//!
//! With `value_layout = hash`, the flush moves every large value out of the log (which then
//! serves only recovery) into the *segment* of the key's group: an SVTable per group and
//! flush, sorted by key. Every version of a key, and a tombstone for every delete or small
//! put of it, lands in the key's group, so a group's GC (`gc::group`) knows which records
//! are live from the group alone. The group GC merges all of a group's segments into its
//! *main* segment: the one at epoch 2 or later (a flush writes epoch 1). A handle naming a
//! segment that the group GC merged away is read in the main segment of the key's group,
//! found by key and sequence (`Version::hash_forward`).

/// Groups of a hash-layout database unless `hash_groups` says otherwise.
pub const DEFAULT_GROUPS: u32 = 32;

/// The group of `key` among `groups` (> 0). Stable: it is part of the on-disk layout.
pub fn group_of(key: &[u8], groups: u32) -> u32 {
    crc32c::crc32c(key) % groups.max(1)
}

/// Whether a segment at `epoch` is its group's main segment (a group GC's output).
pub fn is_main(epoch: u32) -> bool {
    epoch >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_stable_and_spread() {
        // Part of the on-disk layout: a changed function would lose every forwarded handle.
        assert_eq!(group_of(b"key", 32), crc32c::crc32c(b"key") % 32);
        assert_eq!(group_of(b"", 7), crc32c::crc32c(b"") % 7);
        let mut counts = [0u32; 8];
        for i in 0..8000u32 {
            counts[group_of(format!("user{i:08}").as_bytes(), 8) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(group_of(b"x", 0), 0, "no division by zero");
    }
}

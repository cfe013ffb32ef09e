//! The hash value layout (HashKV): which segment group a key's separated values live in.
//!
//! With `value_layout = hash`, the flush moves every large value out of the log (which then
//! serves only recovery) into the *segment* of the key's group: an SVTable per group and
//! flush, sorted by key. Every version of a key, and a tombstone for every delete or small
//! put of it, lands in the key's group, so a group's GC (`gc::group`) knows which records
//! are live from the group alone. The group GC merges a group's log segments into its
//! *main* segment: the one at epoch 2 or later (a flush writes epoch 1), and moves records
//! that survive twice to *cold* segments, which later GCs judge without copying ([`Role`]).
//! A handle naming a segment that the group GC merged away is read in the main or a cold
//! segment of the key's group, found by key and sequence (`Version::hash_chain`).

/// Groups of a hash-layout database unless `hash_groups` says otherwise.
pub const DEFAULT_GROUPS: u32 = 32;

/// The group of `key` among `groups` (> 0). Stable: it is part of the on-disk layout.
pub fn group_of(key: &[u8], groups: u32) -> u32 {
    crc32c::crc32c(key) % groups.max(1)
}

/// Most cold segments a group keeps: a group GC that would make more merges them all
/// (`gc::group`).
pub const MAX_COLD_SEGMENTS: usize = 4;

/// What a segment is to its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Written by a flush (epoch 1) since the group's last GC: taken from the reserved pool.
    Log,
    /// The group's main segment (epoch 2 or later): what the last GC kept of the records
    /// written since the GC before it, and the tombstones it kept.
    Main,
    /// A cold segment (manifest tag 17): records that survived two GCs of the group. The
    /// group's GC judges them by their index and leaves them in place while they are live.
    Cold,
}

impl Role {
    /// The role of a segment at `epoch`, cold or not.
    pub fn of(epoch: u32, cold: bool) -> Role {
        match (cold, epoch) {
            (true, _) => Role::Cold,
            (false, e) if e >= 2 => Role::Main,
            _ => Role::Log,
        }
    }
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

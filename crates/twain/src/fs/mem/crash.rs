//! What survives a simulated power loss of a [`MemFs`](super::MemFs): the options of a
//! crash and the bytes each file keeps.
#![deny(clippy::indexing_slicing)]

use super::{Content, Dir, MemFs, Node, State, lock};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

/// Size and alignment of the sector that [`CrashOptions::garbage_sector`] overwrites.
pub(super) const SECTOR: usize = 4096;

/// How [`MemFs::crash`] treats the bytes that were written but not synced.
///
/// `Default` is [`CrashOptions::drop_unsynced`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CrashOptions {
    /// Seed of every random choice of the crash; the same seed gives the same image.
    pub seed: u64,
    /// Keep a random-length prefix of each file's unsynced tail (possibly all, possibly
    /// none) instead of dropping it.
    pub torn_tail: bool,
    /// Overwrite one random 4 KiB-aligned sector inside each file's kept unsynced region
    /// with random bytes. Needs `torn_tail` to have any effect.
    pub garbage_sector: bool,
}

impl CrashOptions {
    /// Keep exactly the synced bytes of every file.
    pub fn drop_unsynced() -> CrashOptions {
        CrashOptions::default()
    }

    /// Keep a random prefix of each unsynced tail, chosen from `seed`.
    pub fn torn(seed: u64) -> CrashOptions {
        CrashOptions {
            seed,
            torn_tail: true,
            garbage_sector: false,
        }
    }

    /// Keep a random prefix of each unsynced tail and overwrite one sector of it with
    /// garbage, chosen from `seed`.
    pub fn torn_with_garbage(seed: u64) -> CrashOptions {
        CrashOptions {
            seed,
            torn_tail: true,
            garbage_sector: true,
        }
    }
}

impl MemFs {
    /// The state after a simulated power loss now, as a new independent `MemFs`; see the
    /// [`MemFs`] docs for exactly what survives. `self` is not changed.
    pub fn crash(&self, opts: &CrashOptions) -> MemFs {
        let state = self.state();
        let survivors = state.distinct_nodes(|d| &d.durable);
        // IMPORTANT: hold every surviving node's lock at once, so the image is one instant.
        let contents: Vec<MutexGuard<'_, Content>> =
            survivors.iter().map(|n| lock(&n.content)).collect();

        let image = MemFs::from_state(State::default());
        image.set_punch_hole_support(self.shared.punch_holes.load(Ordering::Relaxed));
        let mut rng = SplitMix64(opts.seed);
        let mut renumber = HashMap::new();
        for (node, content) in survivors.iter().zip(&contents) {
            let data = crash_content(content, opts, &mut rng);
            let holes = content.image_holes(&data);
            let len = data.len();
            let copy = image.new_node(data, len);
            lock(&copy.content).holes = holes;
            renumber.insert(node.id, copy);
        }
        drop(contents);

        let mut dirs = BTreeMap::new();
        for (path, dir) in &state.dirs {
            let entries: BTreeMap<String, Arc<Node>> = dir
                .durable
                .iter()
                .filter_map(|(name, node)| Some((name.clone(), renumber.get(&node.id)?.clone())))
                .collect();
            let dir = Dir {
                live: entries.clone(),
                durable: entries,
            };
            dirs.insert(path.clone(), dir);
        }
        lock(&image.shared.state).dirs = dirs;
        image
    }
}

/// The bytes a node keeps through a crash (see [`MemFs`]).
pub(super) fn crash_content(
    content: &Content,
    opts: &CrashOptions,
    rng: &mut SplitMix64,
) -> Vec<u8> {
    let punches = content.unsynced_punches.len();
    let kept_punches = if opts.torn_tail && punches > 0 {
        rng.below(punches as u64 + 1) as usize
    } else {
        0
    };
    let whole = content.with_punches_kept(kept_punches);
    let synced = content.synced_len;
    let tail = whole.len().saturating_sub(synced);
    let kept_tail = if opts.torn_tail && tail > 0 {
        match rng.below(4) {
            0 => 0,
            1 => tail,
            _ => rng.below(tail as u64 + 1) as usize,
        }
    } else {
        0
    };
    let kept = synced + kept_tail;
    let mut data = whole.get(..kept).unwrap_or_default().to_vec();
    if opts.garbage_sector && kept_tail > 0 {
        let first = synced / SECTOR;
        let last = (kept - 1) / SECTOR;
        let sector = first + rng.below((last - first + 1) as u64) as usize;
        let start = (sector * SECTOR).max(synced);
        let end = ((sector + 1) * SECTOR).min(kept);
        for byte in data.get_mut(start..end).unwrap_or_default() {
            *byte = rng.next() as u8;
        }
    }
    data
}

/// splitmix64: a tiny, well-mixed deterministic generator; enough for crash choices.
pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 if `n` is 0); the slight modulo bias does not matter here.
    pub(super) fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

//! Sets and maps keyed by sequence number, with a hash made for them.
//!
//! Value GC and the drop index consult sets of sequence numbers for every record they read
//! (is this record dropped? seen twice?), and those sets hold millions of entries. The
//! standard library's default hash (SipHash) resists flooding by chosen keys, which costs
//! about as much as the rest of the lookup. Sequence numbers are assigned by the engine,
//! never chosen by a user or read from a network, so they need no such defence: a
//! multiply and a fold spread them over the table: the multiply mixes every bit of the number
//! into the product's high bits, and the fold brings those into the low bits the table
//! indexes by, so consecutive numbers (one batch's records) and strided ones both spread.

use crate::key::SeqNo;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A set of sequence numbers.
pub type SeqSet = HashSet<SeqNo, BuildHasherDefault<SeqHasher>>;

/// A map from sequence numbers.
pub type SeqMap<V> = HashMap<SeqNo, V, BuildHasherDefault<SeqHasher>>;

/// An empty [`SeqMap`] with room for `n` numbers.
pub fn seq_map_with_capacity<V>(n: usize) -> SeqMap<V> {
    SeqMap::with_capacity_and_hasher(n, BuildHasherDefault::default())
}

/// The hasher of [`SeqSet`] and [`SeqMap`]. Meant for `u64` keys; other input is folded in
/// a byte at a time, correct but not fast.
#[derive(Debug, Default, Clone, Copy)]
pub struct SeqHasher(u64);

/// An odd constant with well-spread bits (2^64 divided by the golden ratio).
const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for SeqHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(MULTIPLIER);
    }

    fn finish(&self) -> u64 {
        // The product's high bits are its best mixed; fold them into the low bits the
        // table indexes by.
        self.0 ^ (self.0 >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn sets_and_maps_behave_as_the_standard_ones() {
        let mut set = SeqSet::default();
        let mut map = seq_map_with_capacity(4);
        for seq in (0..10_000u64).map(|i| i * 7 + (i % 3)) {
            assert!(set.insert(seq));
            map.insert(seq, seq + 1);
        }
        for seq in (0..10_000u64).map(|i| i * 7 + (i % 3)) {
            assert!(!set.insert(seq));
            assert_eq!(map.get(&seq), Some(&(seq + 1)));
        }
        assert_eq!(set.len(), 10_000);
        assert!(!set.contains(&3));
        let collected: SeqSet = [5, 6, 5].into_iter().collect();
        assert_eq!(collected.len(), 2);
    }

    #[test]
    fn consecutive_and_strided_numbers_spread_over_the_low_bits() {
        let build = BuildHasherDefault::<SeqHasher>::default();
        let buckets = |seqs: &mut dyn Iterator<Item = u64>| -> usize {
            let low: HashSet<u64> = seqs.map(|seq| build.hash_one(seq) & 0xff).collect();
            low.len()
        };
        // 256 numbers in 256 buckets: a random function fills about 162; a multiply
        // without the fold would put multiples of 1024 all in bucket 0.
        assert!(buckets(&mut (1_000_000..1_000_256u64)) > 150);
        assert!(buckets(&mut (0..256u64).map(|i| i << 10)) > 150);
        assert!(buckets(&mut (0..256u64).map(|i| i << 20)) > 150);
    }

    #[test]
    fn byte_input_is_hashed_too() {
        let build = BuildHasherDefault::<SeqHasher>::default();
        assert_ne!(build.hash_one("a"), build.hash_one("b"));
    }
}

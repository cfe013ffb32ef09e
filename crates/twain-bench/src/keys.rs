//! Keys: 16 bytes, the big-endian key index followed by 8 zero bytes, and a pseudo-random
//! permutation of `0..n` that decides the order in which random fills visit them.
//!
//! The permutation is a keyed 4-round Feistel network on the smallest even number of bits
//! that covers `n`, restricted to `0..n` by cycle walking. A Feistel network is a bijection
//! whatever its round function, and cycle walking keeps a bijection on the subset, so every
//! index in `0..n` is visited exactly once without storing `n` entries. The domain is less
//! than `4n`, so a lookup walks fewer than 4 steps on average.

/// Length of every benchmark key.
pub const KEY_LEN: usize = 16;

/// The key of index `index`: 8 bytes big-endian, then 8 zero bytes. Keys sort like their
/// indexes.
pub fn key_bytes(index: u64) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[..8].copy_from_slice(&index.to_be_bytes());
    k
}

/// The index encoded in a benchmark key, if it is one.
pub fn key_index(key: &[u8]) -> Option<u64> {
    let head: [u8; 8] = key.get(..8)?.try_into().ok()?;
    Some(u64::from_be_bytes(head))
}

/// A bijection of `0..n` onto itself, computed on the fly. Thread-safe (immutable).
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    /// The permutation of `0..n` chosen by `seed`.
    pub fn new(n: u64, seed: u64) -> Permutation {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut s = seed ^ 0x7477_6169_6e5f_6b65; // "twain_ke"
        let keys = [0; 4].map(|_: u64| {
            s = splitmix64(s);
            s
        });
        Permutation { n, half_bits, keys }
    }

    /// The size of the domain.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether the domain is empty.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The image of `i`. REQUIRES: `i < self.len()`.
    pub fn apply(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        let mut x = i;
        loop {
            x = self.feistel(x);
            if x < self.n {
                return x;
            }
        }
    }

    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut l, mut r) = (x >> self.half_bits, x & mask);
        for k in self.keys {
            let f = splitmix64(r ^ k) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half_bits) | r
    }
}

/// SplitMix64's output function: a fast, well-mixed 64-bit hash.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 3, 4, 5, 17, 1000, 4096, 4097, 65_537] {
            for seed in [0, 1, 42] {
                let p = Permutation::new(n, seed);
                let mut seen = vec![false; n as usize];
                for i in 0..n {
                    let j = p.apply(i);
                    assert!(j < n, "n={n} i={i} -> {j}");
                    assert!(!seen[j as usize], "n={n}: {j} hit twice");
                    seen[j as usize] = true;
                }
            }
        }
    }

    #[test]
    fn permutation_shuffles() {
        let p = Permutation::new(100_000, 7);
        let fixed = (0..100_000).filter(|&i| p.apply(i) == i).count();
        assert!(fixed < 100, "{fixed} fixed points");
        let ascending = (1..100_000)
            .filter(|&i| p.apply(i) > p.apply(i - 1))
            .count();
        assert!((40_000..60_000).contains(&ascending), "{ascending}");
        assert_ne!(
            Permutation::new(1000, 1).apply(5),
            Permutation::new(1000, 2).apply(5)
        );
    }

    #[test]
    fn keys_sort_like_indexes() {
        assert!(key_bytes(255) < key_bytes(256));
        assert_eq!(key_bytes(258)[6..], [1, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(key_index(&key_bytes(123_456)), Some(123_456));
        assert_eq!(key_index(b"short"), None);
    }
}

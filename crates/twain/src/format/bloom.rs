//! The whole-table bloom filter over user keys. Specified in `docs/format/sstable.md`.
//!
//! ```text
//! filter := bits: [u8; m] | k: u8          (m >= 1; bit i is bit (i % 8) of byte i / 8)
//! ```
//!
//! A key is hashed once, `h = xxh3_64(user_key)`, and split into `a = h & 0xffff_ffff` and
//! `b = h >> 32`. Its `k` probes set or test bits `(a + i * b) mod (8 * m)` for `i in 0..k`
//! (exact integer arithmetic; it fits in `u64`). The table has `n` distinct user keys and
//! `bits_per_key` bits per key: `8 * m = max(64, n * bits_per_key)` rounded up to whole bytes,
//! `k = round(bits_per_key * ln 2)` clamped to `1..=30`.

use super::coding::DecodeError;

/// The smallest bit array a filter gets, so that tiny tables still filter well.
const MIN_BITS: u64 = 64;

/// The largest number of probes.
pub const MAX_PROBES: u8 = 30;

/// The hash a filter stores for a user key.
pub fn bloom_hash(user_key: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(user_key)
}

/// The number of probes for `bits_per_key`: `round(bits_per_key * ln 2)` clamped to `1..=30`.
pub fn num_probes(bits_per_key: u32) -> u8 {
    let k = (f64::from(bits_per_key) * std::f64::consts::LN_2).round();
    k.clamp(1.0, f64::from(MAX_PROBES)) as u8
}

/// The probe positions of hash `h` in a filter of `nbits` bits, in probe order.
/// REQUIRES: `nbits > 0`.
fn probes(h: u64, nbits: u64, k: u8) -> impl Iterator<Item = u64> {
    // (a + i*b) mod nbits, computed incrementally with one division for each of a and b.
    let step = (h >> 32) % nbits;
    let mut pos = (h & 0xffff_ffff) % nbits;
    (0..k).map(move |_| {
        let out = pos;
        pos += step;
        if pos >= nbits {
            pos -= nbits;
        }
        out
    })
}

/// Collects the user keys of a table and encodes its filter.
///
/// Keeps one 8-byte hash per distinct user key. Consecutive duplicate keys (the versions of
/// one user key, which are adjacent in a table) are counted once. Not thread-safe.
#[derive(Debug)]
pub struct BloomBuilder {
    bits_per_key: u32,
    hashes: Vec<u64>,
}

impl BloomBuilder {
    /// A builder for a filter of `bits_per_key` bits per key. REQUIRES: `bits_per_key > 0`
    /// (a table without a filter has no builder).
    pub fn new(bits_per_key: u32) -> BloomBuilder {
        BloomBuilder {
            bits_per_key: bits_per_key.max(1),
            hashes: Vec::new(),
        }
    }

    /// Adds a user key.
    pub fn add_key(&mut self, user_key: &[u8]) {
        let h = bloom_hash(user_key);
        if self.hashes.last() != Some(&h) {
            self.hashes.push(h);
        }
    }

    /// The number of distinct keys added (counting only consecutive duplicates as one).
    pub fn num_keys(&self) -> usize {
        self.hashes.len()
    }

    /// Appends the encoded filter to `buf`.
    pub fn finish_into(&self, buf: &mut Vec<u8>) {
        let wanted = (self.hashes.len() as u64)
            .saturating_mul(u64::from(self.bits_per_key))
            .max(MIN_BITS);
        let nbytes = wanted.div_ceil(8) as usize;
        let nbits = nbytes as u64 * 8;
        let k = num_probes(self.bits_per_key);
        let start = buf.len();
        buf.resize(start + nbytes, 0);
        let bits = buf.get_mut(start..).unwrap_or_default();
        for &h in &self.hashes {
            for bit in probes(h, nbits, k) {
                if let Some(byte) = bits.get_mut((bit / 8) as usize) {
                    *byte |= 1 << (bit % 8);
                }
            }
        }
        buf.push(k);
    }
}

/// A decoded filter. Owns its bits; immutable and thread-safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilter {
    /// The bit array followed by the probe count byte.
    data: Vec<u8>,
    nbits: u64,
    k: u8,
}

impl BloomFilter {
    /// Decodes a filter block's contents. Errors if the bit array is empty or the probe
    /// count is outside `1..=30`.
    pub fn decode(data: Vec<u8>) -> Result<BloomFilter, DecodeError> {
        let Some((&k, bits)) = data.split_last() else {
            return Err(DecodeError::new(0, "empty filter"));
        };
        if bits.is_empty() {
            return Err(DecodeError::new(0, "filter has no bits"));
        }
        if !(1..=MAX_PROBES).contains(&k) {
            return Err(DecodeError::new(
                bits.len(),
                format!("filter probe count {k} outside 1..={MAX_PROBES}"),
            ));
        }
        let nbits = bits.len() as u64 * 8;
        Ok(BloomFilter { data, nbits, k })
    }

    /// The number of probes per key.
    pub fn num_probes(&self) -> u8 {
        self.k
    }

    /// The size of the bit array in bytes.
    pub fn bit_bytes(&self) -> usize {
        self.data.len().saturating_sub(1)
    }

    /// False if `user_key` is certainly not in the table; true if it may be.
    pub fn may_contain(&self, user_key: &[u8]) -> bool {
        self.may_contain_hash(bloom_hash(user_key))
    }

    /// [`may_contain`](Self::may_contain) for a precomputed [`bloom_hash`].
    pub fn may_contain_hash(&self, h: u64) -> bool {
        probes(h, self.nbits, self.k).all(|bit| {
            self.data
                .get((bit / 8) as usize)
                .is_none_or(|byte| byte & (1 << (bit % 8)) != 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(keys: impl Iterator<Item = Vec<u8>>, bits_per_key: u32) -> BloomFilter {
        let mut b = BloomBuilder::new(bits_per_key);
        for k in keys {
            b.add_key(&k);
        }
        let mut buf = Vec::new();
        b.finish_into(&mut buf);
        BloomFilter::decode(buf).unwrap()
    }

    #[test]
    fn probe_count_follows_bits_per_key() {
        assert_eq!(num_probes(1), 1);
        assert_eq!(num_probes(10), 7);
        assert_eq!(num_probes(16), 11);
        assert_eq!(num_probes(100), 30);
    }

    #[test]
    fn no_false_negatives_and_few_false_positives_at_ten_bits() {
        let key = |i: u32| format!("key{i:08}").into_bytes();
        let f = build((0..10_000).map(key), 10);
        assert_eq!(f.bit_bytes(), 12_500);
        assert!((0..10_000).all(|i| f.may_contain(&key(i))));
        let fp = (10_000..20_000).filter(|&i| f.may_contain(&key(i))).count();
        let rate = fp as f64 / 10_000.0;
        assert!(rate < 0.02, "false-positive rate {rate}");
    }

    #[test]
    fn consecutive_duplicates_count_once() {
        let mut b = BloomBuilder::new(10);
        for k in [&b"a"[..], b"a", b"a", b"b", b"b"] {
            b.add_key(k);
        }
        assert_eq!(b.num_keys(), 2);
    }

    #[test]
    fn tiny_filter_has_minimum_size() {
        let f = build(std::iter::once(b"only".to_vec()), 10);
        assert_eq!(f.bit_bytes(), 8);
        assert!(f.may_contain(b"only"));
    }

    #[test]
    fn exact_encoding_of_a_one_key_filter() {
        // h = xxh3_64(""), then bits (a + i*b) mod 64 for i in 0..7.
        let h = bloom_hash(b"");
        let (a, b) = (h & 0xffff_ffff, h >> 32);
        let mut expected = [0u8; 8];
        for i in 0..7u64 {
            let bit = (a + i * b) % 64;
            expected[(bit / 8) as usize] |= 1 << (bit % 8);
        }
        let mut bb = BloomBuilder::new(10);
        bb.add_key(b"");
        let mut buf = Vec::new();
        bb.finish_into(&mut buf);
        assert_eq!(&buf[..8], &expected);
        assert_eq!(buf[8], 7);
    }

    #[test]
    fn malformed_filters_are_errors() {
        assert!(BloomFilter::decode(vec![]).is_err());
        assert!(BloomFilter::decode(vec![7]).is_err());
        assert_eq!(BloomFilter::decode(vec![0xff, 0]).unwrap_err().offset, 1);
        assert!(BloomFilter::decode(vec![0xff, 31]).is_err());
    }
}

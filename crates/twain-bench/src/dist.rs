//! Request distributions, as YCSB defines them: uniform, zipfian, scrambled zipfian and
//! latest.

use rand::RngExt;
use rand::rngs::SmallRng;

/// YCSB's default zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// The item count YCSB's `ScrambledZipfianGenerator` draws from before hashing.
const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;

/// zeta(10^10, 0.99), precomputed by YCSB (`ScrambledZipfianGenerator.ZETAN`).
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// Which key a request goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestDist {
    /// Every key equally likely.
    Uniform,
    /// YCSB's `ScrambledZipfianGenerator`: a zipfian draw hashed with FNV-1a, so the hot
    /// keys are spread over the key space.
    ScrambledZipfian,
    /// YCSB's `SkewedLatestGenerator`: the most recently inserted keys are the hottest.
    Latest,
}

/// YCSB's `ZipfianGenerator`: item `base + i` has probability proportional to
/// `1 / (i + 1)^theta`. The item count may grow; zeta is then extended incrementally, as
/// YCSB does. Not thread-safe to share: give each thread its own.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    alpha: f64,
    zeta2: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    /// A generator over `0..items` with constant `theta` (0 < theta < 1).
    /// REQUIRES: `items >= 1`.
    pub fn new(items: u64, theta: f64) -> Zipfian {
        let zetan = zeta(0, items, theta, 0.0);
        Zipfian::with_zetan(items, theta, zetan)
    }

    fn with_zetan(items: u64, theta: f64, zetan: f64) -> Zipfian {
        let zeta2 = zeta(0, 2, theta, 0.0);
        let mut z = Zipfian {
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta2,
            zetan,
            eta: 0.0,
        };
        z.eta = z.compute_eta();
        z
    }

    fn compute_eta(&self) -> f64 {
        (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// The number of items drawn from.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Draws from `0..items`, first growing the item count to `items` if it is larger
    /// (YCSB never shrinks it).
    pub fn next_of(&mut self, rng: &mut SmallRng, items: u64) -> u64 {
        if items > self.items {
            self.zetan = zeta(self.items, items, self.theta, self.zetan);
            self.items = items;
            self.eta = self.compute_eta();
        }
        self.next(rng)
    }

    /// Draws from `0..items`.
    pub fn next(&self, rng: &mut SmallRng) -> u64 {
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1.min(self.items - 1);
        }
        let v = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(self.items - 1)
    }
}

/// zeta(n, theta) = sum over i in 1..=n of 1 / i^theta, extended from `start` items whose
/// sum is `sum_so_far`.
fn zeta(start: u64, n: u64, theta: f64, sum_so_far: f64) -> f64 {
    let mut sum = sum_so_far;
    for i in start..n {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 bytes of `v`, low byte first, made
/// non-negative.
pub fn fnv1a64(v: u64) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 1_099_511_628_211;
    let mut h = OFFSET;
    let mut v = v;
    for _ in 0..8 {
        h ^= v & 0xff;
        h = h.wrapping_mul(PRIME);
        v >>= 8;
    }
    (h as i64).unsigned_abs()
}

/// YCSB's `ScrambledZipfianGenerator` with theta 0.99: draws from a zipfian over 10^10
/// items (zeta precomputed, as YCSB does) and maps the draw into `0..n` with FNV-1a.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    zipf: Zipfian,
}

impl Default for ScrambledZipfian {
    fn default() -> ScrambledZipfian {
        ScrambledZipfian {
            zipf: Zipfian::with_zetan(SCRAMBLED_ITEM_COUNT, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
        }
    }
}

impl ScrambledZipfian {
    /// Draws from `0..n`. REQUIRES: `n >= 1`.
    pub fn next(&self, rng: &mut SmallRng, n: u64) -> u64 {
        fnv1a64(self.zipf.next(rng)) % n
    }
}

/// YCSB's `SkewedLatestGenerator`: `latest - zipfian(count)`, where `latest` is the newest
/// inserted index and `count` the number inserted so far.
#[derive(Debug, Clone)]
pub struct Latest {
    zipf: Zipfian,
}

impl Latest {
    /// A generator for a key space that starts with `count` inserted keys.
    pub fn new(count: u64) -> Latest {
        Latest {
            zipf: Zipfian::new(count.max(1), ZIPFIAN_CONSTANT),
        }
    }

    /// Draws an insertion index in `0..count`. REQUIRES: `count >= 1`.
    pub fn next(&mut self, rng: &mut SmallRng, count: u64) -> u64 {
        let back = self.zipf.next_of(rng, count);
        (count - 1).saturating_sub(back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn zipfian_is_skewed_like_zipf() {
        let mut rng = SmallRng::seed_from_u64(1);
        let z = Zipfian::new(1000, ZIPFIAN_CONSTANT);
        let mut counts = [0u32; 1000];
        let draws = 200_000;
        for _ in 0..draws {
            counts[z.next(&mut rng) as usize] += 1;
        }
        // P(0) = 1 / zeta(1000, 0.99), about 0.13; P(1) is about half of it.
        let p0 = counts[0] as f64 / draws as f64;
        let expected = 1.0 / zeta(0, 1000, 0.99, 0.0);
        assert!((p0 - expected).abs() < 0.01, "p0 {p0} vs {expected}");
        let ratio = counts[0] as f64 / counts[1] as f64;
        assert!((1.8..2.2).contains(&ratio), "p0/p1 = {ratio}");
        // The top 10% of items take most of the draws.
        let top: u32 = counts[..100].iter().sum();
        assert!(top as f64 / draws as f64 > 0.6);
        assert!(counts[999] < counts[0] / 100);
    }

    #[test]
    fn zeta_grows_incrementally_like_from_scratch() {
        let mut rng = SmallRng::seed_from_u64(2);
        let mut z = Zipfian::new(100, 0.99);
        z.next_of(&mut rng, 5000);
        let fresh = Zipfian::new(5000, 0.99);
        assert!((z.zetan - fresh.zetan).abs() < 1e-9);
        assert!((z.eta - fresh.eta).abs() < 1e-12);
    }

    #[test]
    fn scrambled_zipfian_stays_in_range_and_spreads_hot_keys() {
        let mut rng = SmallRng::seed_from_u64(3);
        let s = ScrambledZipfian::default();
        for n in [1u64, 2, 7, 1000, 1_000_000] {
            for _ in 0..10_000 {
                assert!(s.next(&mut rng, n) < n);
            }
        }
        let n = 1_000_000;
        let mut counts = std::collections::HashMap::new();
        for _ in 0..100_000 {
            *counts.entry(s.next(&mut rng, n)).or_insert(0u32) += 1;
        }
        let mut hot: Vec<(u64, u32)> = counts.into_iter().collect();
        hot.sort_by_key(|&(_, c)| std::cmp::Reverse(c));
        // Skewed: the hottest key is drawn far more than 1 / n of the time...
        assert!(hot[0].1 > 1000, "hottest {:?}", hot[0]);
        // ... and the hot keys are not clustered at the start of the key space.
        let hot_indexes: Vec<u64> = hot.iter().take(10).map(|&(k, _)| k).collect();
        assert!(hot_indexes.iter().any(|&k| k > n / 2), "{hot_indexes:?}");
    }

    #[test]
    fn fnv_matches_ycsb() {
        // YCSB's Utils.fnvhash64 transliterated independently (signed 64-bit, Math.abs).
        assert_eq!(fnv1a64(0), 6_284_781_860_667_377_211);
        assert_eq!(fnv1a64(1), 8_517_097_267_634_966_620);
        assert_eq!(fnv1a64(12_345), 1_792_800_413_050_876_852);
    }

    #[test]
    fn latest_prefers_recent_inserts() {
        let mut rng = SmallRng::seed_from_u64(4);
        let mut l = Latest::new(10_000);
        let mut recent = 0;
        for _ in 0..10_000 {
            let i = l.next(&mut rng, 10_000);
            assert!(i < 10_000);
            if i >= 9_900 {
                recent += 1;
            }
        }
        assert!(recent > 5_000, "{recent}");
        assert!(l.next(&mut rng, 20_000) < 20_000);
    }
}

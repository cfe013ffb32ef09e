//! Values: incompressible bytes (slices of one pre-generated random buffer at random
//! offsets) whose sizes follow a distribution.

use crate::error::{BenchError, BenchResult};
use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};

/// Size ranges of the Parallax classes, inclusive: small values are at most 100 bytes,
/// medium ones 101 B to 1 KiB, large ones above 1 KiB (up to 4 KiB here). Each class is
/// drawn uniformly within its range.
pub const SMALL: (usize, usize) = (16, 100);
/// See [`SMALL`].
pub const MEDIUM: (usize, usize) = (101, 1024);
/// See [`SMALL`].
pub const LARGE: (usize, usize) = (1025, 4096);

/// How value sizes are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueDist {
    /// Every value has this size.
    Fixed(usize),
    /// Uniform in `lo..=hi`.
    Uniform(usize, usize),
    /// A Parallax mix: percentages of small, medium and large values (sum 100).
    Mix {
        /// Name shown in reports (`sd`, `md`, `ld` or `mix`).
        name: &'static str,
        /// Percent of small values.
        small: u8,
        /// Percent of medium values.
        medium: u8,
        /// Percent of large values.
        large: u8,
    },
}

impl ValueDist {
    /// Parses `1024`, `4K`, `uniform:100..1000` (or `100..1000`), `sd`, `md`, `ld` (the
    /// Parallax mixes 60/20/20, 20/60/20 and 20/20/60 of small/medium/large) or
    /// `mix:S/M/L` with percentages.
    pub fn parse(s: &str) -> BenchResult<ValueDist> {
        let bad = || BenchError::InvalidArgument(format!("value distribution {s:?}"));
        let size = |t: &str| -> BenchResult<usize> {
            let v = twain::parse_size(t).map_err(|_| bad())?;
            usize::try_from(v).map_err(|_| bad())
        };
        let lower = s.trim().to_ascii_lowercase();
        let dist = match lower.as_str() {
            "sd" => ValueDist::mix("sd", 60, 20, 20),
            "md" => ValueDist::mix("md", 20, 60, 20),
            "ld" => ValueDist::mix("ld", 20, 20, 60),
            other => {
                if let Some(p) = other.strip_prefix("mix:") {
                    let parts: Vec<u8> = p
                        .split('/')
                        .map(|x| x.trim().parse::<u8>().map_err(|_| bad()))
                        .collect::<BenchResult<_>>()?;
                    match parts[..] {
                        [a, b, c] if a as u32 + b as u32 + c as u32 == 100 => {
                            ValueDist::mix("mix", a, b, c)
                        }
                        _ => return Err(bad()),
                    }
                } else {
                    let range = other.strip_prefix("uniform:").unwrap_or(other);
                    match range.split_once("..") {
                        Some((a, b)) => {
                            let (lo, hi) = (size(a)?, size(b.trim_start_matches('='))?);
                            if lo > hi {
                                return Err(bad());
                            }
                            ValueDist::Uniform(lo, hi)
                        }
                        None => ValueDist::Fixed(size(range)?),
                    }
                }
            }
        };
        if dist.max() > twain::MAX_VALUE_SIZE {
            return Err(bad());
        }
        Ok(dist)
    }

    fn mix(name: &'static str, small: u8, medium: u8, large: u8) -> ValueDist {
        ValueDist::Mix {
            name,
            small,
            medium,
            large,
        }
    }

    /// The largest size it can produce.
    pub fn max(&self) -> usize {
        match *self {
            ValueDist::Fixed(n) => n,
            ValueDist::Uniform(_, hi) => hi,
            ValueDist::Mix { large, medium, .. } => {
                if large > 0 {
                    LARGE.1
                } else if medium > 0 {
                    MEDIUM.1
                } else {
                    SMALL.1
                }
            }
        }
    }

    /// The mean size.
    pub fn mean(&self) -> f64 {
        let mid = |(a, b): (usize, usize)| (a + b) as f64 / 2.0;
        match *self {
            ValueDist::Fixed(n) => n as f64,
            ValueDist::Uniform(lo, hi) => mid((lo, hi)),
            ValueDist::Mix {
                small,
                medium,
                large,
                ..
            } => {
                (small as f64 * mid(SMALL)
                    + medium as f64 * mid(MEDIUM)
                    + large as f64 * mid(LARGE))
                    / 100.0
            }
        }
    }

    /// Draws a size.
    pub fn sample(&self, rng: &mut SmallRng) -> usize {
        match *self {
            ValueDist::Fixed(n) => n,
            ValueDist::Uniform(lo, hi) => rng.random_range(lo..=hi),
            ValueDist::Mix { small, medium, .. } => {
                let p: u8 = rng.random_range(0..100);
                let (lo, hi) = if p < small {
                    SMALL
                } else if p < small + medium {
                    MEDIUM
                } else {
                    LARGE
                };
                rng.random_range(lo..=hi)
            }
        }
    }
}

impl std::fmt::Display for ValueDist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ValueDist::Fixed(n) => write!(f, "{n}"),
            ValueDist::Uniform(lo, hi) => write!(f, "uniform:{lo}..{hi}"),
            ValueDist::Mix {
                name,
                small,
                medium,
                large,
            } => write!(f, "{name} ({small}/{medium}/{large} small/medium/large)"),
        }
    }
}

/// Incompressible value bytes: one random buffer that values are sliced from at random
/// offsets. Thread-safe (immutable).
#[derive(Debug)]
pub struct ValueSource {
    buf: Vec<u8>,
    dist: ValueDist,
}

/// Random bytes beyond the largest value, so slices start at many offsets.
const SPREAD: usize = 1 << 20;

impl ValueSource {
    /// A source for `dist`, its bytes chosen by `seed`.
    pub fn new(dist: ValueDist, seed: u64) -> ValueSource {
        let mut buf = vec![0u8; dist.max() + SPREAD];
        SmallRng::seed_from_u64(seed ^ 0x7661_6c75_6573).fill_bytes(&mut buf);
        ValueSource { buf, dist }
    }

    /// Like [`new`](Self::new), with bytes that compress to about `ratio` of their size
    /// (db_bench's scheme: each 100-byte piece of the buffer is a random run of
    /// `ratio * 100` bytes, repeated). A `ratio` of 1 or more is [`new`](Self::new).
    pub fn compressible(dist: ValueDist, seed: u64, ratio: f64) -> ValueSource {
        let mut src = ValueSource::new(dist, seed);
        if ratio >= 1.0 {
            return src;
        }
        let run = ((ratio * 100.0).round() as usize).clamp(1, 100);
        for piece in src.buf.chunks_mut(100) {
            for i in run..piece.len() {
                piece[i] = piece[i % run];
            }
        }
        src
    }

    /// The size distribution.
    pub fn dist(&self) -> ValueDist {
        self.dist
    }

    /// A value of a size drawn from the distribution.
    pub fn next<'a>(&'a self, rng: &mut SmallRng) -> &'a [u8] {
        let len = self.dist.sample(rng);
        let off = rng.random_range(0..=self.buf.len() - len);
        &self.buf[off..off + len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!(ValueDist::parse("1024").unwrap(), ValueDist::Fixed(1024));
        assert_eq!(ValueDist::parse("1K").unwrap(), ValueDist::Fixed(1024));
        assert_eq!(
            ValueDist::parse("uniform:100..1000").unwrap(),
            ValueDist::Uniform(100, 1000)
        );
        assert_eq!(
            ValueDist::parse("10..=20").unwrap(),
            ValueDist::Uniform(10, 20)
        );
        assert_eq!(
            ValueDist::parse("MD").unwrap(),
            ValueDist::mix("md", 20, 60, 20)
        );
        assert_eq!(
            ValueDist::parse("mix:50/50/0").unwrap(),
            ValueDist::mix("mix", 50, 50, 0)
        );
        for bad in ["", "x", "20..10", "mix:50/50", "mix:50/50/50", "999G"] {
            assert!(ValueDist::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mixes_hit_their_proportions() {
        let mut rng = SmallRng::seed_from_u64(9);
        for (name, want) in [
            ("sd", [60, 20, 20]),
            ("md", [20, 60, 20]),
            ("ld", [20, 20, 60]),
        ] {
            let d = ValueDist::parse(name).unwrap();
            let mut got = [0u32; 3];
            let draws = 50_000;
            for _ in 0..draws {
                let n = d.sample(&mut rng);
                let class = if n <= SMALL.1 {
                    0
                } else if n <= MEDIUM.1 {
                    1
                } else {
                    2
                };
                got[class] += 1;
                assert!((SMALL.0..=LARGE.1).contains(&n));
            }
            for c in 0..3 {
                let pct = got[c] as f64 * 100.0 / draws as f64;
                assert!(
                    (pct - want[c] as f64).abs() < 1.5,
                    "{name}: class {c} {pct}%"
                );
            }
        }
    }

    #[test]
    fn values_have_the_drawn_size_and_do_not_repeat() {
        let src = ValueSource::new(ValueDist::Uniform(10, 20), 1);
        let mut rng = SmallRng::seed_from_u64(2);
        let a = src.next(&mut rng).to_vec();
        let b = src.next(&mut rng).to_vec();
        assert!((10..=20).contains(&a.len()) && (10..=20).contains(&b.len()));
        assert_ne!(a, b);
        let fixed = ValueSource::new(ValueDist::Fixed(1000), 1);
        assert_eq!(fixed.next(&mut rng).len(), 1000);
        assert!(
            (ValueDist::parse("sd").unwrap().mean() - 58.0 * 0.6 - 562.5 * 0.2 - 2560.5 * 0.2)
                .abs()
                < 1e-9
        );
    }

    #[test]
    fn compressible_values_compress_to_about_their_ratio() {
        use twain::format::block::BlockType;
        use twain::format::compression::compress;
        let mut rng = SmallRng::seed_from_u64(3);
        let mut out = Vec::new();
        let half = ValueSource::compressible(ValueDist::Fixed(4000), 1, 0.5);
        let v = half.next(&mut rng);
        assert_ne!(
            compress(twain::Compression::Lz4, v, &mut out),
            BlockType::Plain
        );
        assert!(
            (1400..2600).contains(&out.len()),
            "{} bytes for 4000",
            out.len()
        );
        let random = ValueSource::compressible(ValueDist::Fixed(4000), 1, 1.0);
        let v = random.next(&mut rng);
        assert_eq!(
            compress(twain::Compression::Lz4, v, &mut out),
            BlockType::Plain
        );
    }
}

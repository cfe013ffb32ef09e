//! Phases (db_bench and YCSB workloads) and the operations each one issues.

use crate::dist::{Latest, RequestDist, ScrambledZipfian};
use crate::error::{BenchError, BenchResult};
use crate::keys::Permutation;
use rand::RngExt;
use rand::rngs::SmallRng;
use std::sync::atomic::{AtomicU64, Ordering};

/// A YCSB core workload: percentages of each operation and the request distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct YcsbMix {
    /// `a` … `f`.
    pub letter: char,
    /// Percent of reads.
    pub read: u8,
    /// Percent of updates (blind overwrites of existing keys).
    pub update: u8,
    /// Percent of inserts of new keys.
    pub insert: u8,
    /// Percent of short range scans.
    pub scan: u8,
    /// Percent of read-modify-writes.
    pub rmw: u8,
    /// Which existing keys requests go to.
    pub dist: RequestDist,
}

impl YcsbMix {
    /// YCSB's standard workloads `a` to `f` (`workloads/workloada` … `workloadf`).
    pub fn standard(letter: char) -> Option<YcsbMix> {
        let m = |read, update, insert, scan, rmw, dist| YcsbMix {
            letter,
            read,
            update,
            insert,
            scan,
            rmw,
            dist,
        };
        use RequestDist::{Latest, ScrambledZipfian as Zipf};
        Some(match letter {
            'a' => m(50, 50, 0, 0, 0, Zipf),
            'b' => m(95, 5, 0, 0, 0, Zipf),
            'c' => m(100, 0, 0, 0, 0, Zipf),
            'd' => m(95, 0, 5, 0, 0, Latest),
            'e' => m(0, 0, 5, 95, 0, Zipf),
            'f' => m(50, 0, 0, 0, 50, Zipf),
            _ => return None,
        })
    }
}

/// What a phase does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// `num` puts in key order.
    FillSeq,
    /// `num` puts, each key once, in a random order.
    FillRandom,
    /// `reads` gets of uniformly random keys.
    ReadRandom,
    /// `reads` gets of uniformly random keys, the same sequence in both of its two phases.
    ReadRandomSame,
    /// `overwrites` puts of uniformly random existing keys.
    Overwrite,
    /// `overwrites` puts of existing keys drawn by YCSB's scrambled zipfian (theta 0.99).
    UpdateZipf,
    /// `reads` seeks to uniformly random keys, each reading the pair found there.
    SeekRandom,
    /// `scans` range scans from uniformly random keys, of `len` pairs (`scanN`) or
    /// `scan_length` (`scan`); `keys_only` (`scankeys`, `scankeysN`) reads keys without
    /// their values.
    Scan {
        /// Pairs per scan given by the name (`None`: `scan_length`).
        len: Option<usize>,
        /// Keys only, no values read.
        keys_only: bool,
    },
    /// `multiget` or `multigetN`: `reads` gets of uniformly random keys, N (default 100)
    /// per request; each request is one operation.
    MultiGet(usize),
    /// `deletes` deletes, each key once, in a random order.
    DeleteRandom,
    /// `deleterangeN` (N keys per range, default 1,000): the first `deletes` keys deleted
    /// by range deletions of N consecutive keys each, in key order.
    DeleteRanges(u64),
    /// YCSB's load phase: `num` inserts in a random order (like `FillRandom`).
    YcsbLoad,
    /// A YCSB run phase of `ycsb_ops` operations.
    Ycsb(YcsbMix),
    /// `idleN`: no foreground work for N seconds (background work goes on); its result
    /// has the space at its end and the process's CPU use over its last 5 s.
    Idle(u64),
}

/// The longest idle phase, in seconds (one hour).
pub const MAX_IDLE_SECS: u64 = 3600;

/// Every workload name accepted by [`parse_workloads`].
pub const WORKLOAD_NAMES: &[&str] = &[
    "fillseq",
    "fillrandom",
    "readrandom",
    "readrandomsame",
    "overwrite",
    "updatezipf",
    "seekrandom",
    "multiget",
    "scan",
    "scankeys",
    "deleterandom",
    "deleterange",
    "ycsb-load",
    "ycsb-a",
    "ycsb-b",
    "ycsb-c",
    "ycsb-d",
    "ycsb-e",
    "ycsb-f",
    "idle60",
];

impl PhaseKind {
    /// The phase named `name` (db_bench or YCSB spelling).
    pub fn parse(name: &str) -> BenchResult<PhaseKind> {
        Ok(match name {
            "fillseq" => PhaseKind::FillSeq,
            "fillrandom" => PhaseKind::FillRandom,
            "readrandom" => PhaseKind::ReadRandom,
            "readrandomsame" => PhaseKind::ReadRandomSame,
            "overwrite" => PhaseKind::Overwrite,
            "updatezipf" => PhaseKind::UpdateZipf,
            "seekrandom" => PhaseKind::SeekRandom,
            "deleterandom" => PhaseKind::DeleteRandom,
            other if other.starts_with("deleterange") => parse_delete_ranges(other)?,
            "ycsb-load" => PhaseKind::YcsbLoad,
            other if other.starts_with("idle") => PhaseKind::Idle(parse_idle(other)?),
            other if other.starts_with("scan") => parse_scan(other)?,
            other if other.starts_with("multiget") => parse_multi_get(other)?,
            other => {
                let mix = other
                    .strip_prefix("ycsb-")
                    .filter(|l| l.len() == 1)
                    .and_then(|l| l.chars().next())
                    .and_then(YcsbMix::standard);
                match mix {
                    Some(m) => PhaseKind::Ycsb(m),
                    None => {
                        return Err(BenchError::InvalidArgument(format!(
                            "unknown workload {other:?}; known: {}",
                            WORKLOAD_NAMES.join(", ")
                        )));
                    }
                }
            }
        })
    }

    /// Whether the phase writes (for `--settle` and the write-phase checks).
    pub fn writes(&self) -> bool {
        match self {
            PhaseKind::ReadRandom
            | PhaseKind::ReadRandomSame
            | PhaseKind::SeekRandom
            | PhaseKind::MultiGet(_)
            | PhaseKind::Scan { .. }
            | PhaseKind::Idle(_) => false,
            PhaseKind::Ycsb(m) => m.update + m.insert + m.rmw > 0,
            _ => true,
        }
    }

    /// The idle phase's seconds (`None` for other phases).
    pub fn idle_secs(&self) -> Option<u64> {
        match self {
            PhaseKind::Idle(secs) => Some(*secs),
            _ => None,
        }
    }

    /// Whether it loads the whole key space (after it, `num` keys exist).
    fn loads(&self) -> bool {
        matches!(
            self,
            PhaseKind::FillSeq | PhaseKind::FillRandom | PhaseKind::YcsbLoad
        )
    }
}

/// The seconds of an `idleN` phase name: `idle` alone is 60 s; N is 1 to
/// [`MAX_IDLE_SECS`].
fn parse_idle(name: &str) -> BenchResult<u64> {
    match count_after(name, "idle", MAX_IDLE_SECS) {
        Ok(secs) => Ok(secs.unwrap_or(60)),
        Err(()) => Err(BenchError::InvalidArgument(format!(
            "workload {name:?}: an idle phase is idleN with N seconds, 1 to {MAX_IDLE_SECS}"
        ))),
    }
}

/// The number N that follows `prefix` in a phase name: `None` if nothing follows,
/// an error unless it is 1 to `max`.
fn count_after(name: &str, prefix: &str, max: u64) -> Result<Option<u64>, ()> {
    let digits = name.strip_prefix(prefix).unwrap_or(name);
    if digits.is_empty() {
        return Ok(None);
    }
    match digits.parse::<u64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(Some(n)),
        _ => Err(()),
    }
}

/// The most keys a `deleterangeN` phase's ranges may hold.
pub const MAX_RANGE_KEYS: u64 = 1 << 30;

/// A `deleterange` or `deleterangeN` phase name: N keys per range, 1 to
/// [`MAX_RANGE_KEYS`] (1,000 without N).
fn parse_delete_ranges(name: &str) -> BenchResult<PhaseKind> {
    match count_after(name, "deleterange", MAX_RANGE_KEYS) {
        Ok(n) => Ok(PhaseKind::DeleteRanges(n.unwrap_or(1000))),
        Err(()) => Err(BenchError::InvalidArgument(format!(
            "workload {name:?}: a range-deletion phase is deleterange or deleterangeN with N keys per range, 1 to {MAX_RANGE_KEYS}"
        ))),
    }
}

/// The longest scan a phase name may ask for (`scanN`, `scankeysN`).
pub const MAX_SCAN_LENGTH: usize = 1_000_000;

/// A scan phase's name: `scan`, `scanN`, `scankeys` or `scankeysN`, N pairs per scan
/// from 1 to [`MAX_SCAN_LENGTH`].
fn parse_scan(name: &str) -> BenchResult<PhaseKind> {
    let rest = name.strip_prefix("scan").unwrap_or(name);
    let (keys_only, digits) = match rest.strip_prefix("keys") {
        Some(d) => (true, d),
        None => (false, rest),
    };
    match count_after(digits, "", MAX_SCAN_LENGTH as u64) {
        Ok(len) => Ok(PhaseKind::Scan {
            len: len.map(|n| n as usize),
            keys_only,
        }),
        Err(()) => Err(BenchError::InvalidArgument(format!(
            "workload {name:?}: a scan phase is scan, scanN, scankeys or scankeysN with N pairs, 1 to {MAX_SCAN_LENGTH}"
        ))),
    }
}

/// The most keys a `multigetN` request may ask for.
pub const MAX_MULTI_GET: usize = 100_000;

/// A `multiget` or `multigetN` phase name: N keys per request, 1 to [`MAX_MULTI_GET`]
/// (100 without N).
fn parse_multi_get(name: &str) -> BenchResult<PhaseKind> {
    match count_after(name, "multiget", MAX_MULTI_GET as u64) {
        Ok(n) => Ok(PhaseKind::MultiGet(n.map_or(100, |n| n as usize))),
        Err(()) => Err(BenchError::InvalidArgument(format!(
            "workload {name:?}: a multi-get phase is multiget or multigetN with N keys per request, 1 to {MAX_MULTI_GET}"
        ))),
    }
}

/// How many operations each kind of phase runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Keys loaded by fills (the key space is `0..num`).
    pub num: u64,
    /// Gets of `readrandom`, `readrandomsame` and `multigetN` (N per request), seeks of
    /// `seekrandom`.
    pub reads: u64,
    /// Puts of `overwrite` and `updatezipf`.
    pub overwrites: u64,
    /// Scans of `scan`.
    pub scans: u64,
    /// Pairs read by each scan of `scan`; the largest YCSB-E scan.
    pub scan_length: usize,
    /// Deletes of `deleterandom` (at most `num`).
    pub deletes: u64,
    /// Operations of each YCSB run phase.
    pub ycsb_ops: u64,
}

/// One phase to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseSpec {
    /// Name in reports (`readrandomsame` becomes `readrandomsame-1` and `-2`).
    pub name: String,
    /// What it does.
    pub kind: PhaseKind,
    /// Number of operations.
    pub ops: u64,
    /// Seeds this phase's random choices; equal for the two `readrandomsame` phases.
    pub seed_tag: u64,
}

/// Parses a comma-separated workload list into phases.
pub fn parse_workloads(list: &str, counts: &Counts) -> BenchResult<Vec<PhaseSpec>> {
    let mut phases = Vec::new();
    for (i, name) in list.split(',').map(str::trim).enumerate() {
        if name.is_empty() {
            continue;
        }
        let kind = PhaseKind::parse(name)?;
        let ops = match kind {
            PhaseKind::FillSeq | PhaseKind::FillRandom | PhaseKind::YcsbLoad => counts.num,
            PhaseKind::ReadRandom | PhaseKind::ReadRandomSame | PhaseKind::SeekRandom => {
                counts.reads
            }
            PhaseKind::Overwrite | PhaseKind::UpdateZipf => counts.overwrites,
            PhaseKind::MultiGet(len) => counts.reads.div_ceil(len as u64),
            PhaseKind::Scan { .. } => counts.scans,
            PhaseKind::DeleteRandom => counts.deletes.min(counts.num),
            PhaseKind::DeleteRanges(len) => counts.deletes.min(counts.num).div_ceil(len),
            PhaseKind::Ycsb(_) => counts.ycsb_ops,
            PhaseKind::Idle(_) => 0,
        };
        let seed_tag = i as u64 + 1;
        if kind == PhaseKind::ReadRandomSame {
            for pass in 1..=2 {
                phases.push(PhaseSpec {
                    name: format!("{name}-{pass}"),
                    kind,
                    ops,
                    seed_tag,
                });
            }
        } else {
            phases.push(PhaseSpec {
                name: name.to_string(),
                kind,
                ops,
                seed_tag,
            });
        }
    }
    if phases.is_empty() {
        return Err(BenchError::InvalidArgument("no workloads given".into()));
    }
    Ok(phases)
}

/// The most keys YCSB phases of `phases` can insert beyond `num`.
pub fn max_inserts(phases: &[PhaseSpec]) -> u64 {
    phases
        .iter()
        .map(|p| match p.kind {
            PhaseKind::Ycsb(m) if m.insert > 0 => p.ops,
            _ => 0,
        })
        .sum()
}

/// One operation, on key indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Put a value at the key.
    Put(u64),
    /// Get the key.
    Get(u64),
    /// Delete the key.
    Delete(u64),
    /// Delete the keys from the first (included) to the second (excluded).
    DeleteRange(u64, u64),
    /// Seek to the key and read the pair there.
    Seek(u64),
    /// Get this many uniformly random keys in one request.
    MultiGet(usize),
    /// Read this many pairs from the key on.
    Scan(u64, usize),
    /// Read this many keys from the key on, without their values.
    ScanKeys(u64, usize),
    /// Read the key, then put a new value.
    ReadModifyWrite(u64),
    /// Nothing: what an idle phase issues (it has no operations, so none is ever run).
    Pause,
}

/// The key space shared by all phases and threads: `0..num` plus keys inserted by YCSB
/// phases. Insertion index `k` maps to key index `perm(k)` for `k < num` (the order of a
/// random load) and `k` beyond. Thread-safe.
#[derive(Debug)]
pub struct KeySpace {
    num: u64,
    load_order: Permutation,
    delete_order: Permutation,
    /// Keys inserted so far, in insertion order.
    inserted: AtomicU64,
}

impl KeySpace {
    /// A key space of `num` keys, its orders chosen by `seed`.
    pub fn new(num: u64, seed: u64) -> KeySpace {
        KeySpace {
            num,
            load_order: Permutation::new(num, seed),
            delete_order: Permutation::new(num, seed ^ 0xde1e7e),
            inserted: AtomicU64::new(0),
        }
    }

    /// Keys loaded by fills.
    pub fn num(&self) -> u64 {
        self.num
    }

    /// Keys inserted so far (loads and YCSB inserts).
    pub fn inserted(&self) -> u64 {
        self.inserted.load(Ordering::Relaxed)
    }

    /// The key index of insertion index `k`.
    pub fn insert_key(&self, k: u64) -> u64 {
        if k < self.num {
            self.load_order.apply(k)
        } else {
            k
        }
    }

    /// Notes that a phase finished; loads make the whole key space exist.
    pub fn phase_done(&self, kind: PhaseKind) {
        if kind.loads() {
            self.inserted.fetch_max(self.num, Ordering::Relaxed);
        }
    }

    /// Claims the next insertion index for a YCSB insert.
    fn next_insert(&self) -> u64 {
        self.inserted.fetch_add(1, Ordering::Relaxed)
    }
}

/// Generates the operations of one thread of one phase. Not thread-safe: one per thread.
#[derive(Debug)]
pub struct OpGen {
    kind: PhaseKind,
    rng: SmallRng,
    zipf: ScrambledZipfian,
    latest: Latest,
    scan_length: usize,
}

impl OpGen {
    /// A generator for `kind` drawing from `rng`.
    pub fn new(kind: PhaseKind, rng: SmallRng, keys: &KeySpace, scan_length: usize) -> OpGen {
        OpGen {
            kind,
            rng,
            zipf: ScrambledZipfian::default(),
            latest: Latest::new(keys.inserted().max(keys.num())),
            scan_length: scan_length.max(1),
        }
    }

    /// The random source, shared with value generation so a thread's choices follow one
    /// seed.
    pub fn rng(&mut self) -> &mut SmallRng {
        &mut self.rng
    }

    /// The operation with global index `i` of the phase.
    pub fn op(&mut self, i: u64, keys: &KeySpace) -> Op {
        let n = keys.num().max(1);
        match self.kind {
            PhaseKind::FillSeq => Op::Put(i),
            PhaseKind::FillRandom | PhaseKind::YcsbLoad => Op::Put(keys.insert_key(i % n)),
            PhaseKind::ReadRandom | PhaseKind::ReadRandomSame => {
                Op::Get(self.rng.random_range(0..n))
            }
            PhaseKind::Overwrite => Op::Put(self.rng.random_range(0..n)),
            PhaseKind::UpdateZipf => Op::Put(self.zipf.next(&mut self.rng, n)),
            PhaseKind::SeekRandom => Op::Seek(self.rng.random_range(0..n)),
            PhaseKind::MultiGet(len) => Op::MultiGet(len),
            PhaseKind::Scan { len, keys_only } => {
                let start = self.rng.random_range(0..n);
                let len = len.unwrap_or(self.scan_length);
                if keys_only {
                    Op::ScanKeys(start, len)
                } else {
                    Op::Scan(start, len)
                }
            }
            PhaseKind::DeleteRandom => Op::Delete(keys.delete_order.apply(i % n)),
            PhaseKind::DeleteRanges(len) => {
                let start = i.saturating_mul(len).min(n);
                Op::DeleteRange(start, start.saturating_add(len).min(n))
            }
            PhaseKind::Ycsb(m) => self.ycsb_op(m, keys),
            PhaseKind::Idle(_) => Op::Pause,
        }
    }

    fn ycsb_op(&mut self, m: YcsbMix, keys: &KeySpace) -> Op {
        let p: u8 = self.rng.random_range(0..100);
        if p >= m.read + m.update + m.scan + m.rmw {
            return Op::Put(keys.insert_key(keys.next_insert()));
        }
        let count = keys.inserted().max(keys.num()).max(1);
        let k = match m.dist {
            RequestDist::Uniform => self.rng.random_range(0..count),
            RequestDist::ScrambledZipfian => self.zipf.next(&mut self.rng, count),
            RequestDist::Latest => self.latest.next(&mut self.rng, count),
        };
        let key = keys.insert_key(k);
        if p < m.read {
            Op::Get(key)
        } else if p < m.read + m.update {
            Op::Put(key)
        } else if p < m.read + m.update + m.scan {
            Op::Scan(key, self.rng.random_range(1..=self.scan_length))
        } else {
            Op::ReadModifyWrite(key)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn counts() -> Counts {
        Counts {
            num: 1000,
            reads: 50,
            overwrites: 70,
            scans: 5,
            scan_length: 10,
            deletes: 5000,
            ycsb_ops: 30,
        }
    }

    #[test]
    fn workload_lists_parse() {
        let p = parse_workloads(
            "fillrandom, readrandomsame,updatezipf,deleterandom,ycsb-e",
            &counts(),
        )
        .unwrap();
        let names: Vec<&str> = p.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "fillrandom",
                "readrandomsame-1",
                "readrandomsame-2",
                "updatezipf",
                "deleterandom",
                "ycsb-e"
            ]
        );
        assert_eq!(p[1].seed_tag, p[2].seed_tag);
        assert_eq!(p[0].ops, 1000);
        assert_eq!(p[1].ops, 50);
        assert_eq!(p[3].ops, 70);
        assert_eq!(p[4].ops, 1000, "deletes are capped at num");
        assert_eq!(max_inserts(&p), 30);
        for name in WORKLOAD_NAMES {
            assert!(PhaseKind::parse(name).is_ok(), "{name}");
        }
        assert!(parse_workloads("fillrandom,nope", &counts()).is_err());
        assert!(parse_workloads("ycsb-g", &counts()).is_err());
        assert!(parse_workloads("", &counts()).is_err());
    }

    #[test]
    fn multi_get_phases_read_the_reads_in_requests_of_n_keys() {
        let p = parse_workloads("multiget,multiget7", &counts()).unwrap();
        let kinds: Vec<PhaseKind> = p.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [PhaseKind::MultiGet(100), PhaseKind::MultiGet(7)]);
        // 50 reads: one request of 100 keys; ceil(50 / 7) = 8 requests of 7.
        assert_eq!(p[0].ops, 1);
        assert_eq!(p[1].ops, 8);
        assert!(p.iter().all(|s| !s.kind.writes()));
        let keys = KeySpace::new(1000, 1);
        let mut g = OpGen::new(kinds[1], SmallRng::seed_from_u64(3), &keys, 7);
        assert_eq!(g.op(0, &keys), Op::MultiGet(7));
        for bad in ["multiget0", "multigetx", "multiget100001", "multiget-1"] {
            let e = parse_workloads(bad, &counts()).unwrap_err().to_string();
            assert!(e.contains("multiget or multigetN"), "{bad}: {e}");
        }
    }

    #[test]
    fn scan_phases_parse_with_their_length_and_keys_only() {
        let p = parse_workloads("scan,scan10,scankeys,scankeys1000", &counts()).unwrap();
        let kinds: Vec<PhaseKind> = p.iter().map(|s| s.kind).collect();
        let scan = |len, keys_only| PhaseKind::Scan { len, keys_only };
        assert_eq!(
            kinds,
            [
                scan(None, false),
                scan(Some(10), false),
                scan(None, true),
                scan(Some(1000), true)
            ]
        );
        assert!(p.iter().all(|s| s.ops == 5 && !s.kind.writes()));
        let keys = KeySpace::new(1000, 1);
        let rng = || SmallRng::seed_from_u64(3);
        let mut g = OpGen::new(kinds[1], rng(), &keys, 7);
        assert!(matches!(g.op(0, &keys), Op::Scan(_, 10)));
        let mut g = OpGen::new(kinds[2], rng(), &keys, 7);
        assert!(matches!(g.op(0, &keys), Op::ScanKeys(_, 7)));
        for bad in ["scan0", "scanx", "scankeys0", "scan1000001", "scankeys-5"] {
            let e = parse_workloads(bad, &counts()).unwrap_err().to_string();
            assert!(
                e.contains("scan, scanN, scankeys or scankeysN"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn idle_phases_parse_with_their_seconds() {
        let p = parse_workloads("updatezipf,idle60,idle,idle5", &counts()).unwrap();
        let kinds: Vec<PhaseKind> = p.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                PhaseKind::UpdateZipf,
                PhaseKind::Idle(60),
                PhaseKind::Idle(60),
                PhaseKind::Idle(5)
            ]
        );
        assert_eq!(p[1].name, "idle60");
        assert_eq!(p[1].ops, 0, "an idle phase issues no operations");
        assert_eq!(p[3].kind.idle_secs(), Some(5));
        assert_eq!(p[0].kind.idle_secs(), None);
        assert!(!p[1].kind.writes());
        for bad in ["idle0", "idlex", "idle-5", "idle3601"] {
            assert!(parse_workloads(bad, &counts()).is_err(), "{bad}");
        }
    }

    #[test]
    fn ycsb_mixes_sum_to_100() {
        for l in 'a'..='f' {
            let m = YcsbMix::standard(l).unwrap();
            assert_eq!(m.read + m.update + m.insert + m.scan + m.rmw, 100, "{l}");
        }
        assert!(!PhaseKind::parse("ycsb-c").unwrap().writes());
        assert!(PhaseKind::parse("ycsb-d").unwrap().writes());
    }

    #[test]
    fn fills_visit_each_key_once() {
        let keys = KeySpace::new(1000, 3);
        let mut g = OpGen::new(PhaseKind::FillRandom, SmallRng::seed_from_u64(1), &keys, 1);
        let mut seen = std::collections::HashSet::new();
        for i in 0..1000 {
            let Op::Put(k) = g.op(i, &keys) else {
                panic!("not a put")
            };
            assert!(k < 1000);
            assert!(seen.insert(k));
        }
        let mut d = OpGen::new(
            PhaseKind::DeleteRandom,
            SmallRng::seed_from_u64(1),
            &keys,
            1,
        );
        let deleted: std::collections::HashSet<u64> = (0..1000)
            .map(|i| match d.op(i, &keys) {
                Op::Delete(k) => k,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(deleted.len(), 1000);
    }

    #[test]
    fn range_deletions_cover_each_key_once() {
        let keys = KeySpace::new(1000, 3);
        assert_eq!(
            PhaseKind::parse("deleterange").unwrap(),
            PhaseKind::DeleteRanges(1000)
        );
        assert!(PhaseKind::parse("deleterange0").is_err());
        let kind = PhaseKind::parse("deleterange300").unwrap();
        let mut g = OpGen::new(kind, SmallRng::seed_from_u64(1), &keys, 1);
        let ranges: Vec<(u64, u64)> = (0..4)
            .map(|i| match g.op(i, &keys) {
                Op::DeleteRange(a, b) => (a, b),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(ranges, [(0, 300), (300, 600), (600, 900), (900, 1000)]);
    }

    #[test]
    fn ycsb_ops_follow_the_mix() {
        let keys = KeySpace::new(1000, 3);
        keys.phase_done(PhaseKind::YcsbLoad);
        let mix = YcsbMix::standard('d').unwrap();
        let mut g = OpGen::new(PhaseKind::Ycsb(mix), SmallRng::seed_from_u64(5), &keys, 100);
        let (mut gets, mut puts) = (0, 0);
        for i in 0..10_000 {
            match g.op(i, &keys) {
                Op::Get(k) => {
                    gets += 1;
                    assert!(k < keys.inserted());
                }
                Op::Put(k) => {
                    puts += 1;
                    assert!(k >= 1000, "inserts go beyond the loaded keys");
                }
                other => panic!("{other:?}"),
            }
        }
        assert!((9_300..9_700).contains(&gets), "{gets}");
        assert_eq!(keys.inserted(), 1000 + puts);
        let mut e = OpGen::new(
            PhaseKind::Ycsb(YcsbMix::standard('e').unwrap()),
            SmallRng::seed_from_u64(5),
            &keys,
            100,
        );
        let scans = (0..1000)
            .filter(|&i| matches!(e.op(i, &keys), Op::Scan(_, l) if (1..=100).contains(&l)))
            .count();
        assert!(scans > 900, "{scans}");
    }
}

//! Phases count their operations and user bytes exactly, and track live keys, on an
//! in-memory model engine and on twain.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use twain_bench::args::{BenchArgs, Scale, parse_bench_args};
use twain_bench::runner::Runner;
use twain_bench::{BenchResult, Engine, EngineCounters, PhaseResult, TwainEngine};

/// A BTreeMap behind a mutex.
struct Model {
    map: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
    dir: PathBuf,
}

impl Engine for Model {
    fn name(&self) -> &str {
        "model"
    }
    fn dir(&self) -> &Path {
        &self.dir
    }
    fn put(&self, key: &[u8], value: &[u8]) -> BenchResult<()> {
        self.map
            .lock()
            .unwrap()
            .insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    fn get(&self, key: &[u8]) -> BenchResult<Option<usize>> {
        Ok(self.map.lock().unwrap().get(key).map(Vec::len))
    }
    fn delete(&self, key: &[u8]) -> BenchResult<()> {
        self.map.lock().unwrap().remove(key);
        Ok(())
    }
    fn scan(&self, start: &[u8], n: usize) -> BenchResult<(usize, u64)> {
        let map = self.map.lock().unwrap();
        let got: Vec<u64> = map
            .range(start.to_vec()..)
            .take(n)
            .map(|(k, v)| (k.len() + v.len()) as u64)
            .collect();
        Ok((got.len(), got.iter().sum()))
    }
    fn flush(&self) -> BenchResult<()> {
        Ok(())
    }
    fn counters(&self) -> BenchResult<EngineCounters> {
        Ok(EngineCounters::default())
    }
}

fn args(extra: &[&str]) -> BenchArgs {
    let mut argv = vec!["bench", "--quiet"];
    argv.extend_from_slice(extra);
    parse_bench_args(argv).unwrap()
}

fn run(engine: &dyn Engine, extra: &[&str]) -> Vec<PhaseResult> {
    let plan = args(extra).plan(Scale::Small).unwrap();
    let mut runner = Runner::new(plan.run.clone(), &plan.phases).unwrap();
    runner.run_all(engine, &plan.phases, |_| Ok(())).unwrap()
}

fn by_name<'a>(rs: &'a [PhaseResult], name: &str) -> &'a PhaseResult {
    rs.iter().find(|r| r.phase == name).unwrap()
}

#[test]
fn model_engine_accounting_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model {
        map: Mutex::new(BTreeMap::new()),
        dir: dir.path().to_path_buf(),
    };
    let rs = run(
        &model,
        &[
            "--num",
            "1000",
            "--value-size",
            "100",
            "--reads",
            "300",
            "--overwrites",
            "500",
            "--scans",
            "20",
            "--scan-length",
            "10",
            "--deletes",
            "400",
            "--threads",
            "3",
            "--workloads",
            "fillrandom,readrandomsame,updatezipf,seekrandom,scan,multiget7,deleterandom,readrandom,ycsb-d",
        ],
    );
    let names: Vec<&str> = rs.iter().map(|r| r.phase.as_str()).collect();
    assert_eq!(
        names,
        [
            "fillrandom",
            "readrandomsame-1",
            "readrandomsame-2",
            "updatezipf",
            "seekrandom",
            "scan",
            "multiget7",
            "deleterandom",
            "readrandom",
            "ycsb-d"
        ]
    );
    let fill = by_name(&rs, "fillrandom");
    assert_eq!(fill.ops, 1000);
    assert_eq!(fill.user_bytes, 1000 * 116);
    assert_eq!(fill.live_keys, 1000);
    assert_eq!(fill.live_bytes, 1000 * 116);

    let (a, b) = (
        by_name(&rs, "readrandomsame-1"),
        by_name(&rs, "readrandomsame-2"),
    );
    assert_eq!((a.ops, a.found, a.user_bytes), (300, 300, 0));
    assert_eq!(a.user_read_bytes, 300 * 116);
    assert_eq!(a.user_read_bytes, b.user_read_bytes);

    let upd = by_name(&rs, "updatezipf");
    assert_eq!(
        (upd.ops, upd.user_bytes, upd.live_keys),
        (500, 500 * 116, 1000)
    );

    let seek = by_name(&rs, "seekrandom");
    assert_eq!((seek.ops, seek.found), (300, 300));
    let scan = by_name(&rs, "scan");
    assert_eq!(scan.ops, 20);
    assert!(scan.user_read_bytes <= 20 * 10 * 116 && scan.user_read_bytes > 0);
    // 300 reads in requests of 7 keys: 43 requests, 301 keys, every one present.
    let multi = by_name(&rs, "multiget7");
    assert_eq!((multi.ops, multi.found), (43, 301));
    assert_eq!(multi.user_read_bytes, 301 * 116);

    let del = by_name(&rs, "deleterandom");
    assert_eq!(
        (del.ops, del.user_bytes, del.live_keys),
        (400, 400 * 16, 600)
    );
    assert_eq!(del.live_bytes, 600 * 116);

    let read = by_name(&rs, "readrandom");
    assert!(read.found < 300 && read.found > 100, "{}", read.found);

    let d = by_name(&rs, "ycsb-d");
    assert_eq!(d.ops, 300);
    let inserted = d.user_bytes / 116;
    assert!(inserted > 0 && inserted < 40, "{inserted}");
    assert_eq!(d.live_keys, 600 + inserted);
    assert_eq!(model.map.lock().unwrap().len() as u64, 600 + inserted);
    for r in &rs {
        assert!(r.secs > 0.0 && r.ops_per_sec > 0.0, "{}", r.phase);
        assert_eq!(r.threads, 3);
    }
}

#[test]
fn value_mixes_are_accounted_by_their_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model {
        map: Mutex::new(BTreeMap::new()),
        dir: dir.path().to_path_buf(),
    };
    let rs = run(
        &model,
        &[
            "--num",
            "2000",
            "--value-size",
            "ld",
            "--workloads",
            "fillseq",
        ],
    );
    let stored: u64 = model
        .map
        .lock()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.len() + v.len()) as u64)
        .sum();
    assert_eq!(rs[0].user_bytes, stored);
    assert_eq!(rs[0].live_bytes, stored);
    let keys: Vec<Vec<u8>> = model.map.lock().unwrap().keys().cloned().collect();
    assert_eq!(keys.first().unwrap()[..8], 0u64.to_be_bytes());
    assert_eq!(keys.last().unwrap()[..8], 1999u64.to_be_bytes());
}

#[test]
fn twain_engine_reports_io_and_engine_counters() {
    let dir = tempfile::tempdir().unwrap();
    let engine = TwainEngine::open(dir.path(), twain::Options::default(), false).unwrap();
    let rs = run(
        &engine,
        &[
            "--num",
            "2000",
            "--value-size",
            "512",
            "--reads",
            "500",
            "--overwrites",
            "1000",
            "--scans",
            "10",
            "--workloads",
            "fillrandom,readrandom,updatezipf,scan,multiget",
        ],
    );
    let fill = &rs[0];
    assert_eq!(fill.user_bytes, 2000 * 528);
    // The value log holds every byte; up to its buffer (1 MiB) may not be written yet.
    let slack = 2 << 20;
    assert!(fill.wchar > 0 && fill.wchar + slack >= fill.user_bytes);
    assert!(fill.engine_bytes_written.unwrap() + slack >= fill.user_bytes);
    assert!(fill.db_bytes + slack >= fill.user_bytes);
    let wamp = fill.write_amp_engine.unwrap();
    assert!((0.5..1.5).contains(&wamp), "{wamp}");
    assert!(fill.space_amp.unwrap() > 0.5);
    let read = &rs[1];
    assert_eq!(read.found, 500);
    assert!(read.p50_us > 0.0 && read.p99_us >= read.p50_us && read.p999_us >= read.p99_us);
    assert_eq!(rs[2].user_bytes, 1000 * 528);
    assert_eq!(rs[3].ops, 10);
    // twain answers a multi-get request itself and reports its read counters.
    let multi = &rs[4];
    assert_eq!((multi.ops, multi.found), (5, 500));
    assert!(multi.reads["value_reads"] > 0);
    assert!(multi.reads["multi_get_reads"] > 0);
    assert_eq!(rs[1].reads["multi_get_reads"], 0);
}

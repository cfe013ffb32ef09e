//! Every phase reports its tail (p99.9 and maximum) next to p50/p99, its stall counters,
//! and a latency-over-time series that accounts for each operation; the table shows the
//! maximum and one column per stall counter, and the plot draws latency over time.

use twain_bench::args::{Scale, parse_bench_args};
use twain_bench::runner::Runner;
use twain_bench::{PhaseResult, TwainEngine, report};

fn run(dir: &std::path::Path) -> Vec<PhaseResult> {
    let args = parse_bench_args([
        "bench",
        "--quiet",
        "--num",
        "3000",
        "--reads",
        "500",
        "--threads",
        "2",
        "--workloads",
        "fillrandom,readrandom,overwrite",
    ])
    .unwrap();
    let plan = args.plan(Scale::Small).unwrap();
    let engine = TwainEngine::open(dir, twain::Options::default(), false).unwrap();
    Runner::new(plan.run.clone(), &plan.phases)
        .unwrap()
        .run_all(&engine, &plan.phases, |_| Ok(()))
        .unwrap()
}

#[test]
fn every_phase_reports_tails_stalls_and_latency_over_time() {
    let dir = tempfile::tempdir().unwrap();
    let rs = run(&dir.path().join("db"));
    assert_eq!(rs.len(), 3);
    for r in &rs {
        assert!(r.p50_us <= r.p99_us && r.p99_us <= r.p999_us, "{}", r.phase);
        assert!(r.p999_us <= r.max_us && r.max_us > 0.0, "{}", r.phase);
        assert_eq!(r.stalls.get("slowdowns"), Some(&0), "{}", r.phase);
        let s = &r.latency_over_time;
        assert_eq!(s.ops.iter().sum::<u64>(), r.ops, "{}", r.phase);
        // The largest interval maximum is the phase's maximum (the histogram's value is
        // rounded up to 3 significant digits, the interval's is exact).
        let max = s.max_us.iter().flatten().copied().fold(0.0, f64::max);
        assert!(
            max <= r.max_us && max >= r.max_us * 0.99,
            "{max} {}",
            r.max_us
        );
        for (p99, max) in s.p99_us.iter().zip(&s.max_us) {
            assert_eq!(p99.is_some(), max.is_some());
        }
    }

    let table = report::table(&rs);
    let header = table.lines().next().unwrap();
    for column in [
        "p50us",
        "p99us",
        "p99.9us",
        "max us",
        "stall ms",
        "slowdowns",
    ] {
        assert!(header.contains(column), "{column}: {header}");
    }
    // Every row has a cell under each column: six column names hold a space.
    let cells = header.split_whitespace().count() - 6;
    for row in table.lines().skip(1) {
        assert_eq!(row.split_whitespace().count(), cells, "{row}\n{header}");
    }

    let svg = dir.path().join("plot.svg");
    twain_bench::plot::plot(&rs, "tails", &svg).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("latency per 0.1 s interval"),
        "no latency chart"
    );
    assert!(text.contains("throughput, sampled each second"));
}

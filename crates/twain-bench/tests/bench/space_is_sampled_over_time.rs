//! While phases run, space is sampled against cumulative bytes written, an idle phase
//! reports its CPU use, the series survive the JSON lines, and the plot draws them.

use twain_bench::args::{Scale, parse_bench_args};
use twain_bench::report::parse_json_lines;
use twain_bench::runner::Runner;
use twain_bench::space::engine_series;
use twain_bench::{PhaseResult, TwainEngine};

#[test]
fn space_series_idle_cpu_and_plot() {
    let args = parse_bench_args([
        "bench",
        "--quiet",
        "--num",
        "3000",
        "--overwrites",
        "3000",
        "--reads",
        "100",
        "--workloads",
        "fillrandom,updatezipf,idle2,readrandom",
    ])
    .unwrap();
    let plan = args.plan(Scale::Small).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let options = twain::Options::default()
        .memtable_size(64 << 10)
        .value_file_size(256 << 10);
    let engine = TwainEngine::open(&dir.path().join("db"), options, false).unwrap();
    let results: Vec<PhaseResult> = Runner::new(plan.run.clone(), &plan.phases)
        .unwrap()
        .run_all(&engine, &plan.phases, |_| Ok(()))
        .unwrap();
    assert_eq!(results.len(), 4);

    let mut written = 0;
    for r in &results {
        written += r.user_bytes;
        assert!(!r.space_over_time.is_empty(), "{}", r.phase);
        // The last sample is the phase end: the phase's own figures.
        let end = r.space_over_time.last().unwrap();
        assert_eq!(end.user_bytes, written, "{}", r.phase);
        assert_eq!(
            (end.db_bytes, end.live_bytes),
            (r.db_bytes, r.live_bytes),
            "{}",
            r.phase
        );
        assert_eq!(end.space_amp(), r.space_amp);
        // Cumulative bytes never go down, within a phase or across.
        assert!(
            r.space_over_time
                .windows(2)
                .all(|w| w[0].user_bytes <= w[1].user_bytes && w[0].secs <= w[1].secs)
        );
    }
    let idle = &results[2];
    assert_eq!((idle.phase.as_str(), idle.ops), ("idle2", 0));
    assert!(idle.secs >= 2.0, "{}", idle.secs);
    assert!(
        idle.space_over_time.len() >= 2,
        "sampled each second while idle"
    );
    let pct = idle
        .idle_cpu_pct
        .expect("an idle phase reports its CPU use");
    assert!(pct.is_finite() && pct >= 0.0, "{pct}");
    assert!(results.iter().filter(|r| r.idle_cpu_pct.is_some()).count() == 1);

    let lines: String = results.iter().map(|r| r.to_json() + "\n").collect();
    let parsed = parse_json_lines(&lines);
    let bytes = |rs: &[PhaseResult]| -> Vec<Vec<(u64, u64, u64)>> {
        rs.iter()
            .map(|r| {
                r.space_over_time
                    .iter()
                    .map(|s| (s.user_bytes, s.db_bytes, s.live_bytes))
                    .collect()
            })
            .collect()
    };
    assert_eq!(bytes(&parsed), bytes(&results), "the series survive JSON");
    assert!(parsed[2].idle_cpu_pct.is_some());
    let series = engine_series(&parsed, "twain");
    assert!(series.len() >= results.len());
    assert_eq!(series.last().map(|p| p.0), Some(written));

    let svg = dir.path().join("space.svg");
    twain_bench::plot::plot(&parsed, "space", &svg).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("space amplification"),
        "the space chart is drawn"
    );
    assert!(text.contains("idle2"), "phase starts are labelled");
}

//! `--json` lines carry issue 3's schema, issue 20's tail latencies, stall counters and
//! latency over time, and parse back.

use twain_bench::args::{Scale, parse_bench_args};
use twain_bench::report::parse_json_lines;
use twain_bench::runner::Runner;
use twain_bench::{PhaseResult, TwainEngine};

/// The fields issue 3 requires, with their JSON types.
const SCHEMA: &[(&str, &str)] = &[
    ("engine", "string"),
    ("phase", "string"),
    ("ops", "int"),
    ("secs", "float"),
    ("ops_per_sec", "float"),
    ("user_bytes", "int"),
    ("wchar", "int"),
    ("write_bytes", "int"),
    ("read_bytes", "int"),
    ("db_bytes", "int"),
    ("p50_us", "float"),
    ("p99_us", "float"),
];

/// The fields issue 20 adds, with their JSON types.
const TAILS: &[(&str, &str)] = &[
    ("p999_us", "float"),
    ("max_us", "float"),
    ("stall_micros", "int"),
    ("stalls", "object"),
    ("latency_over_time", "object"),
];

/// Checks one JSON line against [`SCHEMA`] and [`TAILS`].
pub fn check_schema(line: &str) {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for (field, kind) in SCHEMA.iter().chain(TAILS) {
        let f = v
            .get(field)
            .unwrap_or_else(|| panic!("{field} missing in {line}"));
        let ok = match *kind {
            "string" => f.is_string(),
            "int" => f.is_u64(),
            "object" => f.is_object(),
            _ => f.is_number(),
        };
        assert!(ok, "{field} is not a {kind}: {f}");
    }
    // twain reports its slowdowns, and the live bytes its GC left in place rather than
    // copied (0 in the log layout); the series has one entry per interval in each list.
    assert!(v["stalls"]["slowdowns"].is_u64(), "{line}");
    assert!(v["gc_bytes_not_copied"].is_u64(), "{line}");
    let series = &v["latency_over_time"];
    assert!(series["interval_secs"].as_f64().unwrap() >= 0.1, "{line}");
    let len = |f: &str| series[f].as_array().unwrap().len();
    assert_eq!(len("ops"), len("p99_us"));
    assert_eq!(len("ops"), len("max_us"));
    let ops: u64 = series["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_u64().unwrap())
        .sum();
    assert_eq!(ops, v["ops"].as_u64().unwrap(), "{line}");
}

#[test]
fn json_lines_carry_the_schema_and_round_trip() {
    let args = parse_bench_args([
        "bench",
        "--quiet",
        "--num",
        "500",
        "--reads",
        "100",
        "--scans",
        "5",
        "--workloads",
        "fillrandom,readrandom,scan",
    ])
    .unwrap();
    let plan = args.plan(Scale::Small).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = TwainEngine::open(dir.path(), twain::Options::default(), false).unwrap();
    let mut lines = String::new();
    let results: Vec<PhaseResult> = Runner::new(plan.run.clone(), &plan.phases)
        .unwrap()
        .run_all(&engine, &plan.phases, |r| {
            lines.push_str(&r.to_json());
            lines.push('\n');
            Ok(())
        })
        .unwrap();
    assert_eq!(lines.lines().count(), 3);
    for line in lines.lines() {
        check_schema(line);
    }
    let parsed = parse_json_lines(&format!("# a comment\n{lines}"));
    assert_eq!(parsed.len(), results.len());
    for (p, r) in parsed.iter().zip(&results) {
        assert_eq!(
            (
                &p.engine,
                &p.phase,
                p.ops,
                p.user_bytes,
                p.wchar,
                p.db_bytes
            ),
            (
                &r.engine,
                &r.phase,
                r.ops,
                r.user_bytes,
                r.wchar,
                r.db_bytes
            )
        );
        assert!((p.ops_per_sec - r.ops_per_sec).abs() <= 1e-9 * r.ops_per_sec);
        assert_eq!(p.write_amp_engine.is_some(), r.write_amp_engine.is_some());
        assert_eq!((p.p999_us, p.max_us), (r.p999_us, r.max_us));
        assert_eq!(p.stalls, r.stalls);
        assert_eq!(p.latency_over_time, r.latency_over_time);
    }
    assert_eq!(parsed[0].engine, "twain");
    assert_eq!(parsed[1].phase, "readrandom");
}

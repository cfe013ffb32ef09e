//! `--json` lines carry issue 3's schema and parse back.

use twain_bench::args::{BenchArgs, Scale};
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

/// Checks one JSON line against [`SCHEMA`].
pub fn check_schema(line: &str) {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for (field, kind) in SCHEMA {
        let f = v
            .get(field)
            .unwrap_or_else(|| panic!("{field} missing in {line}"));
        let ok = match *kind {
            "string" => f.is_string(),
            "int" => f.is_u64(),
            _ => f.is_number(),
        };
        assert!(ok, "{field} is not a {kind}: {f}");
    }
}

#[test]
fn json_lines_carry_the_schema_and_round_trip() {
    use clap::Parser;
    #[derive(Parser)]
    struct A {
        #[command(flatten)]
        b: BenchArgs,
    }
    let args = A::parse_from([
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
    .b;
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
    }
    assert_eq!(parsed[0].engine, "twain");
    assert_eq!(parsed[1].phase, "readrandom");
}

//! Issue 10's summary: whole-run write amplification per engine, and the targets for
//! space (after `updatezipf`, after an idle phase, at the end of the run), idle CPU and
//! `updatezipf` throughput.

use twain_bench::report::{self, PhaseResult};
use twain_bench::space::whole_run_write_amp_net;

/// Idle CPU (percent of one core, every thread of the process) that still counts as "no
/// engine thread busy": the benchmark's own once-a-second sampling stays far below it.
const IDLE_CPU_PCT_MAX: f64 = 1.0;

fn fmt(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map_or("-".into(), |x| format!("{x:.2}"))
}

/// Whole-run write amplification, one column per engine: net `/proc` bytes summed over
/// every phase, and the engine's own counters over the run.
pub fn whole_run(all: &[PhaseResult], engines: &[String]) -> String {
    let mut head = vec!["whole run".to_string()];
    head.extend(engines.iter().cloned());
    let net = engines.iter().map(|e| fmt(whole_run_write_amp_net(all, e)));
    let engine_counted = engines.iter().map(|e| {
        let last = all
            .iter()
            .filter(|r| &r.engine == e)
            .max_by_key(|r| r.index);
        fmt(last.and_then(|r| r.cum_write_amp_engine))
    });
    let rows = vec![
        head,
        std::iter::once("(write_bytes - cancelled) / user bytes".to_string())
            .chain(net)
            .collect(),
        std::iter::once("engine counters / user bytes".to_string())
            .chain(engine_counted)
            .collect(),
    ];
    format!(
        "## whole-run write amplification (all phases, idle ones included)\n{}",
        report::render(&rows)
    )
}

/// Issue 10's targets for twain, each as a measured value and whether it is met; targets
/// whose engines or phases are not in the run are skipped.
pub fn targets(all: &[PhaseResult]) -> String {
    let mut rows = vec![vec![
        "target".to_string(),
        "measured".to_string(),
        "met".to_string(),
    ]];
    let mut add = |what: String, value: Option<f64>, ok: &dyn Fn(f64) -> bool| {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            let met = if ok(v) { "yes" } else { "NO" };
            rows.push(vec![what, format!("{v:.2}"), met.to_string()]);
        }
    };
    let get =
        |engine: &str, index: usize| all.iter().find(|r| r.engine == engine && r.index == index);
    for t in all.iter().filter(|r| r.engine == "twain") {
        let (name, index) = (&t.phase, t.index);
        if name == "updatezipf" {
            for peer in ["rocksdb", "blobdb"] {
                let ratio = get(peer, index)
                    .filter(|p| p.ops_per_sec > 0.0)
                    .map(|p| t.ops_per_sec / p.ops_per_sec);
                add(format!("{name}: twain/{peer} ops/s >= 2.0"), ratio, &|v| {
                    v >= 2.0
                });
            }
            add(
                format!("{name}: twain space amp at its end <= 1.5"),
                t.space_amp,
                &|v| v <= 1.5,
            );
        }
        if t.idle_cpu_pct.is_some() {
            add(
                format!("{name} #{index}: twain space amp after it <= 1.2"),
                t.space_amp,
                &|v| v <= 1.2,
            );
            add(
                format!(
                    "{name} #{index}: twain idle CPU ~0 (% of a core, last <= 5 s; <= {IDLE_CPU_PCT_MAX})"
                ),
                t.idle_cpu_pct,
                &|v| v <= IDLE_CPU_PCT_MAX,
            );
        }
    }
    if let Some(last) = all
        .iter()
        .filter(|r| r.engine == "twain")
        .max_by_key(|r| r.index)
    {
        add(
            format!(
                "twain space amp at the end of the run ({}) <= 1.2",
                last.phase
            ),
            last.space_amp,
            &|v| v <= 1.2,
        );
    }
    format!("## issue 10 targets\n{}", report::render(&rows))
}

//! The over-time figure of a long run: per engine, throughput, space amplification,
//! cumulative write amplification and (in a memory cgroup) memory use, each against the
//! seconds since that engine's run began, one panel per metric, as SVG.

use crate::error::BenchResult;
use crate::plot::{legend, perr};
use crate::report::PhaseResult;
use plotters::prelude::*;
use std::path::Path;

/// One line: an engine's points `(seconds, value)`.
type Line = (String, Vec<(f64, f64)>);

/// Every engine of `results`, in the order they first appear.
fn engines(results: &[PhaseResult]) -> Vec<&str> {
    let mut engines: Vec<&str> = Vec::new();
    for r in results {
        if !engines.contains(&r.engine.as_str()) {
            engines.push(&r.engine);
        }
    }
    engines
}

/// `(seconds since the engine's run began, value)` for every space sample of `engine`
/// that `value` has a figure for, in time order.
fn sampled(
    results: &[PhaseResult],
    engine: &str,
    value: impl Fn(&crate::space::SpaceSample) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut phases: Vec<&PhaseResult> = results.iter().filter(|r| r.engine == engine).collect();
    phases.sort_by_key(|r| r.index);
    phases
        .iter()
        .flat_map(|r| {
            r.space_over_time
                .iter()
                .filter_map(|s| Some((r.start_secs + s.secs, value(s)?)))
        })
        .collect()
}

/// The one-second throughput samples of `engine`, against seconds since its run began.
fn throughput(results: &[PhaseResult], engine: &str) -> Vec<(f64, f64)> {
    let mut phases: Vec<&PhaseResult> = results.iter().filter(|r| r.engine == engine).collect();
    phases.sort_by_key(|r| r.index);
    phases
        .iter()
        .flat_map(|r| {
            r.throughput
                .iter()
                .enumerate()
                .map(|(k, &v)| (r.start_secs + k as f64 + 1.0, v))
        })
        .collect()
}

/// The lines of one metric, one per engine.
fn lines(results: &[PhaseResult], f: impl Fn(&str) -> Vec<(f64, f64)>) -> Vec<Line> {
    engines(results)
        .into_iter()
        .map(|e| (e.to_string(), f(e)))
        .collect()
}

/// Draws the over-time figure of `results` into an SVG file at `path`: throughput,
/// space amplification (du / live bytes), cumulative write amplification (bytes the
/// process wrote to storage / user bytes) and, when any sample has it, the memory
/// cgroup's usage.
pub fn plot_over_time(results: &[PhaseResult], title: &str, path: &Path) -> BenchResult<()> {
    let mut panels: Vec<(&str, &str, Vec<Line>)> = vec![
        (
            "throughput, sampled each second",
            "kops/s",
            lines(results, |e| {
                throughput(results, e)
                    .into_iter()
                    .map(|(t, v)| (t, v / 1000.0))
                    .collect()
            }),
        ),
        (
            "space amplification (du / live key+value bytes)",
            "space amp",
            lines(results, |e| sampled(results, e, |s| s.space_amp())),
        ),
        (
            "cumulative write amplification (bytes written to storage / user bytes)",
            "write amp",
            lines(results, |e| sampled(results, e, |s| s.write_amp())),
        ),
    ];
    let memory = lines(results, |e| {
        sampled(results, e, |s| s.mem_bytes.map(|b| b as f64 / 1048576.0))
    });
    if memory.iter().any(|(_, p)| !p.is_empty()) {
        panels.push(("memory cgroup usage (memory + page cache)", "MiB", memory));
    }
    let height = 360;
    let base = SVGBackend::new(path, (1100, 40 + height * panels.len() as u32)).into_drawing_area();
    base.fill(&WHITE).map_err(perr)?;
    let root = base.titled(title, ("sans-serif", 18)).map_err(perr)?;
    let areas = root.split_evenly((panels.len(), 1));
    let t_max = panels
        .iter()
        .flat_map(|(_, _, l)| l.iter().flat_map(|(_, p)| p.iter().map(|q| q.0)))
        .fold(1.0, f64::max)
        * 1.02;
    for (area, (caption, unit, lines)) in areas.iter().zip(panels) {
        panel(area, caption, unit, &lines, t_max)?;
    }
    base.present().map_err(perr)?;
    Ok(())
}

/// One panel: every engine's line against seconds, from 0 to `t_max`.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    caption: &str,
    unit: &str,
    lines: &[Line],
    t_max: f64,
) -> BenchResult<()> {
    let y_max = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_max, 0.0..y_max)
        .map_err(perr)?;
    chart
        .configure_mesh()
        .x_desc("seconds since the engine's run began")
        .y_desc(unit)
        .y_label_formatter(&|v| format!("{v:.1}"))
        .draw()
        .map_err(perr)?;
    for (i, (engine, points)) in lines.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
            .map_err(perr)?
            .label(engine.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::parse_json_lines;
    use crate::space::SpaceSample;

    #[test]
    fn samples_are_placed_at_run_time_and_drawn() {
        let line = r#"{"engine":"a","phase":"fill","ops":0,"secs":2.0,"ops_per_sec":0.0,"user_bytes":0,"wchar":0,"write_bytes":0,"read_bytes":0,"db_bytes":0,"p50_us":0.0,"p99_us":0.0,"index":0,"threads":1,"value_dist":"100","start_secs":0.0,"user_read_bytes":0,"found":0,"mb_per_sec":0.0,"p999_us":0.0,"max_us":0.0,"rchar":0,"cancelled_write_bytes":0,"live_keys":0,"live_bytes":0,"write_amp_io":null,"write_amp_io_net":null,"write_amp_wchar":null,"write_amp_engine":null,"read_amp_io":null,"read_amp_rchar":null,"read_amp_engine":null,"space_amp":null,"engine_bytes_written":null,"engine_user_read_bytes":null,"log_bytes":null,"flush_bytes":null,"compaction_read_bytes":null,"compaction_write_bytes":null,"gc_read_bytes":null,"gc_write_bytes":null,"stall_micros":null,"gc_runs":null,"gc_lsm_lookups":null,"svtable_searches":null,"handle_fixups":null,"cum_write_amp_io":null,"cum_write_amp_engine":null,"min_sample_ops_per_sec":null,"cpu_secs":0.0,"cpu_us_per_op":0.0,"load_avg":0.0,"throughput":[10.0,20.0]}"#;
        let mut first = parse_json_lines(line).remove(0);
        first.space_over_time = vec![SpaceSample {
            secs: 1.0,
            user_bytes: 100,
            db_bytes: 300,
            live_bytes: 100,
            write_bytes: 150,
            mem_bytes: Some(1 << 20),
        }];
        let mut second = first.clone();
        (second.index, second.start_secs, second.phase) = (1, 2.0, "update".into());
        second.space_over_time[0].mem_bytes = None;
        let results = [second, first];
        assert_eq!(
            sampled(&results, "a", |s| s.write_amp()),
            [(1.0, 1.5), (3.0, 1.5)]
        );
        assert_eq!(
            throughput(&results, "a"),
            [(1.0, 10.0), (2.0, 20.0), (3.0, 10.0), (4.0, 20.0)]
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.svg");
        plot_over_time(&results, "t", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("memory cgroup usage"), "a memory panel");
        assert!(svg.contains("cumulative write amplification"));
    }
}

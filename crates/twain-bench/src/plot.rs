//! The plot: throughput over time, latency over time, ops/s per phase and space
//! amplification against bytes written (top to bottom), as SVG.

use crate::error::{BenchError, BenchResult};
use crate::report::PhaseResult;
use crate::space::{engine_series, phase_starts};
use plotters::coord::CoordTranslate;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

pub(crate) fn perr(e: impl std::fmt::Display) -> BenchError {
    BenchError::Plot(e.to_string())
}

/// Draws `results` (one engine or several) into an SVG file at `path`.
///
/// Top: the one-second throughput samples against seconds since the engine's run began,
/// one colour per phase when there is one engine, one per engine otherwise. Middle: the
/// p99 (lines) and maximum (dots) latency of each interval of [`crate::timeline`], same
/// axis and colours, log scale. Third: ops/s of each phase, one bar per engine. Bottom:
/// space amplification (du / live bytes) against the user bytes written since the run
/// began, one line per engine, phase starts marked by dashed lines.
pub fn plot(results: &[PhaseResult], title: &str, path: &Path) -> BenchResult<()> {
    let mut engines: Vec<&str> = Vec::new();
    for r in results {
        if !engines.contains(&r.engine.as_str()) {
            engines.push(&r.engine);
        }
    }
    let mut phases: Vec<(usize, &str)> = Vec::new();
    for r in results {
        if !phases.iter().any(|&(i, _)| i == r.index) {
            phases.push((r.index, &r.phase));
        }
    }
    phases.sort_unstable();
    let color = |i: usize| Palette99::pick(i).to_rgba();

    // The legend entry and colour of a result's lines: its phase when there is one
    // engine, its engine otherwise.
    let mut phase_names: Vec<&str> = Vec::new();
    for (_, name) in &phases {
        if !phase_names.contains(name) {
            phase_names.push(name);
        }
    }
    let key_of = |r: &PhaseResult| -> (String, RGBAColor) {
        if engines.len() == 1 {
            let pos = phase_names.iter().position(|n| *n == r.phase).unwrap_or(0);
            (r.phase.clone(), color(pos))
        } else {
            let pos = engines.iter().position(|e| *e == r.engine).unwrap_or(0);
            (r.engine.clone(), color(pos))
        }
    };

    let base = SVGBackend::new(path, (1100, 1620)).into_drawing_area();
    base.fill(&WHITE).map_err(perr)?;
    let root = base.titled(title, ("sans-serif", 18)).map_err(perr)?;
    let (top, rest) = root.split_vertically(400);
    let (middle, rest) = rest.split_vertically(400);
    let (bottom, space) = rest.split_vertically(400);

    // Throughput over time.
    let t_max = results
        .iter()
        .map(|r| {
            let s = &r.latency_over_time;
            let latency_end = s.ops.len() as f64 * s.interval_secs;
            r.start_secs + r.secs.max(r.throughput.len() as f64).max(latency_end)
        })
        .fold(1.0, f64::max);
    let y_max = results
        .iter()
        .flat_map(|r| r.throughput.iter().copied().chain([r.ops_per_sec]))
        .fold(1.0, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&top)
        .caption("throughput, sampled each second", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_max, 0.0..y_max)
        .map_err(perr)?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("ops/s")
        .y_label_formatter(&|v| format!("{:.0}k", v / 1000.0))
        .draw()
        .map_err(perr)?;
    let mut labelled: Vec<String> = Vec::new();
    for r in results {
        let (key, c) = key_of(r);
        let points: Vec<(f64, f64)> = r
            .throughput
            .iter()
            .enumerate()
            .map(|(k, &v)| (r.start_secs + k as f64 + 1.0, v))
            .collect();
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 2, c.filled())))
            .map_err(perr)?;
        let series = chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)))
            .map_err(perr)?;
        if !labelled.contains(&key) {
            series.label(key.clone()).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
            });
            labelled.push(key);
        }
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;

    latency_chart(&middle, results, t_max, &key_of)?;

    // Ops/s per phase, one bar per engine.
    let n = phases.len().max(1) as f64;
    let bar_max = results.iter().map(|r| r.ops_per_sec).fold(10.0, f64::max) * 2.0;
    let mut bars = ChartBuilder::on(&bottom)
        .caption("ops/s per phase (log scale)", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n, (1.0..bar_max).log_scale())
        .map_err(perr)?;
    bars.configure_mesh()
        .disable_x_mesh()
        .disable_x_axis()
        .y_desc("ops/s")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(perr)?;
    let width = 0.8 / engines.len().max(1) as f64;
    for (ei, engine) in engines.iter().enumerate() {
        let c = color(ei);
        let rects: Vec<Rectangle<(f64, f64)>> = results
            .iter()
            .filter(|r| r.engine == *engine)
            .filter_map(|r| {
                let pos = phases.iter().position(|&(i, _)| i == r.index)? as f64;
                let x0 = pos + 0.1 + ei as f64 * width;
                Some(Rectangle::new(
                    [(x0, 1.0), (x0 + width, r.ops_per_sec.max(1.0))],
                    c.filled(),
                ))
            })
            .collect();
        let series = bars.draw_series(rects).map_err(perr)?;
        if engines.len() > 1 {
            series
                .label(engine.to_string())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 15, y + 5)], c.filled()));
        }
    }
    if engines.len() > 1 {
        legend(&mut bars, SeriesLabelPosition::UpperRight)?;
    }
    let style = TextStyle::from(("sans-serif", 12)).pos(Pos::new(HPos::Center, VPos::Top));
    for (pos, (_, name)) in phases.iter().enumerate() {
        let (x, y) = bars.backend_coord(&(pos as f64 + 0.5, 1.0));
        let y = y + 4 + 14 * (pos as i32 % 2);
        base.draw(&Text::new(name.to_string(), (x, y), style.clone()))
            .map_err(perr)?;
    }
    space_chart(&space, results, &engines, &color)?;
    base.present().map_err(perr)?;
    Ok(())
}

/// Draws the legend of `chart`'s labelled series at `pos`.
pub(crate) fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
) -> BenchResult<()> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(pos)
        .draw()
        .map_err(perr)
}

/// The space chart: each engine's space amplification against the user bytes (GB)
/// written since its run began, with the first engine's phase starts as dashed lines.
fn space_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    results: &[PhaseResult],
    engines: &[&str],
    color: &dyn Fn(usize) -> RGBAColor,
) -> BenchResult<()> {
    let gb = |b: u64| b as f64 / 1e9;
    let series: Vec<Vec<(f64, f64)>> = engines
        .iter()
        .map(|e| {
            engine_series(results, e)
                .into_iter()
                .map(|(x, y)| (gb(x), y))
                .collect()
        })
        .collect();
    let x_max = series
        .iter()
        .flatten()
        .map(|p| p.0)
        .fold(0.0, f64::max)
        .max(1e-6)
        * 1.02;
    let y_max = series.iter().flatten().map(|p| p.1).fold(1.5, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "space amplification (du / live key+value bytes) against bytes written",
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(perr)?;
    chart
        .configure_mesh()
        .x_desc("user bytes written, GB")
        .y_desc("space amp")
        .y_label_formatter(&|v| format!("{v:.1}"))
        .draw()
        .map_err(perr)?;
    let dash = BLACK.mix(0.4);
    let label = TextStyle::from(("sans-serif", 11));
    let starts = engines
        .first()
        .map(|e| phase_starts(results, e))
        .unwrap_or_default();
    for (k, (at, name)) in starts.iter().enumerate() {
        let x = gb(*at);
        let dashes = (0..40).map(|i| {
            let y0 = y_max * i as f64 / 40.0;
            PathElement::new(vec![(x, y0), (x, y0 + y_max / 80.0)], dash.stroke_width(1))
        });
        chart.draw_series(dashes).map_err(perr)?;
        // Names sit below space amp 1, where lines rarely go, staggered because phases
        // that write nothing start where the previous one ended; near the right edge
        // they end at their line instead of starting there.
        let y = y_max * (0.02 + 0.045 * (k % 6) as f64);
        let h = if x > 0.8 * x_max {
            HPos::Right
        } else {
            HPos::Left
        };
        let style = label.pos(Pos::new(h, VPos::Bottom));
        chart
            .draw_series([Text::new(format!(" {name} "), (x, y), style)])
            .map_err(perr)?;
    }
    for (ei, (engine, points)) in engines.iter().zip(series).enumerate() {
        let c = color(ei);
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 2, c.filled())))
            .map_err(perr)?;
        chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)))
            .map_err(perr)?
            .label(engine.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    Ok(())
}

/// The latency-over-time chart: per result, its intervals' p99 as lines (broken where no
/// operation completed) and their maxima as dots, on a log scale of microseconds.
fn latency_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    results: &[PhaseResult],
    t_max: f64,
    key_of: &dyn Fn(&PhaseResult) -> (String, RGBAColor),
) -> BenchResult<()> {
    let values = || {
        results.iter().flat_map(|r| {
            let s = &r.latency_over_time;
            s.p99_us.iter().chain(&s.max_us).filter_map(|v| *v)
        })
    };
    let lo = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    let hi = values().fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() && hi > 0.0 {
        (lo / 1.5, hi * 1.5)
    } else {
        (1.0, 10.0)
    };
    let interval = results
        .iter()
        .map(|r| r.latency_over_time.interval_secs)
        .fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("latency per {interval:.1} s interval: p99 (lines), max (dots), log scale"),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_max, (lo..hi).log_scale())
        .map_err(perr)?;
    chart
        .configure_mesh()
        .x_desc("seconds")
        .y_desc("us")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()
        .map_err(perr)?;
    let mut labelled: Vec<String> = Vec::new();
    for r in results {
        let (key, c) = key_of(r);
        let s = &r.latency_over_time;
        let at = |k: usize| r.start_secs + (k as f64 + 1.0) * s.interval_secs;
        let maxima = s
            .max_us
            .iter()
            .enumerate()
            .filter_map(|(k, v)| Some(Circle::new((at(k), (*v)?), 2, c.filled())));
        chart.draw_series(maxima).map_err(perr)?;
        // One line per run of intervals that completed operations.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for (k, v) in s.p99_us.iter().enumerate() {
            match (v, runs.last_mut()) {
                (Some(v), Some(run)) => run.push((at(k), *v)),
                (None, Some(run)) if !run.is_empty() => runs.push(Vec::new()),
                _ => {}
            }
        }
        for run in runs.into_iter().filter(|run| !run.is_empty()) {
            let series = chart
                .draw_series(LineSeries::new(run, c.stroke_width(2)))
                .map_err(perr)?;
            if !labelled.contains(&key) {
                series.label(key.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
                labelled.push(key.clone());
            }
        }
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    Ok(())
}

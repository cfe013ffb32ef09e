//! Latency over time: the operations of a phase grouped by the interval in which they
//! completed, each interval summarised by its p99 and its maximum.
//!
//! Each worker keeps the histogram of its current interval ([`IntervalRecorder`]) and hands
//! it to the phase's shared [`Timeline`] when the interval ends, so threads meet on a lock
//! about once per interval, not once per operation. The timeline holds at most
//! `max_points` intervals: when a phase outlasts them, neighbouring intervals are merged
//! pairwise and the interval doubles (100 ms, 200 ms, 400 ms, ...). Merging adds the
//! histograms, so a merged interval's p99 is that of all its operations.

use crate::report::LatencySeries;
use hdrhistogram::Histogram;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The finest interval of the series.
pub const BASE_INTERVAL: Duration = Duration::from_millis(100);

/// The most intervals a phase's series keeps (a phase of up to 60 s keeps 100 ms ones).
pub const MAX_POINTS: usize = 600;

/// Latencies recorded per interval: from 1 ns to 1 hour, 2 significant digits (1%), with
/// 32-bit (saturating) counts to keep each interval near 18 KiB.
const MAX_NANOS: u64 = 3_600_000_000_000;

fn new_histogram() -> Histogram<u32> {
    let hist = Histogram::new_with_bounds(1, MAX_NANOS, 2);
    #[expect(clippy::expect_used, reason = "constant, valid bounds")]
    hist.expect("valid histogram bounds")
}

/// The operations that completed in one interval.
#[derive(Debug, Clone)]
struct Interval {
    hist: Histogram<u32>,
    /// Exact largest latency, nanoseconds (the histogram rounds).
    max_nanos: u64,
}

impl Interval {
    fn new() -> Interval {
        Interval {
            hist: new_histogram(),
            max_nanos: 0,
        }
    }

    fn record(&mut self, nanos: u64) {
        let nanos = nanos.clamp(1, MAX_NANOS);
        self.hist.saturating_record(nanos);
        self.max_nanos = self.max_nanos.max(nanos);
    }

    fn merge(&mut self, other: &Interval) {
        // Same bounds on both sides, and counts saturate: adding cannot fail.
        let _ = self.hist.add(&other.hist);
        self.max_nanos = self.max_nanos.max(other.max_nanos);
    }
}

/// A phase's latency-over-time series, bounded to `max_points` intervals. Shared by the
/// workers behind a mutex; fed by [`IntervalRecorder`]s.
#[derive(Debug)]
pub struct Timeline {
    base_nanos: u64,
    max_points: usize,
    /// Each kept interval covers `2^shift` base intervals.
    shift: u32,
    /// Kept intervals in time order; `None` where no operation completed.
    intervals: Vec<Option<Interval>>,
}

impl Default for Timeline {
    fn default() -> Timeline {
        Timeline::new(BASE_INTERVAL, MAX_POINTS)
    }
}

impl Timeline {
    /// An empty series of `base` intervals, merged to keep at most `max_points` (at least
    /// 2; a zero `base` counts as 1 ns).
    pub fn new(base: Duration, max_points: usize) -> Timeline {
        Timeline {
            base_nanos: u64::try_from(base.as_nanos()).unwrap_or(u64::MAX).max(1),
            max_points: max_points.max(2),
            shift: 0,
            intervals: Vec::new(),
        }
    }

    /// The length of one kept interval.
    pub fn interval(&self) -> Duration {
        let nanos = u128::from(self.base_nanos) << self.shift;
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// Number of kept intervals (up to the last one with an operation).
    pub fn len(&self) -> usize {
        self.intervals.len()
    }

    /// Whether no operation was recorded.
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// Adds the operations of base interval number `base_index`.
    fn add(&mut self, base_index: u64, part: &Interval) {
        let index = loop {
            let index = base_index.checked_shr(self.shift).unwrap_or(0);
            match usize::try_from(index) {
                Ok(i) if i < self.max_points => break i,
                _ => self.coarsen(),
            }
        };
        if self.intervals.len() <= index {
            self.intervals.resize_with(index + 1, || None);
        }
        match &mut self.intervals[index] {
            Some(kept) => kept.merge(part),
            slot => *slot = Some(part.clone()),
        }
    }

    /// Doubles the interval, merging neighbours pairwise.
    fn coarsen(&mut self) {
        self.shift += 1;
        let old = std::mem::take(&mut self.intervals);
        let mut pairs = old.into_iter();
        while let Some(first) = pairs.next() {
            let merged = match (first, pairs.next().flatten()) {
                (Some(mut a), Some(b)) => {
                    a.merge(&b);
                    Some(a)
                }
                (a, b) => a.or(b),
            };
            self.intervals.push(merged);
        }
    }

    /// The series: per kept interval, its operations, p99 and maximum.
    pub fn series(&self) -> LatencySeries {
        let us = |nanos: u64| nanos as f64 / 1000.0;
        let mut s = LatencySeries {
            interval_secs: self.interval().as_secs_f64(),
            ..LatencySeries::default()
        };
        for interval in &self.intervals {
            match interval {
                Some(i) => {
                    s.ops.push(i.hist.len());
                    s.p99_us.push(Some(us(i.hist.value_at_quantile(0.99))));
                    s.max_us.push(Some(us(i.max_nanos)));
                }
                None => {
                    s.ops.push(0);
                    s.p99_us.push(None);
                    s.max_us.push(None);
                }
            }
        }
        s
    }
}

/// One worker's side of a [`Timeline`]: the histogram of its current base interval,
/// handed to the timeline when an operation completes in a later interval, and by
/// [`IntervalRecorder::finish`].
#[derive(Debug)]
pub struct IntervalRecorder<'a> {
    timeline: &'a Mutex<Timeline>,
    base_nanos: u64,
    current: u64,
    part: Interval,
}

impl<'a> IntervalRecorder<'a> {
    /// A recorder feeding `timeline`.
    pub fn new(timeline: &'a Mutex<Timeline>) -> IntervalRecorder<'a> {
        let base_nanos = timeline
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .base_nanos;
        IntervalRecorder {
            timeline,
            base_nanos,
            current: 0,
            part: Interval::new(),
        }
    }

    /// Records an operation of `nanos` that completed `at` after the phase began.
    pub fn record(&mut self, at: Duration, nanos: u64) {
        let at = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX);
        let index = at / self.base_nanos;
        if index != self.current {
            self.hand_over();
            self.current = index;
        }
        self.part.record(nanos);
    }

    /// Hands the last interval to the timeline.
    pub fn finish(mut self) {
        self.hand_over();
    }

    fn hand_over(&mut self) {
        if self.part.hist.is_empty() {
            return;
        }
        self.timeline
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .add(self.current, &self.part);
        self.part.hist.reset();
        self.part.max_nanos = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_histogram_stays_small() {
        // 32-bit counts over 1 ns .. 1 h at 2 digits: the bound on a phase's memory.
        let h = new_histogram();
        assert!(
            h.distinct_values() * 4 <= 20 * 1024,
            "{}",
            h.distinct_values()
        );
    }
}

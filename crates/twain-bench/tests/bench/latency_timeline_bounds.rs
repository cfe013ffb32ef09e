//! The latency-over-time series stays within its point limit: a long phase merges
//! neighbouring intervals pairwise, doubling the interval, and the merged intervals keep
//! every operation, the exact maximum and the p99 of all their operations.

use std::sync::Mutex;
use std::time::Duration;
use twain_bench::timeline::{BASE_INTERVAL, IntervalRecorder, MAX_POINTS, Timeline};

const MS: Duration = Duration::from_millis(1);

#[test]
fn a_short_phase_keeps_one_point_per_base_interval() {
    let timeline = Mutex::new(Timeline::default());
    let mut rec = IntervalRecorder::new(&timeline);
    // 1.0 s of operations, one every 10 ms, each taking (interval number + 1) µs.
    for i in 0..100u64 {
        rec.record(MS * (i as u32 * 10 + 5), (i / 10 + 1) * 1000);
    }
    rec.finish();
    let s = timeline.into_inner().unwrap().series();
    assert_eq!(s.interval_secs, BASE_INTERVAL.as_secs_f64());
    assert_eq!(s.ops, vec![10; 10]);
    for k in 0..10 {
        let want = (k + 1) as f64;
        assert_eq!(s.max_us[k], Some(want));
        let p99 = s.p99_us[k].unwrap();
        assert!((p99 - want).abs() <= want * 0.01, "{k}: {p99}");
    }
}

#[test]
fn a_long_phase_merges_intervals_and_stays_bounded() {
    let timeline = Mutex::new(Timeline::new(Duration::from_millis(100), 4));
    let mut rec = IntervalRecorder::new(&timeline);
    // 1.0 s: ten 100 ms intervals do not fit in 4 points; 400 ms ones do (3 points).
    for i in 0..100u64 {
        let nanos = if i == 37 { 250_000_000 } else { 2_000 + i };
        rec.record(MS * (i as u32 * 10), nanos);
    }
    rec.finish();
    let t = timeline.into_inner().unwrap();
    assert_eq!(t.interval(), Duration::from_millis(400));
    let s = t.series();
    assert_eq!(s.interval_secs, 0.4);
    assert_eq!(s.ops, vec![40, 40, 20]);
    assert_eq!(s.ops.len(), s.p99_us.len());
    assert_eq!(s.ops.len(), s.max_us.len());
    // The 250 ms outlier lands in the first 400 ms and stays exact.
    assert_eq!(s.max_us[0], Some(250_000.0));
    assert_eq!(s.max_us[1], Some(2.079));
    // p99 of 40 operations is their largest.
    assert!(s.p99_us[0].unwrap() > 200_000.0);
    assert!(s.p99_us[2].unwrap() < 2.2);
}

#[test]
fn no_phase_length_overflows_the_bound() {
    let timeline = Mutex::new(Timeline::default());
    let mut rec = IntervalRecorder::new(&timeline);
    rec.record(Duration::ZERO, 1_000);
    rec.record(Duration::from_secs(3600), 2_000);
    rec.record(Duration::MAX, 3_000);
    rec.finish();
    let s = timeline.into_inner().unwrap().series();
    assert!(s.ops.len() <= MAX_POINTS);
    assert_eq!(s.ops.iter().sum::<u64>(), 3);
    assert!(s.interval_secs > 3600.0);
}

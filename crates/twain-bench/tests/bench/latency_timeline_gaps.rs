//! An interval in which no operation completed (a stall) is kept as a gap: 0 ops and no
//! latency, and the operation that ends the stall carries the stall in its interval's
//! maximum. Several threads' operations of one interval count together.

use std::sync::Mutex;
use std::time::Duration;
use twain_bench::timeline::{IntervalRecorder, Timeline};

#[test]
fn a_stall_is_a_gap_then_a_maximum() {
    let ms = Duration::from_millis(1);
    let timeline = Mutex::new(Timeline::default());
    let mut a = IntervalRecorder::new(&timeline);
    let mut b = IntervalRecorder::new(&timeline);
    a.record(ms * 10, 5_000);
    b.record(ms * 20, 7_000);
    // Nothing completes from 100 ms to 400 ms; then `a`'s write returns after 350 ms.
    a.record(ms * 410, 350_000_000);
    b.record(ms * 420, 9_000);
    a.finish();
    b.finish();
    let s = timeline.into_inner().unwrap().series();
    assert_eq!(s.ops, vec![2, 0, 0, 0, 2]);
    assert_eq!(s.max_us[0], Some(7.0));
    assert_eq!(&s.p99_us[1..4], &[None, None, None]);
    assert_eq!(&s.max_us[1..4], &[None, None, None]);
    assert_eq!(s.max_us[4], Some(350_000.0));

    // The JSON writes the gap as nulls.
    let json = serde_json::to_value(&s).unwrap();
    assert!(json["p99_us"][1].is_null());
    assert_eq!(json["ops"][4], 2);
}

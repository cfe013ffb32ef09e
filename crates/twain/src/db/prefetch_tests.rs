//! Unit tests of `db::prefetch`: the window's size and who reads it.

use super::*;

#[test]
fn fast_reads_are_read_by_the_cursor_and_slow_ones_by_the_pool() {
    let pool = PrefetchPool::new(1, Duration::from_micros(10), true);
    let mut p = pool.prefetcher(&Arc::new(Counters::default())).expect("on");
    for _ in 0..START_AFTER_STEPS {
        p.observe(Duration::from_micros(1));
        assert_eq!(p.step(), None, "not sequential yet");
    }
    p.observe(Duration::from_micros(1));
    for _ in 0..500 {
        let depth = p.step().expect("an empty window wants filling");
        assert!(p.inline, "page-cache reads: the cursor reads the window");
        assert!(depth <= INLINE_MAX_DEPTH, "{depth} entries read at once");
    }
    for _ in 0..40 {
        p.observe(Duration::from_micros(100));
    }
    assert_eq!(p.step(), Some(MAX_DEPTH.min(p.steps as usize)));
    assert!(!p.inline, "disk reads: the pool reads the window");
}

#[test]
fn the_window_waits_for_sequential_steps_then_grows_with_the_distance() {
    let pool = PrefetchPool::new(1, Duration::ZERO, true);
    let mut p = pool.prefetcher(&Arc::new(Counters::default())).expect("on");
    for _ in 0..START_AFTER_STEPS {
        assert_eq!(p.step(), None);
    }
    assert_eq!(p.step(), Some(FIRST_DEPTH));
    let mut last = FIRST_DEPTH;
    for _ in 0..1000 {
        if let Some(d) = p.step() {
            assert!(d >= last && d <= MAX_DEPTH);
            last = d;
        }
    }
    assert_eq!(last, MAX_DEPTH, "an empty window keeps growing to the cap");
    p.reset();
    assert_eq!(
        p.depth,
        MAX_DEPTH / 2,
        "a reposition keeps half the learned depth"
    );
    for _ in 0..START_AFTER_STEPS {
        assert_eq!(p.step(), None);
    }
    assert_eq!(
        p.step(),
        Some(MAX_DEPTH),
        "this database's iterators usually go further than half the depth"
    );
    assert!(
        PrefetchPool::new(0, Duration::ZERO, true)
            .prefetcher(&Arc::default())
            .is_none()
    );
}

#[test]
fn the_window_reaches_as_far_as_iterators_usually_go() {
    let pool = PrefetchPool::new(1, Duration::ZERO, true);
    let counters = Arc::new(Counters::default());
    for _ in 0..20 {
        let mut p = pool.prefetcher(&counters).expect("on");
        for _ in 0..100 {
            p.step();
        }
    }
    let usual = pool.queue.expected_walk();
    assert!((90..=110).contains(&usual), "walks of 100 steps: {usual}");
    let end = pool.queue.usual_end().expect("walks seen");
    assert!((100..=110).contains(&end), "no walk ends past {end}");
    let mut p = pool.prefetcher(&counters).expect("on");
    for _ in 0..START_AFTER_STEPS {
        assert_eq!(p.step(), None);
    }
    let first = end - START_AFTER_STEPS as usize - 1;
    assert_eq!(
        p.step(),
        Some(first),
        "the whole usual rest of the walk at once"
    );
    // Up to the usual end the window never reaches past it, so an iterator that
    // stops there leaves few reads unused (nothing is pushed here, so each step asks).
    for steps in START_AFTER_STEPS as usize + 2..end {
        assert_eq!(p.step(), Some(end - steps), "step {steps}");
    }
    // Past it, the window grows with the distance again.
    assert_eq!(p.step(), Some(end));
    assert_eq!(p.step(), Some(end + 1));
}

/// The average follows a change of typical walk all the way: iterators that walked 10
/// steps, then 100, have their windows reach past 100, not stop short and double.
#[test]
fn the_usual_end_follows_longer_walks_all_the_way() {
    let queue = Queue::default();
    for _ in 0..200 {
        queue.observe_walk(10);
    }
    for _ in 0..200 {
        queue.observe_walk(100);
    }
    let end = queue.usual_end().expect("walks seen");
    assert!((100..=110).contains(&end), "walks of 100 end at {end}");
    for _ in 0..200 {
        queue.observe_walk(10);
    }
    let end = queue.usual_end().expect("walks seen");
    assert!((10..=12).contains(&end), "walks of 10 end at {end}");
}

#[test]
fn a_few_long_walks_do_not_set_the_window_of_short_ones() {
    let queue = Queue::default();
    assert_eq!(queue.expected_walk(), 0, "nothing seen yet");
    queue.observe_walk(START_AFTER_STEPS);
    assert_eq!(queue.expected_walk(), 0, "walks too short to prefetch");
    for _ in 0..50 {
        queue.observe_walk(10);
        queue.observe_walk(1000);
    }
    let usual = queue.expected_walk();
    assert!(
        (40..=250).contains(&usual),
        "the geometric mean of 10 and 1000 is 100, the arithmetic 505: {usual}"
    );
    for n in [3, 4, 7, 100, 1 << 20, u32::MAX] {
        let q = Queue::default();
        q.observe_walk(n);
        let back = q.expected_walk() as f64;
        let want = f64::from(n).min(f64::from(1u32 << 21));
        assert!(back <= want * 1.1 && back >= want / 1.1, "{n}: {back}");
    }
}

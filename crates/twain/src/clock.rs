//! The clock that decides expiry: wall time in milliseconds since the Unix epoch.
//!
//! Expiry times are absolute, so an entry written with one clock and read with another
//! (a reopen on a machine whose clock is behind) is judged by the reader's clock, until a
//! compaction has dropped it: from then on it is gone whatever the clock says.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of wall time for expiry, in milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current time, in milliseconds since the Unix epoch.
    fn now_millis(&self) -> u64;
}

/// The system's wall clock. A clock set before 1970 reads as 0.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_millis(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

/// A clock that moves only when told to: for tests, and for replaying a workload at a
/// chosen time. Clones share one time.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock that reads `now_millis` until it is set or advanced.
    pub fn new(now_millis: u64) -> ManualClock {
        ManualClock {
            now: Arc::new(AtomicU64::new(now_millis)),
        }
    }

    /// Sets the time; it may go backwards.
    pub fn set(&self, now_millis: u64) {
        self.now.store(now_millis, Ordering::SeqCst);
    }

    /// Moves the time forward by `millis`, saturating.
    pub fn advance(&self, millis: u64) {
        let _ = self
            .now
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(millis))
            });
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told_and_clones_share_it() {
        let c = ManualClock::new(1_000);
        let d = c.clone();
        assert_eq!(c.now_millis(), 1_000);
        d.advance(500);
        assert_eq!(c.now_millis(), 1_500);
        c.set(10);
        assert_eq!(d.now_millis(), 10);
        c.set(u64::MAX - 1);
        c.advance(5);
        assert_eq!(c.now_millis(), u64::MAX);
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now_millis() > 1_577_836_800_000);
    }
}

//! The integration tests of `twain-bench`, one binary: each module was a test file of its own
//! (one behaviour per file), and the helper modules are shared. One binary links once,
//! where one per file made linking most of CI's build time.
//!
//! Run one file's tests with `cargo test -p twain-bench --test bench FILE::`.

mod json_lines;
mod json_lines_of_older_runs_parse;
mod latency_timeline_bounds;
mod latency_timeline_gaps;
mod phase_accounting;
mod space_is_sampled_over_time;
mod tail_latency_is_reported;

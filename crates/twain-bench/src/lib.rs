//! twain-bench: the benchmark behind `twain bench` and the peer comparison
//! (`bench/peers`), written once.
//!
//! - [`engine::Engine`]: what a benchmarked store implements; [`TwainEngine`] is twain's.
//! - [`keys`], [`values`], [`dist`]: 16-byte keys over a permutation of `0..N`,
//!   incompressible values with fixed, uniform or Parallax size mixes, and YCSB's request
//!   distributions.
//! - [`workload`]: db_bench and YCSB phases and the operations they issue.
//! - [`runner::Runner`]: runs phases on an engine with worker threads, a one-second
//!   throughput sampler and a progress bar, and measures each phase.
//! - [`timeline`]: latency over time, per interval of a phase, bounded.
//! - [`space`]: space amplification over time, sampled while phases run.
//! - [`report`], [`plot`], [`plot_time`]: the table, JSON lines and the SVG plots.
//! - [`cgroup`]: larger than memory: a memory cgroup around the run, dropped caches.
//! - [`args::BenchArgs`]: the command-line options both binaries share.
#![deny(missing_docs)]
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod args;
pub mod cgroup;
pub mod dist;
pub mod engine;
mod error;
pub mod keys;
pub mod measure;
pub mod plot;
pub mod plot_time;
pub mod report;
pub mod runner;
pub mod space;
pub mod threads;
pub mod timeline;
mod twain_engine;
pub mod values;
pub mod workload;

pub use engine::{Engine, EngineCounters};
pub use error::{BenchError, BenchResult};
pub use report::PhaseResult;
pub use twain_engine::TwainEngine;

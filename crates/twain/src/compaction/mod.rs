//! Compaction: picking (pure), the drop filter shared with flush, and running jobs.

pub mod filter;
pub mod picker;

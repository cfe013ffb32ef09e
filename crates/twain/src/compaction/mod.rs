//! Compaction: picking and splitting into parts (pure), the drop filter shared with flush,
//! and parts as self-contained jobs (`job`: the description; `part`: running one, with
//! `place` and `refresh`; `files_env`: reaching the files as a worker does), and offloading
//! parts to a compaction worker (`worker`: its side; `remote`: the host's; `validate`: the
//! host's check of what comes back).

pub mod files_env;
pub mod filter;
pub mod job;
pub mod part;
pub mod picker;
pub(crate) mod place;
pub(crate) mod refresh;
pub mod remote;
pub mod split;
pub mod validate;
pub mod worker;

#[cfg(test)]
mod tests {
    use crate::format::manifest::TableRecord;
    use crate::key::internal_key;

    /// A table record of `level` spanning user keys `lo..=hi`, for picking tests.
    pub(super) fn t(level: usize, number: u64, lo: &str, hi: &str, size: u64) -> TableRecord {
        TableRecord {
            level,
            number,
            file_size: size,
            smallest: internal_key(lo.as_bytes(), number, 1),
            largest: internal_key(hi.as_bytes(), number, 1),
            smallest_seq: number,
            largest_seq: number,
        }
    }
}

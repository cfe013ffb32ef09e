//! Every persisted byte is encoded and decoded here, one module per format, each mirrored
//! by a specification in `docs/format/`. Nothing outside this module writes bytes to disk.
#![deny(clippy::indexing_slicing)]

pub mod backup_meta;
pub mod block;
pub mod bloom;
pub mod coding;
pub mod compaction_job;
pub mod compression;
pub mod drops;
pub mod file_header;
pub mod handle;
pub mod identity;
pub mod manifest;
pub mod names;
pub mod record;
pub mod svtable;
pub mod table;
pub mod vlog;
pub mod worker_protocol;

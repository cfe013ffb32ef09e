//! The integration tests of `twain-server`, one binary: each module was a test file of its own
//! (one behaviour per file), and the helper modules are shared. One binary links once,
//! where one per file made linking most of CI's build time.
//!
//! Run one file's tests with `cargo test -p twain-server --test server FILE::`.

#[path = "../common/mod.rs"]
mod common;

mod auth;
mod client_connection;
mod client_expiry;
mod client_keyspace;
mod client_output_limit;
mod client_strings;
mod empty_requirepass_is_refused;
mod limits;
mod memory_before_authentication;
mod numeric_options_are_ranged;
mod pipeline_load;
mod protocol_errors;
mod read_only_database;
mod reply_amplification_mget;
mod reply_amplification_pipelined_gets;
mod request_parsing_is_linear;
mod resp_fuzz;
mod scan_cursors_are_per_client;
mod shutdown;
mod sync_modes;
mod trickling_client_is_dropped;

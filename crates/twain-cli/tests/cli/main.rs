//! The integration tests of `twain-cli`, one binary: each module was a test file of its own
//! (one behaviour per file), and the helper modules are shared. One binary links once,
//! where one per file made linking most of CI's build time.
//!
//! Run one file's tests with `cargo test -p twain-cli --test cli FILE::`.

mod cliutil;
mod serve_util;

mod bench_cli;
mod cli;
mod cli_bulk;
mod cli_checkpoint_backup_restore;
mod cli_closed_stdout;
mod cli_completions;
mod cli_copy_changes_the_layout;
mod cli_counts_singular_and_plural;
mod cli_debug_harnesses;
mod cli_delete_range;
mod cli_dump_directory_summary;
mod cli_dump_lists_every_record_kind;
mod cli_dump_selects_entries;
mod cli_escaped_arguments;
mod cli_exit_status;
mod cli_get_is_byte_exact;
mod cli_help_examples;
mod cli_import_reports_and_skips;
mod cli_inspecting_commands_read_only;
mod cli_json_outputs;
mod cli_placement_shows_in_stats_and_dump;
mod cli_repair;
mod cli_scan_keys_only_and_count;
mod cli_scan_prefix_and_range_intersect;
mod cli_sizes_human_or_exact;
mod cli_stats_estimates_keys;
mod cli_stats_totals_across_opens;
mod cli_unwritable_stderr;
mod cli_version_names_the_commit;
mod compaction_worker;
mod dump_refuses_non_regular_files;
mod reliability;
mod serve_crash;
mod serve_signals;
mod serve_stderr_full;

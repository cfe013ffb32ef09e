//! JSON lines written before the stall counters and the latency series existed still
//! parse (with those fields empty), so older runs can be compared and plotted.

use twain_bench::report::parse_json_lines;

#[test]
fn a_line_without_the_new_fields_parses() {
    let line = r#"{"engine":"rocksdb","phase":"fillrandom","ops":10,"secs":1.0,"ops_per_sec":10.0,"user_bytes":100,"wchar":1,"write_bytes":2,"read_bytes":3,"db_bytes":4,"p50_us":1.0,"p99_us":2.0,"index":0,"threads":1,"value_dist":"100","start_secs":0.0,"user_read_bytes":0,"found":0,"mb_per_sec":0.0,"p999_us":3.0,"max_us":4.0,"rchar":0,"cancelled_write_bytes":0,"live_keys":10,"live_bytes":100,"write_amp_io":null,"write_amp_io_net":null,"write_amp_wchar":null,"write_amp_engine":null,"read_amp_io":null,"read_amp_rchar":null,"read_amp_engine":null,"space_amp":null,"engine_bytes_written":null,"engine_user_read_bytes":null,"log_bytes":null,"flush_bytes":null,"compaction_read_bytes":null,"compaction_write_bytes":null,"gc_read_bytes":null,"gc_write_bytes":null,"stall_micros":7,"gc_runs":null,"gc_lsm_lookups":null,"svtable_searches":null,"handle_fixups":null,"cum_write_amp_io":null,"cum_write_amp_engine":null,"min_sample_ops_per_sec":null,"cpu_secs":0.5,"cpu_us_per_op":5.0,"load_avg":0.1,"throughput":[]}"#;
    let parsed = parse_json_lines(line);
    assert_eq!(parsed.len(), 1);
    let r = &parsed[0];
    assert_eq!((r.p999_us, r.max_us, r.stall_micros), (3.0, 4.0, Some(7)));
    assert!(r.stalls.is_empty());
    assert!(r.latency_over_time.ops.is_empty());
    assert_eq!(r.latency_over_time.interval_secs, 0.0);
}

//! `Db::stats` counts what happened: user bytes and operations, log bytes, flushes,
//! compactions, drop records, gets and value reads; it describes the levels and value
//! files as they are (matching the files on disk), with valid rates in [0, 1]; the
//! amplification figures are positive; `to_json` is well-formed JSON.

use crate::dbutil;

use dbutil::{BACKGROUND_DEADLINE, key, small_opts, wait_for_quiet, wait_until};
use std::collections::BTreeMap;
use std::path::Path;
use twain::{Db, Options, Stats, WriteBatch, WriteOptions};

fn opts() -> Options {
    small_opts()
        // Keep automatic compaction out of the way of exact counts, and the space
        // target's background work (a tiny database is always over its target).
        .l1_target_size(64 << 20)
        .gc_enabled(false)
}

/// Sizes of the files in `dir` by extension.
fn disk_by_ext(dir: &Path) -> BTreeMap<String, (usize, u64)> {
    let mut out: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        let ext = name.rsplit_once('.').map_or("", |(_, x)| x).to_string();
        let slot = out.entry(ext).or_default();
        slot.0 += 1;
        slot.1 += e.metadata().unwrap().len();
    }
    out
}

/// Allocated bytes (`du`) per file extension: what `Stats::disk` counts.
fn allocated_by_ext(dir: &Path) -> BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        let ext = name.rsplit_once('.').map_or("", |(_, x)| x).to_string();
        *out.entry(ext).or_default() += e.metadata().unwrap().blocks() * 512;
    }
    out
}

fn check_value_files(s: &Stats) {
    for f in &s.value_files {
        assert!(
            (0.0..=1.0).contains(&f.valid_rate),
            "value file {} valid rate {}",
            f.number,
            f.valid_rate
        );
        assert!(f.dropped_bytes <= f.separated_bytes, "{f:?}");
        assert!(f.separated_bytes <= f.total_bytes, "{f:?}");
        if f.separated_bytes > 0 {
            let want = (f.separated_bytes - f.dropped_bytes) as f64 / f.separated_bytes as f64;
            assert!((f.valid_rate - want).abs() < 1e-9, "{f:?}");
        }
    }
    let numbers: Vec<u64> = s.value_files.iter().map(|f| f.number).collect();
    assert!(
        numbers.windows(2).all(|w| w[0] < w[1]),
        "oldest first: {numbers:?}"
    );
    assert!(
        s.value_files.iter().any(|f| f.is_log),
        "the active value file is part of the log"
    );
}

#[test]
fn user_bytes_ops_and_log_bytes_are_counted_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    let s0 = db.stats().unwrap();
    assert_eq!(
        (s0.user_ops, s0.user_bytes_written, s0.write_groups),
        (0, 0, 0)
    );

    db.put("abc", "12345").unwrap(); // 8 bytes
    db.put("big", vec![0u8; 1000]).unwrap(); // 1003 bytes
    db.delete("abc").unwrap(); // 3 bytes (the key)
    let mut b = WriteBatch::new();
    b.put("x", "").put("yy", "z").delete("www"); // 1 + 3 + 3
    db.write(b, &WriteOptions::synced()).unwrap();
    let s = db.stats().unwrap();
    assert_eq!(s.user_ops, 6);
    assert_eq!(s.user_bytes_written, 8 + 1003 + 3 + 7);
    assert_eq!(s.write_groups, 4);
    assert_eq!(s.synced_groups, 1);
    assert!(s.log_bytes_written > s.user_bytes_written);
    assert_eq!(s.memtable_entries, 6);
    assert!(s.memtable_bytes > 0);
    // Separated bytes: only "big" crossed the inline threshold.
    let separated: u64 = s.value_files.iter().map(|f| f.separated_bytes).sum();
    assert!((1003..1100).contains(&separated), "{separated}");
    assert!(
        s.write_amplification() >= 1.0,
        "{}",
        s.write_amplification()
    );
}

#[test]
fn gets_and_value_reads_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put("small", "s").unwrap();
    db.put("large", vec![1u8; 500]).unwrap();
    let s0 = db.stats().unwrap();
    db.get("small").unwrap();
    db.get("large").unwrap();
    db.get("large").unwrap();
    db.get("missing").unwrap();
    let s1 = db.stats().unwrap();
    assert_eq!(s1.gets - s0.gets, 4);
    assert_eq!(s1.value_reads - s0.value_reads, 2);
    assert!(s1.value_bytes_read - s0.value_bytes_read >= 1000);
    // Reading a snapshot counts too.
    let snap = db.snapshot();
    snap.get("large").unwrap();
    let s2 = db.stats().unwrap();
    assert_eq!(s2.gets - s1.gets, 1);
    assert_eq!(s2.value_reads - s1.value_reads, 1);
}

#[test]
fn flushes_compactions_and_drops_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    // Nothing to flush: no flush counted.
    db.flush().unwrap();
    assert_eq!(db.stats().unwrap().flushes, 0);

    for i in 0..200 {
        db.put(key(i), vec![1u8; 300]).unwrap();
    }
    for i in 0..200 {
        db.put(key(i), vec![2u8; 300]).unwrap();
    }
    db.flush().unwrap();
    let s = db.stats().unwrap();
    assert_eq!(s.flushes, 1);
    assert!(s.flush_bytes_written > 0);
    assert_eq!(s.memtable_entries, 0);
    assert_eq!(s.levels[0].files, 1);
    assert_eq!(
        s.levels[0].entries, 200,
        "the flush dropped the shadowed versions"
    );
    assert_eq!(
        s.drop_records, 200,
        "one drop record per shadowed separated value"
    );
    assert!(s.drop_file_bytes_written > 0);
    let dropped: u64 = s.value_files.iter().map(|f| f.dropped_bytes).sum();
    let separated: u64 = s.value_files.iter().map(|f| f.separated_bytes).sum();
    assert!(
        dropped * 2 == separated,
        "half the separated bytes are dropped: {dropped} of {separated}"
    );
    check_value_files(&s);

    for i in 0..200 {
        db.delete(key(i)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    let s = db.stats().unwrap();
    assert_eq!(s.flushes, 2);
    assert!(s.compactions >= 1);
    assert!(s.compaction_bytes_read > 0);
    assert_eq!(
        s.drop_records, 400,
        "the compaction dropped every remaining value"
    );
    let entries: u64 = s.levels.iter().map(|l| l.entries).sum();
    assert_eq!(entries, 0, "tombstones at the bottom are gone too");
    for f in &s.value_files {
        if f.separated_bytes > 0 && !f.is_log {
            assert_eq!(f.valid_rate, 0.0, "{f:?}");
        }
    }
    check_value_files(&s);
}

#[test]
fn levels_and_disk_usage_match_the_files_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let o = small_opts()
        .l1_target_size(64 << 10)
        // The directory is compared file by file with the statistics: no value GC
        // rewriting files in between.
        .gc_enabled(false);
    let db = Db::open(dir.path(), o.clone()).unwrap();
    for round in 0..3u64 {
        for i in 0..3000 {
            db.put(key(i), vec![round as u8; (i % 4 * 30) as usize])
                .unwrap();
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    for i in 0..500 {
        db.put(key(i), "late").unwrap();
    }
    db.flush().unwrap();
    assert!(wait_for_quiet(&db));
    // A compaction that just installed its result deletes its inputs when it lets go of
    // its version, a moment later: wait for the directory to settle.
    let settled = || {
        let s = db.stats().unwrap();
        let disk = disk_by_ext(dir.path());
        let table_files: usize = s.levels.iter().map(|l| l.files).sum();
        disk.get("sst").map(|d| d.0) == Some(table_files)
    };
    assert!(wait_until(BACKGROUND_DEADLINE, settled));
    let s = db.stats().unwrap();
    assert_eq!(s.levels.len(), o.num_levels);
    let disk = disk_by_ext(dir.path());
    let table_files: usize = s.levels.iter().map(|l| l.files).sum();
    let table_bytes: u64 = s.levels.iter().map(|l| l.bytes).sum();
    assert!(table_files >= 2, "{:?}", s.levels);
    assert_eq!(
        disk.get("sst").copied().unwrap_or_default(),
        (table_files, table_bytes)
    );
    // Disk bytes are allocated blocks, as `du` counts them.
    let allocated = allocated_by_ext(dir.path());
    let alloc = |ext: &str| allocated.get(ext).copied().unwrap_or_default();
    assert_eq!(s.disk.tables, alloc("sst"));
    // Value files are value-log files (epoch 0) or SVTables written by value GC.
    let (vlogs, vlog_bytes) = disk["vlog"];
    let (svts, _) = disk.get("svt").copied().unwrap_or_default();
    assert_eq!(vlogs + svts, s.value_files.len());
    assert_eq!(s.disk.value_files, alloc("vlog") + alloc("svt"));

    assert_eq!(
        s.value_files.iter().map(|f| f.total_bytes).sum::<u64>(),
        vlog_bytes
    );
    assert_eq!(s.disk.drop_files, alloc("drop"));
    assert!(s.disk.manifest > 0);
    assert!(s.disk.total() >= s.disk.tables + s.disk.value_files);
    check_value_files(&s);
    assert!(s.write_amplification() > 1.0);
    assert!(s.space_amplification().is_some_and(|a| a > 0.0));
    assert!(s.referenced_bytes > 0);
    assert!(s.live_bytes > 0 && s.live_bytes <= s.referenced_bytes);
}

#[test]
fn value_file_counters_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts().value_file_size(64 << 10);
    let before;
    {
        let db = Db::open(dir.path(), o.clone()).unwrap();
        for round in 0..3u8 {
            for i in 0..300 {
                db.put(key(i), vec![round; 200 + (i % 3) as usize]).unwrap();
            }
            db.flush().unwrap();
        }
        db.compact_range(None, None).unwrap();
        for i in 0..100 {
            db.put(key(i), vec![9u8; 250]).unwrap();
        }
        before = db.stats().unwrap();
    }
    let db = Db::open(dir.path(), o).unwrap();
    let after = db.stats().unwrap();
    let per_file = |s: &Stats| -> Vec<(u64, u64, u64)> {
        s.value_files
            .iter()
            .filter(|f| f.separated_bytes > 0)
            .map(|f| (f.number, f.separated_bytes, f.dropped_bytes))
            .collect()
    };
    let b = per_file(&before);
    let a = per_file(&after);
    // Files holding values keep their counters; the empty spare log file that the log
    // thread keeps ready does not count.
    assert!(a.len() >= b.len());
    assert_eq!(
        &a[..b.len()],
        &b[..],
        "value file counters before/after reopen"
    );
    check_value_files(&after);
}

/// A minimal JSON parser: enough to tell well-formed JSON from anything else.
struct Json<'a> {
    s: &'a [u8],
    i: usize,
}

#[derive(Debug, PartialEq)]
enum Value {
    Num(f64),
    Bool(bool),
    Str(String),
    Arr(Vec<Value>),
    Obj(Vec<(String, Value)>),
    Null,
}

impl Json<'_> {
    fn parse(s: &str) -> Result<Value, String> {
        let mut p = Json {
            s: s.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing bytes at {}", p.i));
        }
        Ok(v)
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at {}", c as char, self.i))
        }
    }
    fn value(&mut self) -> Result<Value, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Value::Obj(fields));
                }
                loop {
                    let Value::Str(k) = self.value()? else {
                        return Err(format!("object key at {} is not a string", self.i));
                    };
                    self.eat(b':')?;
                    fields.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Obj(fields));
                        }
                        _ => return Err(format!("bad object at {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Value::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Arr(items));
                        }
                        _ => return Err(format!("bad array at {}", self.i)),
                    }
                }
            }
            Some(b'"') => {
                self.i += 1;
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != b'"' {
                    if self.s[self.i] == b'\\' || self.s[self.i] < 0x20 {
                        return Err(format!("escapes are not expected, at {}", self.i));
                    }
                    self.i += 1;
                }
                let text = String::from_utf8(self.s[start..self.i].to_vec()).unwrap();
                self.eat(b'"')?;
                Ok(Value::Str(text))
            }
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Value::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Value::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Value::Null)
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                self.i += 1;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_digit() || b".eE+-".contains(&self.s[self.i]))
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                // JSON numbers have no leading zeros, "+", or bare dots.
                let digits = text.trim_start_matches('-');
                if digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.") {
                    return Err(format!("leading zero in {text}"));
                }
                text.parse::<f64>()
                    .map(Value::Num)
                    .map_err(|_| format!("bad number {text}"))
            }
            _ => Err(format!("unexpected byte at {}", self.i)),
        }
    }
}

#[test]
fn to_json_is_well_formed_and_carries_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    // Empty database: amplifications are 0 by definition, still valid JSON.
    let empty = db.stats().unwrap();
    Json::parse(&empty.to_json()).unwrap();
    for i in 0..2000 {
        db.put(key(i), vec![(i % 256) as u8; (i % 5 * 50) as usize])
            .unwrap();
    }
    db.compact_range(None, None).unwrap();
    for i in 0..100 {
        db.delete(key(i)).unwrap();
    }
    db.flush().unwrap();
    let s = db.stats().unwrap();
    let json = s.to_json();
    let Value::Obj(fields) = Json::parse(&json).unwrap_or_else(|e| panic!("{e}: {json}")) else {
        panic!("not an object: {json}");
    };
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("no field {name} in {json}"))
    };
    let num = |name: &str| match get(name) {
        Value::Num(n) => *n,
        other => panic!("{name} is {other:?}"),
    };
    let wa = num("write_amplification");
    let sa = num("space_amplification");
    assert!(
        wa > 0.0 && (wa - s.write_amplification()).abs() < 1e-3,
        "{wa}"
    );
    assert!(
        s.space_amplification()
            .is_some_and(|a| sa > 0.0 && (sa - a).abs() < 1e-3),
        "{sa}"
    );
    assert_eq!(num("user_ops"), s.user_ops as f64);
    assert_eq!(num("user_bytes_written"), s.user_bytes_written as f64);
    assert_eq!(num("flushes"), s.flushes as f64);
    let Value::Arr(levels) = get("levels") else {
        panic!("levels is not an array");
    };
    assert_eq!(levels.len(), s.levels.len());
    let Value::Arr(files) = get("value_files") else {
        panic!("value_files is not an array");
    };
    assert_eq!(files.len(), s.value_files.len());
    for f in files {
        let Value::Obj(f) = f else { panic!("{f:?}") };
        let rate = f.iter().find(|(k, _)| k == "valid_rate").unwrap();
        let Value::Num(r) = rate.1 else {
            panic!("{rate:?}")
        };
        assert!((0.0..=1.0).contains(&r));
    }
    // Field names are unique.
    let mut names: Vec<&String> = fields.iter().map(|(k, _)| k).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), fields.len());
    assert!(!s.to_text().is_empty());
}

//! Byte-mutation tests of every decoder (the proptest side of `fuzz/`): valid encodings
//! taken from a real database are mutated (bit flips, byte sets, truncations, insertions,
//! deletions) and decoded again. No decoder may panic, and none may accept damaged bytes as
//! different data: a checksummed unit decodes to exactly the original or fails, a value
//! file scans to the original records (or, where a torn tail is allowed, a prefix of
//! them), a table iterates to the original entries or fails, a drop file reads to a subset
//! of the original drops. The fuzz seed corpora in `fuzz/seeds/` are replayed too.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use twain::cache::BlockCache;
use twain::format::drops::decode_block;
use twain::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header};
use twain::format::manifest::VersionEdit;
use twain::format::record::{FRAME_HEADER_LEN, Frame, decode_frame};
use twain::format::vlog::{BatchReader, decode_separated};
use twain::fs::{Fs, MemFs};
use twain::iter::InternalIterator;
use twain::table::Table;
use twain::vlog::{read_drop_set, scan_value_file};
use twain::{Db, Options, WriteBatch, WriteOptions};

/// Valid files of every kind, from one database.
struct Corpus {
    vlog: (u64, Vec<u8>),
    table: Vec<u8>,
    manifest: Vec<u8>,
    drops: (u64, Vec<u8>),
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let fs = MemFs::new();
        let opts = Options::default()
            .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
            .inline_threshold(24)
            .block_size(256)
            .value_file_size(1 << 20);
        let db = Db::open("/db", opts).unwrap();
        for round in 0..4u8 {
            let mut b = WriteBatch::new();
            for i in 0..25u32 {
                if (i + u32::from(round)) % 6 == 0 {
                    b.delete(format!("key{i:02}"));
                } else {
                    b.put(
                        format!("key{i:02}"),
                        vec![b'a' + round; 10 + (i as usize % 3) * 30],
                    );
                }
            }
            db.write(b, &WriteOptions::synced()).unwrap();
            db.flush().unwrap();
        }
        db.compact_range(None, None).unwrap();
        db.close().unwrap();
        let dir = Path::new("/db");
        let find = |ext: &str| -> (u64, Vec<u8>) {
            let name = fs
                .file_names(dir)
                .into_iter()
                .find(|n| n.ends_with(ext))
                .unwrap();
            let number = name.split('.').next().unwrap().parse().unwrap();
            (number, fs.read_file(&dir.join(name)).unwrap())
        };
        Corpus {
            vlog: find(".vlog"),
            table: find(".sst").1,
            manifest: find(".manifest").1,
            drops: find(".drop"),
        }
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Insert(usize, u8),
    Delete(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        2 => (any::<usize>(), any::<u8>()).prop_map(|(p, v)| Mutation::Set(p, v)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(p, v)| Mutation::Insert(p, v)),
        1 => (any::<usize>(), 1usize..16).prop_map(|(p, n)| Mutation::Delete(p, n)),
    ]
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    proptest::collection::vec(mutation(), 1..4)
}

/// Applies `muts` to a copy of `bytes` (positions wrap around the current length).
fn mutate(bytes: &[u8], muts: &[Mutation]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    for m in muts {
        let len = v.len().max(1);
        match *m {
            Mutation::Flip(p, bit) if !v.is_empty() => v[p % len] ^= 1 << bit,
            Mutation::Set(p, x) if !v.is_empty() => v[p % len] = x,
            Mutation::Truncate(p) => v.truncate(p % len),
            Mutation::Insert(p, x) => v.insert(p % (v.len() + 1), x),
            Mutation::Delete(p, n) if !v.is_empty() => {
                let at = p % len;
                v.drain(at..(at + n).min(v.len()));
            }
            _ => {}
        }
    }
    v
}

/// The frames of a log-structured file after its header.
fn frames(file: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = FILE_HEADER_LEN;
    while let Frame::Good { frame_len, .. } = decode_frame(&file[at..]) {
        out.push(file[at..at + frame_len].to_vec());
        at += frame_len;
    }
    out
}

fn mem_file(name: &str, bytes: &[u8]) -> (MemFs, PathBuf) {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/f")).unwrap();
    let path = Path::new("/f").join(name);
    fs.write_file(&path, bytes).unwrap();
    (fs, path)
}

/// Every record of a value file as (seq, kind, key, value), if it scans.
type Records = Vec<(u64, u8, Vec<u8>, Vec<u8>)>;

fn scan(number: u64, bytes: &[u8], may_be_torn: bool) -> twain::Result<Records> {
    let (fs, path) = mem_file(&format!("{number:06}.vlog"), bytes);
    let mut out = Vec::new();
    scan_value_file(&fs, &path, number, may_be_torn, |_, _, r| {
        while let Some(e) = r.next_entry().map_err(|e| e.into_corruption(&path, 0))? {
            out.push((e.seq, e.kind as u8, e.key.to_vec(), e.value.to_vec()));
        }
        Ok(())
    })?;
    Ok(out)
}

/// Every entry of a table, if it opens and iterates.
fn entries(bytes: &[u8]) -> twain::Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let (fs, path) = mem_file("000001.sst", bytes);
    let file = fs.open_read(&path).unwrap();
    let table = Arc::new(Table::open(
        1,
        path,
        file,
        bytes.len() as u64,
        Arc::new(BlockCache::new(1 << 20)),
    )?);
    let mut it = table.iter(false);
    it.seek_to_first()?;
    let mut out = Vec::new();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next()?;
    }
    // Backwards must agree.
    it.seek_to_last()?;
    let mut back = Vec::new();
    while it.valid() {
        back.push((it.key().to_vec(), it.value().to_vec()));
        it.prev()?;
    }
    back.reverse();
    assert_eq!(back, out, "forward and backward iteration disagree");
    Ok(out)
}

fn drop_set(number: u64, bytes: &[u8]) -> twain::Result<BTreeMap<u64, u32>> {
    let (fs, path) = mem_file(&format!("{number:06}.drop"), bytes);
    read_drop_set(&fs, &path, number)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn frames_decode_to_the_original_payload_or_fail(idx: usize, muts in mutations()) {
        let c = corpus();
        let all: Vec<Vec<u8>> = frames(&c.vlog.1)
            .into_iter()
            .chain(frames(&c.manifest))
            .chain(frames(&c.drops.1))
            .collect();
        let frame = &all[idx % all.len()];
        let damaged = mutate(frame, &muts);
        if let Frame::Good { payload, .. } = decode_frame(&damaged) {
            prop_assert_eq!(payload, &frame[FRAME_HEADER_LEN..]);
        }
    }

    #[test]
    fn payload_decoders_never_panic(idx: usize, muts in mutations()) {
        let c = corpus();
        let vlog = frames(&c.vlog.1);
        let manifest = frames(&c.manifest);
        let drops = frames(&c.drops.1);
        let batch = mutate(&vlog[idx % vlog.len()][FRAME_HEADER_LEN..], &muts);
        if let Ok(mut r) = BatchReader::new(&batch) {
            while let Ok(Some(_)) = r.next_entry() {}
        }
        let edit = mutate(&manifest[idx % manifest.len()][FRAME_HEADER_LEN..], &muts);
        if let Ok(e) = VersionEdit::decode(&edit) {
            prop_assert_eq!(VersionEdit::decode(&e.encode()).unwrap(), e);
        }
        let block = mutate(&drops[idx % drops.len()][FRAME_HEADER_LEN..], &muts);
        if let Ok(d) = decode_block(&block) {
            prop_assert!(d.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }

    #[test]
    fn separated_entries_never_yield_other_bytes(idx: usize, muts in mutations()) {
        let c = corpus();
        let mut found = Vec::new();
        for f in frames(&c.vlog.1) {
            let payload = &f[FRAME_HEADER_LEN..];
            // Sync markers (clean close, rolls) carry no entries.
            let Ok(mut r) = BatchReader::new(payload) else {
                continue;
            };

            while let Some(e) = r.next_entry().unwrap() {
                if e.kind as u8 == 2 {
                    found.push((payload[e.offset..e.offset + e.len].to_vec(), e.key.to_vec(), e.seq, e.value.to_vec()));
                }
            }
        }
        let (entry, key, seq, value) = &found[idx % found.len()];
        let damaged = mutate(entry, &muts);
        if let Ok(v) = decode_separated(&damaged, key, *seq) {
            prop_assert_eq!(&damaged[v.range], &value[..]);
        }
    }

    #[test]
    fn headers_decode_only_when_intact(muts in mutations()) {
        let c = corpus();
        for (kind, file) in [(FileKind::ValueLog, &c.vlog.1), (FileKind::Manifest, &c.manifest), (FileKind::Drops, &c.drops.1)] {
            let header = &file[..FILE_HEADER_LEN];
            let damaged = mutate(header, &muts);
            if decode_header(kind, &damaged).is_ok() {
                prop_assert_eq!(&damaged[..FILE_HEADER_LEN], header);
            }
        }
    }

    #[test]
    fn value_files_scan_to_the_original_records_or_a_prefix(muts in mutations(), torn: bool) {
        let c = corpus();
        let (number, bytes) = &c.vlog;
        let original = scan(*number, bytes, false).unwrap();
        let damaged = mutate(bytes, &muts);
        // A file cut exactly at a record boundary scans clean even when no torn tail is
        // allowed: the scanner cannot know the length (see log_file_truncated_at_a_record
        // _boundary.rs). Anything else it returns must be the original records, in order.
        if let Ok(got) = scan(*number, &damaged, torn) {
            prop_assert!(original.starts_with(&got), "scan returned records that were never written");
            if !torn && got.len() < original.len() {
                prop_assert!(bytes.starts_with(&damaged), "a shorter scan of a file that is not a plain truncation");
            }
        }
    }

    #[test]
    fn tables_iterate_to_the_original_entries_or_fail(muts in mutations()) {
        let c = corpus();
        let original = entries(&c.table).unwrap();
        let damaged = mutate(&c.table, &muts);
        if let Ok(got) = entries(&damaged) {
            prop_assert_eq!(got, original);
        }
    }

    #[test]
    fn drop_files_read_to_a_subset_of_the_original(muts in mutations()) {
        let c = corpus();
        let (number, bytes) = &c.drops;
        let original = drop_set(*number, bytes).unwrap();
        let damaged = mutate(bytes, &muts);
        if let Ok(got) = drop_set(*number, &damaged) {
            for (seq, len) in &got {
                prop_assert_eq!(original.get(seq), Some(len), "a drop that was never recorded");
            }
        }
    }
}

/// Replays the fuzz seed corpora (small valid and near-valid inputs) through the same
/// decoders: none may panic.
#[test]
fn fuzz_seed_corpora_decode_without_panic() {
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
    let mut replayed = 0;
    for target in std::fs::read_dir(&seeds).unwrap() {
        let target = target.unwrap().path();
        let name = target.file_name().unwrap().to_string_lossy().into_owned();
        for seed in std::fs::read_dir(&target).unwrap() {
            let bytes = std::fs::read(seed.unwrap().path()).unwrap();
            replayed += 1;
            match name.as_str() {
                "table" => {
                    entries(&bytes).unwrap();
                }
                "table_blocks" => {
                    let _ = twain::format::block::Block::parse(bytes.clone());
                    let _ = twain::format::table::Footer::decode(&bytes);
                    let _ = twain::format::table::TableProperties::decode(&bytes);
                }
                "manifest_edit" => {
                    VersionEdit::decode(&bytes).unwrap();
                }
                "vlog_batch" | "header_frame" => {
                    let _ = decode_frame(&bytes);
                    for kind in [FileKind::ValueLog, FileKind::Manifest, FileKind::Drops] {
                        let _ = decode_header(kind, &bytes);
                    }
                }
                "vlog_file" | "drops" => {
                    let _ = decode_block(&bytes);
                }
                "svtable" => {
                    svtable_reads(&bytes);
                }
                "compaction_job" => {
                    use twain::format::compaction_job::{decode_job, decode_outcome};
                    use twain::format::worker_protocol as wire;
                    // Each seed is one valid message of one kind.
                    let valid = [
                        decode_job(&bytes).is_ok(),
                        decode_outcome(&bytes).is_ok(),
                        wire::decode_hello(&bytes).is_ok(),
                        wire::decode_welcome(&bytes).is_ok(),
                        wire::decode_failure(&bytes).is_ok(),
                        wire::decode_progress(&bytes).is_ok(),
                    ];
                    assert_eq!(valid.iter().filter(|&&v| v).count(), 1, "{valid:?}");
                }
                other => panic!("seeds for an unknown target {other}"),
            }
        }
    }
    assert!(replayed >= 10, "only {replayed} seeds");
}

/// Opens `bytes` as epoch 1 of value file 9 and reads every entry the index names, by
/// offset and by (key, sequence). Returns the values read; errors are fine, panics are not.
fn svtable_reads(bytes: &[u8]) -> Vec<Vec<u8>> {
    use twain::format::handle::ValueHandle;
    let mem = twain::fs::MemFs::new();
    let dir = Path::new("/f");
    twain::fs::Fs::create_dir_all(&mem, dir).unwrap();
    mem.write_file(&dir.join("000009-1.svt"), bytes).unwrap();
    let fs: Arc<dyn twain::fs::Fs> = Arc::new(mem);
    let file = twain::vlog::ValueFile::with_epoch(fs, dir, 9, 1);
    let mut out = Vec::new();
    let Ok(index) = file.svtable() else {
        return out;
    };
    let Ok(entries) = index.entries(file.path()) else {
        return out;
    };
    for (key, seq, offset, len) in entries {
        let h = ValueHandle {
            file: 9,
            epoch: 1,
            offset,
            len,
        };
        if let Ok(v) = file.read_value(&h, &key, seq) {
            out.push(v);
        }
        if let Ok(Some(found)) = file.find(&key, seq) {
            let _ = file.read_value(&found, &key, seq);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A damaged SVTable never panics and never yields a value that was not written.
    #[test]
    fn svtables_read_back_only_written_values_or_fail(muts in mutations()) {
        use twain::fs::Fs;
        let mem = twain::fs::MemFs::new();
        let dir = Path::new("/w");
        mem.create_dir_all(dir).unwrap();
        let path = dir.join("000009-1.svt");
        let mut w = twain::vlog::SvTableWriter::new(mem.create(&path).unwrap(), path.clone(), 9, 1);
        let mut written = Vec::new();
        for i in 0..40u32 {
            let v = format!("value-{i:03}-").repeat(3).into_bytes();
            w.add(format!("k{i:03}").as_bytes(), 100 - u64::from(i), &v).unwrap();
            written.push(v);
        }
        w.finish().unwrap();
        let damaged = mutate(&mem.read_file(&path).unwrap(), &muts);
        for v in svtable_reads(&damaged) {
            prop_assert!(written.contains(&v), "a damaged SVTable yielded bytes never written");
        }
    }
}

//! Writes the seed corpora in `fuzz/seeds/<target>/`: small valid files of every kind,
//! taken from a database built on the in-memory file system, cut into the inputs each
//! target expects. Run from `fuzz/`: `cargo run --bin make_seeds`.

use std::path::Path;
use std::sync::Arc;
use twain::format::compression::compress;
use twain::format::file_header::FILE_HEADER_LEN;
use twain::format::record::{Frame, decode_frame};
use twain::fs::{Fs, MemFs};
use twain::{Compression, Db, Options, WriteBatch, WriteOptions};

fn main() {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        // Three classes: 8-byte values small, 30-byte medium (transient files), 60 large.
        .medium_threshold(16)
        .inline_threshold(48)
        .block_size(256)
        .value_file_size(4096)
        // Values that compress are stored compressed (entry kind 0x05).
        .value_compression(Compression::Lz4)
        .medium_value_compression(Compression::Zstd)
        // Keep the value log as written: its files are the seeds of the log targets.
        .gc_enabled(false);
    let db = Db::open("/db", opts).expect("open");
    for round in 0..6u8 {
        let mut b = WriteBatch::new();
        for i in 0..30u32 {
            if (i + u32::from(round)) % 5 == 0 {
                b.delete(format!("key{i:02}"));
            } else {
                let len = [8, 30, 60][(i % 3) as usize];
                b.put(format!("key{i:02}"), vec![b'a' + round; len]);
            }
        }
        db.write(b, &WriteOptions::synced()).expect("write");
        db.flush().expect("flush");
        if round == 3 {
            db.compact_range(None, None).expect("compact");
        }
    }
    db.put("tail", "in the log").expect("put");
    db.put("compressed", "status=ok order=1234 ".repeat(20))
        .expect("put");
    // Expiring puts, inline and separated, in the log and (after the fuzz seeds' tables)
    // nowhere else: the log's expiry prefix.
    let mut b = WriteBatch::new();
    b.put_with_expiry("expiring", "soon", 4_000_000_000_000)
        .put_with_expiry("expiring big", vec![b'e'; 60], 4_000_000_000_000);
    db.write(b, &WriteOptions::default()).expect("write");
    db.close().expect("close");

    let out = Path::new("seeds");
    let save = |target: &str, name: &str, bytes: &[u8]| {
        let dir = out.join(target);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(name), bytes).expect("write seed");
    };
    let mut names = fs.file_names(Path::new("/db"));
    names.sort();
    for name in names {
        let bytes = fs.read_file(&Path::new("/db").join(&name)).expect("read");
        let first_frame = || match decode_frame(bytes.get(FILE_HEADER_LEN..).unwrap_or_default()) {
            Frame::Good { frame_len, .. } => {
                bytes[FILE_HEADER_LEN..FILE_HEADER_LEN + frame_len].to_vec()
            }
            _ => Vec::new(),
        };
        if name.ends_with(".sst") && bytes.len() < 8192 {
            save("table", &name, &bytes);
            // The blocks without their trailers, and the footer.
            let table = twain::table::Table::open(
                1,
                name.clone().into(),
                fs.open_read(&Path::new("/db").join(&name)).expect("open"),
                bytes.len() as u64,
                Arc::new(twain::cache::BlockCache::new(0)),
            )
            .expect("table");
            let f = table.footer();
            for (what, h) in [
                ("index", f.index),
                ("properties", f.properties),
                ("filter", f.filter),
            ] {
                let (at, size) = (h.offset as usize, h.size as usize);
                save(
                    "table_blocks",
                    &format!("{name}.{what}"),
                    &bytes[at..at + size],
                );
                // A keyed block compressed: the codec byte the target reads first (1 LZ4,
                // 2 zstd), then the stored form.
                if what == "index" {
                    for (codec, byte) in [(Compression::Lz4, 1u8), (Compression::Zstd, 2)] {
                        let mut stored = Vec::new();
                        compress(codec, &bytes[at..at + size], &mut stored);
                        if !stored.is_empty() {
                            let mut seed = vec![byte];
                            seed.extend_from_slice(&stored);
                            save(
                                "table_blocks",
                                &format!("{name}.index.{}", codec.name()),
                                &seed,
                            );
                        }
                    }
                }
            }
            save(
                "table_blocks",
                &format!("{name}.data"),
                &bytes[..f.index.offset.min(600) as usize],
            );
            save(
                "table_blocks",
                &format!("{name}.footer"),
                &bytes[bytes.len() - twain::format::table::FOOTER_LEN..],
            );
        } else if name.ends_with(".vlog") {
            // The targets add the header themselves when the first byte is odd.
            let mut v = vec![3u8];
            v.extend_from_slice(&bytes[FILE_HEADER_LEN..bytes.len().min(6000)]);
            save("vlog_file", &name, &v);
            let frame = first_frame();
            save("vlog_batch", &name, &frame);
            save(
                "header_frame",
                &format!("{name}.header"),
                &bytes[..FILE_HEADER_LEN],
            );
            save("header_frame", &format!("{name}.frame"), &frame);
        } else if name.ends_with(".manifest") {
            let mut at = FILE_HEADER_LEN;
            let mut n = 0;
            while let Frame::Good { payload, frame_len } = decode_frame(&bytes[at..]) {
                save("manifest_edit", &format!("{name}.{n}"), payload);
                at += frame_len;
                n += 1;
            }
            save("header_frame", &name, &bytes[..bytes.len().min(512)]);
        } else if name.ends_with(".svt") {
            // A flush's transient file of medium values.
            save("svtable", &name, &bytes);
        } else if name.ends_with(".drop") {
            let mut v = vec![1u8];
            v.extend_from_slice(&bytes[FILE_HEADER_LEN..]);
            save("drops", &format!("{name}.file"), &v);
            // A new GC epoch's drop file may hold a header and no block yet.
            if let Some(block) = first_frame().get(8..).filter(|b| !b.is_empty()) {
                save("drops", &format!("{name}.block"), block);
            }
        }
    }
    svtable_seeds(&save);
    compaction_job_seeds(&save);
}

/// SVTables: a small database whose overwritten value files value GC rewrites.
fn svtable_seeds(save: &dyn Fn(&str, &str, &[u8])) {
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .inline_threshold(24)
        .value_file_size(4096)
        .gc_enabled(false)
        .gc_threshold(1.0);
    let db = Db::open("/db", opts).expect("open");
    for round in 0..3u8 {
        for i in 0..40u32 {
            if round == 0 || i % 3 == 0 {
                db.put(format!("key{i:02}"), vec![b'a' + round; 40 + i as usize])
                    .expect("put");
            }
        }
        db.compact_range(None, None).expect("compact");
    }
    db.gc().expect("gc");
    db.close().expect("close");
    let mut names = fs.file_names(Path::new("/db"));
    names.sort();
    for name in names.into_iter().filter(|n| n.ends_with(".svt")).take(3) {
        let bytes = fs.read_file(&Path::new("/db").join(&name)).expect("read");
        save("svtable", &name, &bytes);
    }
    // Hash-layout segments: a flush's (records and tombstones, epoch 1), a group GC's main
    // segment (epoch 2 and later) and cold segment.
    let fs = MemFs::new();
    let opts = Options::default()
        .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
        .inline_threshold(24)
        .medium_threshold(24)
        .value_layout(twain::ValueLayout::Hash)
        .hash_groups(2)
        .gc_enabled(false);
    let db = Db::open("/db", opts).expect("open");
    for round in 0..2u8 {
        for i in 0..30u32 {
            match i % 5 {
                0 => db.delete(format!("key{i:02}")).expect("delete"),
                1 => db.put(format!("key{i:02}"), "small").expect("put"),
                _ => db
                    .put(format!("key{i:02}"), vec![b'a' + round; 40 + i as usize])
                    .expect("put"),
            }
        }
        db.flush().expect("flush");
        // The second GC moves the main segment's survivors to a cold segment.
        db.gc().expect("gc");
    }
    db.close().expect("close");
    let mut names = fs.file_names(Path::new("/db"));
    names.sort();
    for name in names.iter().filter(|n| n.ends_with(".svt")).take(4) {
        let bytes = fs.read_file(&Path::new("/db").join(name)).expect("read");
        save("svtable", &format!("segment-{name}"), &bytes);
    }
    // Its manifest: hash segments, main and cold (tags 15, 16 and 17).
    for name in names.iter().filter(|n| n.ends_with(".manifest")) {
        let bytes = fs.read_file(&Path::new("/db").join(name)).expect("read");
        let mut at = FILE_HEADER_LEN;
        let mut n = 0;
        while let Frame::Good { payload, frame_len } = decode_frame(&bytes[at..]) {
            save("manifest_edit", &format!("hash-{name}.{n}"), payload);
            at += frame_len;
            n += 1;
        }
    }
}

/// Compaction job messages: a job with every field set, and an outcome with tables, drops,
/// a required epoch and a placed file.
fn compaction_job_seeds(save: &dyn Fn(&str, &str, &[u8])) {
    use twain::compaction::job::{ManualRange, PartFigures, PartJob, PartOutcome, PartSettings};
    use twain::compaction::split::PartRange;
    use twain::format::compaction_job::{encode_job, encode_outcome};
    use twain::format::manifest::{TableRecord, ValueFileOrigin, ValueFileRecord};
    use twain::key::internal_key;
    use twain::vlog::DropWriter;
    let table = |level: usize, number: u64, lo: &str, hi: &str| TableRecord {
        level,
        number,
        file_size: 4000 + number,
        smallest: internal_key(lo.as_bytes(), 9, 1),
        largest: internal_key(hi.as_bytes(), 3, 2),
        smallest_seq: 3,
        largest_seq: 9,
    };
    let job = PartJob {
        level: 0,
        output_level: 1,
        inputs: vec![
            table(0, 12, "key00", "key29"),
            table(0, 11, "key03", "key20"),
        ],
        lower: vec![table(1, 7, "key00", "key14"), table(1, 8, "key15", "key29")],
        range: PartRange {
            start: Some(b"key10".to_vec()),
            end: Some(b"key20".to_vec()),
        },
        snapshots: vec![40, 77],
        deeper: vec![vec![(b"key00".to_vec(), b"key09".to_vec())]],
        value_files: [
            (4, (0, ValueFileOrigin::Log)),
            (6, (1, ValueFileOrigin::Transient)),
        ]
        .into_iter()
        .collect(),
        settings: PartSettings::from_options(&Options::default()),
        manual: Some(ManualRange {
            begin: Some(b"key05".to_vec()),
            end: None,
        }),
        numbers: 30..34,
        now: 1_800_000_000_000,
        hash_forward: None,
    };
    save("compaction_job", "job", &encode_job(&job));
    let mut drops = DropWriter::new();
    drops.add(4, 17, 0, 90, b"key11");
    drops.add(4, 18, 0, 90, b"key12");
    drops.add(6, 21, 1, 40, b"key13");
    drops.require_epoch(6, 1);
    let outcome = PartOutcome {
        tables: vec![table(1, 30, "key10", "key19")],
        drops,
        placed: Some(ValueFileRecord {
            number: 33,
            epoch: 1,
            total_bytes: 900,
            separated_bytes: 700,
            separated_count: 7,
        }),
        figures: PartFigures {
            table_bytes_written: 4030,
            value_bytes_read: 120,
            ..PartFigures::default()
        },
    };
    save("compaction_job", "outcome", &encode_outcome(&outcome));
    use twain::format::worker_protocol as wire;
    let hello = wire::Hello {
        identity: "0123456789abcdef0123456789abcdef".into(),
        token: b"secret".to_vec(),
        progress_ms: 500,
    };
    save("compaction_job", "hello", &wire::encode_hello(&hello));
    save(
        "compaction_job",
        "welcome",
        &wire::encode_welcome("0123456789abcdef0123456789abcdef"),
    );
    let failure = wire::Failure {
        code: wire::FailureCode::PartFailed,
        message: "input table 12: corrupt block".into(),
    };
    save("compaction_job", "failure", &wire::encode_failure(&failure));
    save("compaction_job", "progress", &wire::encode_progress(8192));
}

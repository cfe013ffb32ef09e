//! Fuzz targets for every decoder of twain: each function takes arbitrary bytes, feeds them
//! to one decoder (and to everything that decodes on from it), and panics only if the
//! decoder breaks a contract: it must never panic, and what it accepts must round-trip.
//! The binaries in `src/bin/` hand AFL++'s inputs to these functions.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::cache::BlockCache;
use twain::format::block::{Block, BlockIter, BlockType, check_block_trailer};
use twain::format::bloom::BloomFilter;
use twain::format::compaction_job::{decode_job, decode_outcome, encode_job, encode_outcome};
use twain::format::drops::{decode_block, encode_block};
use twain::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header, encode_header};
use twain::format::manifest::VersionEdit;
use twain::format::record::{Frame, decode_frame, next_good_frame};
use twain::format::table::{Footer, TableProperties};
use twain::format::vlog::{BatchReader, RecordType, decode_separated, peek_header};
use twain::fs::{Fs, MemFs};
use twain::iter::InternalIterator;
use twain::table::Table;
use twain::version::VersionState;
use twain::vlog::{read_drop_set, scan_value_file};

/// A file system holding `bytes` as `/f/<name>`.
fn file_with(name: &str, bytes: &[u8]) -> (MemFs, PathBuf) {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/f")).expect("mkdir in memory");
    let path = Path::new("/f").join(name);
    fs.write_file(&path, bytes).expect("write in memory");
    (fs, path)
}

/// Value-log batches: the frame, the batch entries, and reading a separated entry.
pub fn vlog_batch(data: &[u8]) {
    if let Frame::Good { payload, frame_len } = decode_frame(data) {
        assert!(frame_len <= data.len());
        walk_batch(payload);
    }
    walk_batch(data);
    let _ = peek_header(data);
    let (key, rest) = data.split_at(data.len().min(4));
    if let Ok(v) = decode_separated(rest, key, 7) {
        assert!(v.range.end <= rest.len() && v.range.start <= v.range.end);
    }
    // A compressed value's bytes (kind 0x05): decoding never allocates past the largest
    // value, and what decodes has the length it claims.
    if let Ok(raw) = twain::format::compression::decompress_value(data) {
        assert!(raw.len() <= twain::MAX_VALUE_SIZE);
    }
}

fn walk_batch(payload: &[u8]) {
    if let Ok(mut r) = BatchReader::new(payload) {
        let h = r.header();
        let mut n = 0u32;
        while let Ok(Some(e)) = r.next_entry() {
            // A batch numbers its entries from `first_seq`; a relocation record's entries
            // carry their own sequence numbers.
            if h.record_type == RecordType::Batch {
                assert_eq!(Some(e.seq), h.first_seq.checked_add(u64::from(n)));
            }
            assert!(e.offset + e.len <= payload.len());
            if e.compressed {
                let _ = e.stored().value();
            }
            n += 1;
        }
        assert!(n <= h.count);
    }
}

/// A whole value file, as recovery scans it (with a valid header in front when the first
/// byte is odd, so the fuzzer reaches the records).
pub fn vlog_file(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = Vec::new();
    if flags & 1 == 1 {
        bytes.extend_from_slice(&encode_header(FileKind::ValueLog, 1));
    }
    bytes.extend_from_slice(rest);
    let (fs, path) = file_with("000001.vlog", &bytes);
    let may_be_torn = flags & 2 == 2;
    let outcome = scan_value_file(&fs, &path, 1, may_be_torn, |_, len, reader| {
        assert!(len as usize >= twain::format::record::FRAME_HEADER_LEN);
        while let Some(_e) = reader
            .next_entry()
            .map_err(|e| e.into_corruption(&path, 0))?
        {}
        Ok(())
    });
    if let Ok(o) = outcome {
        assert!(o.valid_end <= o.file_len);
        assert_eq!(o.file_len, bytes.len() as u64);
        if o.torn_at.is_some() {
            assert!(may_be_torn, "a torn tail outside the last file");
        }
    }
}

/// An SSTable: open (footer, index, filter, properties) and read every entry both ways.
pub fn table(data: &[u8]) {
    let (fs, path) = file_with("000001.sst", data);
    let Ok(file) = fs.open_read(&path) else {
        return;
    };
    let cache = Arc::new(BlockCache::new(1 << 20));
    let Ok(table) = Table::open(1, path, file, data.len() as u64, cache) else {
        return;
    };
    let table = Arc::new(table);
    let mut keys = Vec::new();
    let mut it = table.iter(true);
    if it.seek_to_first().is_ok() {
        while it.valid() && keys.len() < 100_000 {
            keys.push(it.key().to_vec());
            if it.next().is_err() {
                break;
            }
        }
    }
    let mut back = 0usize;
    if it.seek_to_last().is_ok() {
        while it.valid() && back < 100_000 {
            back += 1;
            if it.prev().is_err() {
                break;
            }
        }
    }
    for k in keys.iter().take(16) {
        let _ = table.get(k);
        let _ = it.seek(k);
    }
}

/// The SSTable decoders behind the checksums, on arbitrary bytes: data/index blocks
/// (parse, then iterate both ways and seek), block trailers, the decompression of LZ4 and
/// zstd blocks, the footer, the properties and the bloom filter.
pub fn table_blocks(data: &[u8]) {
    let _ = check_block_trailer(data);
    // The first byte picks a codec; the rest is a compressed block's stored form.
    if let Some((&codec, stored)) = data.split_first() {
        let block_type = match codec % 3 {
            0 => BlockType::Plain,
            1 => BlockType::Lz4,
            _ => BlockType::Zstd,
        };
        if let Ok(raw) = twain::format::compression::decompress(block_type, stored) {
            let _ = Block::parse(raw);
        }
    }
    let _ = Footer::decode(data);
    let _ = TableProperties::decode(data);
    if let Ok(filter) = BloomFilter::decode(data.to_vec()) {
        let _ = filter.may_contain(b"key");
    }
    let Ok(block) = Block::parse(data.to_vec()) else {
        return;
    };
    let mut it = BlockIter::new(&block);
    let mut keys = Vec::new();
    if it.seek_to_first().is_ok() {
        while it.valid() && keys.len() < 10_000 {
            keys.push(it.key().to_vec());
            if it.next().is_err() {
                break;
            }
        }
    }
    if it.seek_to_last().is_ok() {
        let mut n = 0;
        while it.valid() && n < 10_000 {
            n += 1;
            if it.prev().is_err() {
                break;
            }
        }
    }
    for k in keys.iter().take(8) {
        let _ = it.seek(k);
        let _ = it.seek_for_prev(k);
    }
}

/// Manifest edits: decode, and what decodes must re-encode to an edit that decodes the
/// same; applying it to an empty state must not panic.
pub fn manifest_edit(data: &[u8]) {
    if let Ok(edit) = VersionEdit::decode(data) {
        let again = VersionEdit::decode(&edit.encode()).expect("a re-encoded edit decodes");
        assert_eq!(again, edit);
        let mut state = VersionState::empty(7);
        let _ = state.apply(&edit);
    }
}

/// Drop records: a block, and a whole drop file (header in front when the first byte is
/// odd).
pub fn drops(data: &[u8]) {
    if let Ok(block) = decode_block(data) {
        assert!(block.windows(2).all(|w| w[0].0 < w[1].0), "not ascending");
        assert_eq!(decode_block(&encode_block(&block)), Ok(block));
    }
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = Vec::new();
    if flags & 1 == 1 {
        bytes.extend_from_slice(&encode_header(FileKind::Drops, 3));
    }
    bytes.extend_from_slice(rest);
    let (fs, path) = file_with("000003.drop", &bytes);
    let _ = read_drop_set(&fs, &path, 3);
}

/// File headers and frames.
pub fn header_frame(data: &[u8]) {
    for kind in [FileKind::ValueLog, FileKind::Drops, FileKind::Manifest] {
        if let Ok(n) = decode_header(kind, data) {
            assert_eq!(
                data.get(..FILE_HEADER_LEN),
                Some(&encode_header(kind, n)[..])
            );
        }
    }
    match decode_frame(data) {
        Frame::Good { frame_len, .. } => assert!(frame_len <= data.len()),
        Frame::Truncated { needed } => assert!(needed == 0 || needed > data.len()),
        Frame::Bad { .. } => {}
    }
    if let Some(at) = next_good_frame(data, 0) {
        assert!(matches!(decode_frame(&data[at..]), Frame::Good { .. }));
    }
}

/// An SVTable (a value file rewritten by value GC, a placement file, or a hash-layout
/// segment with tombstones): footer, index (records and tombstones), every record both by
/// its offset and by (key, sequence). The file number and epoch come from the input's
/// header and footer, so that seeds from a database read as they are. Whatever the index
/// accepts must read back through the entry checksums, or fail with an error.
pub fn svtable(data: &[u8]) {
    let number = data
        .get(..FILE_HEADER_LEN)
        .and_then(|h| decode_header(FileKind::SvTable, h).ok())
        .unwrap_or(9);
    // The footer's epoch: 20 bytes before its checksum and magic (format::svtable).
    let epoch = data
        .len()
        .checked_sub(twain::format::svtable::SVT_FOOTER_LEN - 32)
        .and_then(|at| data.get(at..at + 4))
        .map_or(1, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let name = twain::format::names::value_file_path(Path::new("/"), number, epoch);
    let Some(name) = name.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let (fs, _path) = file_with(name, data);
    let fs: Arc<dyn Fs> = Arc::new(fs);
    let file = twain::vlog::ValueFile::with_epoch(Arc::clone(&fs), Path::new("/f"), number, epoch);
    let Ok(index) = file.svtable() else {
        return;
    };
    if let Ok(items) = index.items(file.path()) {
        let tombstones = items.iter().filter(|i| i.record.is_none()).count();
        assert!(
            tombstones == 0 || index.footer().segment,
            "tombstones outside a segment"
        );
        if tombstones == items.len() {
            // A search by (key, sequence) finds records only, and there are none.
            for i in items.iter().take(64) {
                assert!(!matches!(file.find(&i.key, i.seq), Ok(Some(_))));
            }
        }
    }
    let Ok(entries) = index.entries(file.path()) else {
        return;
    };
    for (key, seq, offset, len) in entries.iter().take(256) {
        let h = twain::format::handle::ValueHandle {
            file: number,
            epoch,
            offset: *offset,
            len: *len,
        };
        let direct = file.read_value(&h, key, *seq);
        if let Ok(Some(found)) = file.find(key, *seq) {
            // The first entry with this key and sequence; duplicates may differ.
            let _ = file.read_value(&found, key, *seq);
        }
        drop(direct);
    }
}

/// Compaction job messages (`format::compaction_job`): a job and an outcome, and the
/// connection's messages and frames (`format::worker_protocol`). What decodes encodes
/// again to bytes that decode to the same thing.
pub fn compaction_job(data: &[u8]) {
    use twain::format::worker_protocol as wire;
    if let Ok(h) = wire::decode_hello(data) {
        assert_eq!(wire::decode_hello(&wire::encode_hello(&h)), Ok(h));
    }
    if let Ok(id) = wire::decode_welcome(data) {
        assert_eq!(wire::decode_welcome(&wire::encode_welcome(&id)), Ok(id));
    }
    if let Ok(f) = wire::decode_failure(data) {
        let again = wire::decode_failure(&wire::encode_failure(&f)).expect("re-encoded failure");
        assert_eq!(again.code, f.code);
    }
    if let Ok(n) = wire::decode_progress(data) {
        assert_eq!(wire::decode_progress(&wire::encode_progress(n)), Ok(n));
    }
    let _ = wire::kind_of(data);
    // Frames: never more memory than the bytes there are.
    let mut r = data;
    while let Ok(frame) = wire::read_frame(&mut r, 1 << 16) {
        assert!(frame.len() <= data.len());
    }
    if let Ok(job) = decode_job(data) {
        assert_eq!(decode_job(&encode_job(&job)).as_ref(), Ok(&job));
    }
    if let Ok(outcome) = decode_outcome(data) {
        let once = encode_outcome(&outcome);
        let again = decode_outcome(&once).expect("a re-encoded outcome decodes");
        assert_eq!(encode_outcome(&again), once);
    }
}

//! Value GC in drop-records mode (NovKV): rewrite a value file's live records, sorted by
//! key, into an SVTable that keeps the file number with the next epoch. No LSM lookups, no
//! LSM writes: validity comes from the drop set, and stale handles are fixed on read.
//!
//! This is the job's part, from its [`Job`] alone; `db::value_gc` installs the result.
//! Crash safety, step by step: the SVTable and its drop file are written and synced (with
//! their directory) before the manifest edit that makes them the file's current epoch; the
//! old epoch's files are deleted only after that edit is durable and no reader holds them.
//! A crash before the edit leaves files no manifest names, which the next open removes.

use super::{Job, Record, Throttle};
use crate::Result;
use crate::error::IoContext;
use crate::format::names::value_file_path;
use crate::options::GcEvent;
use crate::seq_set::SeqMap;
use crate::vlog::{SvTableSummary, SvTableWriter};
use std::path::PathBuf;

/// The output of a drop-records run, written and synced, not yet installed.
#[derive(Debug)]
pub(crate) struct Rewritten {
    /// The new epoch.
    pub epoch: u32,
    /// The SVTable's path.
    pub path: PathBuf,
    /// What the SVTable holds; `None` if nothing was live (no file was written).
    pub summary: Option<SvTableSummary>,
    /// The length of each copied record in the SVTable, by sequence number.
    pub lens: SeqMap<u32>,
}

/// Writes `live`, the live records of the job's file, into an SVTable at the next epoch,
/// synced with its directory entry.
pub(crate) fn write_svtable(
    job: &Job,
    mut live: Vec<Record>,
    throttle: &mut Throttle,
) -> Result<Rewritten> {
    let (fs, dir) = (job.fs.as_ref(), &job.dir);
    let (number, epoch) = (job.file.number(), job.file.epoch());
    if epoch == 0 {
        live.sort_by(|a, b| a.key.cmp(&b.key).then(b.seq.cmp(&a.seq)));
        // One version twice in a log: lsm-lookup relocation judges a record live by its key
        // and sequence, so when a version has a second copy in another value file (a
        // compaction's re-placement), both copies can land in one relocation record. Either
        // copy is the version (a read finds it by key and sequence): keep one.
        live.dedup_by(|b, a| a.key == b.key && a.seq == b.seq);
    }
    let new_epoch = epoch + 1;
    let path = value_file_path(dir, number, new_epoch);
    let mut lens: SeqMap<u32> = crate::seq_set::seq_map_with_capacity(live.len());
    let summary = if live.is_empty() {
        None
    } else {
        let out = fs.create(&path).ctx("create", &path)?;
        let mut w = SvTableWriter::new(out, path.clone(), number, new_epoch);
        for r in &live {
            let (_, len) = w.add_stored(&r.key, r.seq, r.stored())?;
            lens.insert(r.seq, len);
            throttle.spend(u64::from(len));
        }
        drop(live);
        let s = w.finish()?;
        // IMPORTANT: the SVTable's directory entry is durable before the manifest names it.
        fs.sync_dir(dir).ctx("sync directory", dir)?;
        Some(s)
    };
    job.emit(GcEvent::OutputSynced { file: number });
    Ok(Rewritten {
        epoch: new_epoch,
        path,
        summary,
        lens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::file_header::{FileKind, encode_header};
    use crate::format::vlog::{BatchRecordWriter, LogEntryKind, RelocationWriter};
    use crate::fs::{Fs, MemFs};
    use crate::key::SeqNo;
    use crate::seq_set::SeqSet;
    use crate::vlog::ValueFile;
    use std::path::Path;
    use std::sync::Arc;

    /// A GC job of value log `number` in `/db`, holding `bytes` (three separated records)
    /// with the drop set `dropped`.
    fn log_job(fs: &Arc<dyn Fs>, number: u64, bytes: &[u8], dropped: SeqSet) -> Job {
        let dir = Path::new("/db");
        let path = crate::format::names::value_file_path(dir, number, 0);
        let mut f = fs.create(&path).unwrap();
        f.append(bytes).unwrap();
        Job {
            fs: Arc::clone(fs),
            dir: dir.to_path_buf(),
            file: Arc::new(ValueFile::with_epoch(Arc::clone(fs), dir, number, 0)),
            dropped,
            separated_count: 3,
            punched: Vec::new(),
            bytes_per_sec: 0,
            closing: Default::default(),
            listener: None,
        }
    }

    /// A job runs from its inputs alone: a value log file on a file system, its drop set
    /// and count; no database.
    #[test]
    fn a_job_rewrites_the_live_records_of_a_log_into_an_svtable() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let mut buf = encode_header(FileKind::ValueLog, 3).to_vec();
        let mut w = BatchRecordWriter::begin(&mut buf, 10, 0);
        for key in [&b"b"[..], b"a", b"c"] {
            w.add(&mut buf, LogEntryKind::Separated, key, &[key[0]; 40]);
        }
        w.finish(&mut buf);
        let job = log_job(&fs, 3, &buf, [11].into_iter().collect());
        let mut throttle = Throttle::new(0);
        let (input, _) = job.read(&mut throttle, true).unwrap();
        let input = input.unwrap();
        assert_eq!(input.records.len(), 2);
        let out = write_svtable(&job, input.records, &mut throttle).unwrap();
        assert_eq!(out.epoch, 1);
        assert_eq!(out.summary.unwrap().entry_count, 2);
        let svt = ValueFile::with_epoch(Arc::clone(&fs), dir, 3, 1);
        let h = svt.find(b"c", 12).unwrap().unwrap();
        assert_eq!(svt.read_value(&h, b"c", 12).unwrap(), vec![b'c'; 40]);
        assert_eq!(svt.find(b"a", 11).unwrap(), None);
    }

    /// A GC run reads an SVTable's entries as long as its pace says: a table of just over
    /// 2 MiB of entries in nine or ten reads while users read, in one (after its index)
    /// otherwise.
    #[test]
    fn an_svtable_is_read_as_long_as_the_pace_says() {
        use crate::fs::{FaultFs, OpKind};
        use crate::gc::{BULK_READ, Pace, SHARED_READ, read_records};
        let mem = MemFs::new();
        let fault = Arc::new(FaultFs::over_mem(&mem));
        let fs: Arc<dyn Fs> = fault.clone();
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let mut buf = encode_header(FileKind::ValueLog, 3).to_vec();
        let mut w = BatchRecordWriter::begin(&mut buf, 1, 0);
        for i in 0..540u32 {
            w.add(
                &mut buf,
                LogEntryKind::Separated,
                &i.to_be_bytes(),
                &[7; 4000],
            );
        }
        w.finish(&mut buf);
        let mut job = log_job(&fs, 3, &buf, SeqSet::default());
        job.separated_count = 540;
        let mut throttle = Throttle::new(0);
        let (input, _) = job.read(&mut throttle, true).unwrap();
        write_svtable(&job, input.unwrap().records, &mut throttle).unwrap();
        struct Len(u64);
        impl Pace for Len {
            fn check(&self) {}
            fn read_len(&self) -> u64 {
                self.0
            }
        }
        let reads = |len: u64| {
            // A fresh handle on the table: its index is read when it is opened.
            let svt = ValueFile::with_epoch(Arc::clone(&fs), dir, 3, 1);
            svt.svtable().unwrap();
            let pace = Len(len);
            let mut throttle = Throttle::new(0).paced(Some(&pace));
            let before = fault.ops_of(OpKind::Read);
            let scan = read_records(&*fs, &svt, &[], &mut throttle, &SeqSet::default(), true);
            let scan = scan.unwrap();
            assert_eq!((scan.records.len(), scan.damage.len()), (540, 0));
            (fault.ops_of(OpKind::Read) - before, scan.read)
        };
        let (long, whole) = reads(BULK_READ);
        assert_eq!(long, 1);
        assert!(whole > 2 << 20 && whole < BULK_READ);
        // An entry cut by a short read's end is read again whole by the next.
        let (short, read) = reads(SHARED_READ);
        assert!(read >= whole && read <= whole + short * 4100);
        let least = whole.div_ceil(SHARED_READ);
        assert!(
            (least..=least + 1).contains(&short),
            "{short} reads of {read} B"
        );
    }

    /// A log holding one version twice (two copies relocated together: the kill loop found
    /// such a file, and GC refused it at every run) is rewritten with one copy.
    #[test]
    fn a_version_copied_twice_into_a_log_is_kept_once() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let mut buf = encode_header(FileKind::ValueLog, 4).to_vec();
        let mut w = RelocationWriter::begin(&mut buf, 0);
        w.add(&mut buf, 7, b"k", &[b'v'; 40]);
        w.add(&mut buf, 9, b"j", &[b'w'; 40]);
        w.add(&mut buf, 7, b"k", &[b'v'; 40]);
        w.finish(&mut buf);
        let job = log_job(&fs, 4, &buf, Default::default());
        let mut throttle = Throttle::new(0);
        let (input, _) = job.read(&mut throttle, true).unwrap();
        let input = input.unwrap();
        assert_eq!(input.records.len(), 3);
        let out = write_svtable(&job, input.records, &mut throttle).unwrap();
        assert_eq!(out.summary.unwrap().entry_count, 2);
        let svt = ValueFile::with_epoch(Arc::clone(&fs), dir, 4, 1);
        let h = svt.find(b"k", 7).unwrap().unwrap();
        assert_eq!(svt.read_value(&h, b"k", 7).unwrap(), vec![b'v'; 40]);
    }

    /// A dropped sequence the log holds twice is not taken for dead: engines before
    /// aade362 could write a live, relocated copy of a version into the log that holds a
    /// dropped copy of it (the kill loop left two such databases; GC lost their keys). The
    /// rewrite keeps one copy, and no frame holding a copy is dead to a punch.
    #[test]
    fn a_dropped_sequence_held_twice_is_not_taken_for_dead() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let mut buf = encode_header(FileKind::ValueLog, 5).to_vec();
        for (seq, key, v) in [(7, b"k", b'v'), (9, b"j", b'w'), (7, b"k", b'v')] {
            let mut w = RelocationWriter::begin(&mut buf, 0);
            w.add(&mut buf, seq, key, &[v; 40]);
            w.finish(&mut buf);
        }
        let job = log_job(&fs, 5, &buf, [7, 9].into_iter().collect());
        let mut throttle = Throttle::new(0);
        let (input, _) = job.read(&mut throttle, true).unwrap();
        let input = input.unwrap();
        let seqs: Vec<SeqNo> = input.records.iter().map(|r| r.seq).collect();
        assert_eq!(seqs, [7, 7]);
        // Three frames: j@9's alone is dead (the last frame always stays).
        let live: Vec<bool> = input.spans.iter().map(|s| s.live).collect();
        assert_eq!(live, [true, false, true]);
        let out = write_svtable(&job, input.records, &mut throttle).unwrap();
        assert_eq!(out.summary.unwrap().entry_count, 1);
        let svt = ValueFile::with_epoch(Arc::clone(&fs), dir, 5, 1);
        let h = svt.find(b"k", 7).unwrap().unwrap();
        assert_eq!(svt.read_value(&h, b"k", 7).unwrap(), vec![b'v'; 40]);
        assert_eq!(svt.find(b"j", 9).unwrap(), None);
    }
}

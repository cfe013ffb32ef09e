//! Group GC in the hash layout (HashKV): merge every segment of one group into the group's
//! main segment, keeping the records that are live, judged from the group alone.
//!
//! Every version of a key is in its group: a large value as a record, a delete or small
//! put as a tombstone (`db::flush`). So the group's entries of a key, newest first, are
//! judged as a compaction judges versions (`compaction::filter`): one per snapshot stripe
//! survives, and a tombstone older than every snapshot goes too, since no other group can
//! hold the key. No LSM lookup, no drop record.
//!
//! The output keeps the file number of the group's main segment (or, at the group's first
//! GC, of its lowest-numbered segment) with the next epoch, NovKV-style: a handle naming
//! that number at an older epoch finds its record by key and sequence, and a handle naming
//! a segment merged away is forwarded to the main segment of its key's group
//! (`Version::hash_forward`). Stale handles are fixed lazily by reads and compactions.
//!
//! This is the job, from its [`GroupJob`] alone; `db::group_gc` picks, installs and paces.
//! Crash safety: the output is written and synced with its directory entry before the
//! manifest edit that makes it the main segment's new epoch and deletes the other inputs;
//! a crash before the edit leaves a file no manifest names, which the next open removes.

use super::Throttle;
use crate::Result;
use crate::compaction::filter::{Decision, DropFilter};
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::names::value_file_path;
use crate::fs::Fs;
use crate::key::{EntryKind, SeqNo, internal_key};
use crate::vlog::{SvTableSummary, SvTableWriter, ValueFile};
use std::path::PathBuf;
use std::sync::Arc;

/// Bytes the output buffers before appending.
const OUTPUT_CHUNK: usize = 1 << 20;

/// One group GC: its inputs and where the output goes.
pub(crate) struct GroupJob {
    pub fs: Arc<dyn Fs>,
    pub dir: PathBuf,
    /// The group.
    pub group: u32,
    /// Every segment of the group when the job was made.
    pub inputs: Vec<Arc<ValueFile>>,
    /// The file number the output keeps (one of the inputs').
    pub keep: u64,
    /// The output's epoch: one past the kept file's.
    pub epoch: u32,
    /// Live snapshots' sequence numbers.
    pub snapshots: Vec<SeqNo>,
    /// Read + write rate limit (0: none).
    pub bytes_per_sec: u64,
}

/// What a group GC wrote, synced and not yet installed.
#[derive(Debug)]
pub(crate) struct GroupOutput {
    /// What it holds; `None` if nothing in the group was live (no file was written).
    pub summary: Option<SvTableSummary>,
    /// Bytes of records read (the live ones; dead records are never read).
    pub bytes_read: u64,
}

/// One index item of an input: (key, sequence, input, record).
type Item = (Vec<u8>, SeqNo, usize, Option<(u64, u32)>);

impl GroupJob {
    /// Runs the job: merges the inputs' indexes, reads and writes the live records.
    pub(crate) fn run(&self) -> Result<GroupOutput> {
        let mut items: Vec<Item> = Vec::new();
        for (i, f) in self.inputs.iter().enumerate() {
            for it in f.svtable()?.items(f.path())? {
                items.push((it.key, it.seq, i, it.record));
            }
        }
        // Internal-key order: user key ascending, newest first. Sequences are unique per
        // key, except that nothing forbids one record in two inputs: the first wins.
        items.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));

        let path = value_file_path(&self.dir, self.keep, self.epoch);
        let mut filter = DropFilter::new(self.snapshots.clone());
        let mut throttle = Throttle::new(self.bytes_per_sec);
        let mut writer: Option<SvTableWriter> = None;
        let mut bytes_read = 0u64;
        let mut ikey = Vec::new();
        for (key, seq, input, record) in &items {
            ikey.clear();
            let kind = match record {
                Some(_) => EntryKind::Handle,
                None => EntryKind::Delete,
            };
            ikey.extend_from_slice(&internal_key(key, *seq, kind as u8));
            // Every older version of the key is in this group: a tombstone older than
            // every snapshot has nothing left to hide.
            if filter.decide(&ikey, |_| true) != Decision::Keep {
                continue;
            }
            let w = match writer.as_mut() {
                Some(w) => w,
                None => {
                    let file = self.fs.create(&path).ctx("create", &path)?;
                    writer.insert(
                        SvTableWriter::with_chunk(
                            file,
                            path.clone(),
                            self.keep,
                            self.epoch,
                            OUTPUT_CHUNK,
                        )
                        .into_segment(),
                    )
                }
            };
            match *record {
                None => w.add_tombstone(key, *seq)?,
                Some((offset, len)) => {
                    let f = &self.inputs[*input];
                    let h = ValueHandle {
                        file: f.number(),
                        epoch: f.epoch(),
                        offset,
                        len,
                    };
                    let value = f.read_value(&h, key, *seq)?;
                    bytes_read += u64::from(len);
                    throttle.spend(u64::from(len));
                    let (_, written) = w.add(key, *seq, &value)?;
                    throttle.spend(u64::from(written));
                }
            }
        }
        let summary = match writer {
            None => None,
            Some(w) => {
                let s = w.finish()?;
                // IMPORTANT: the output's directory entry is durable before the manifest
                // names it.
                self.fs
                    .sync_dir(&self.dir)
                    .ctx("sync directory", &self.dir)?;
                Some(s)
            }
        };
        Ok(GroupOutput {
            summary,
            bytes_read,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use std::path::Path;

    /// A segment of `entries` (key, seq, value; `None` for a tombstone) at `epoch`.
    fn segment(
        fs: &Arc<dyn Fs>,
        number: u64,
        epoch: u32,
        entries: &[(&str, SeqNo, Option<&str>)],
    ) -> Arc<ValueFile> {
        let dir = Path::new("/db");
        let path = value_file_path(dir, number, epoch);
        let mut w =
            SvTableWriter::new(fs.create(&path).unwrap(), path, number, epoch).into_segment();
        for &(k, s, v) in entries {
            match v {
                Some(v) => {
                    w.add(k.as_bytes(), s, v.as_bytes()).unwrap();
                }
                None => w.add_tombstone(k.as_bytes(), s).unwrap(),
            }
        }
        w.finish().unwrap();
        Arc::new(ValueFile::with_epoch(Arc::clone(fs), dir, number, epoch))
    }

    fn job(fs: &Arc<dyn Fs>, inputs: Vec<Arc<ValueFile>>, snapshots: Vec<SeqNo>) -> GroupJob {
        GroupJob {
            fs: Arc::clone(fs),
            dir: PathBuf::from("/db"),
            group: 0,
            keep: inputs[0].number(),
            epoch: inputs[0].epoch() + 1,
            inputs,
            snapshots,
            bytes_per_sec: 0,
        }
    }

    /// The output's items: (key, seq, value or None for a tombstone).
    fn items(fs: &Arc<dyn Fs>, number: u64, epoch: u32) -> Vec<(String, SeqNo, Option<String>)> {
        let f = ValueFile::with_epoch(Arc::clone(fs), Path::new("/db"), number, epoch);
        f.svtable()
            .unwrap()
            .items(f.path())
            .unwrap()
            .into_iter()
            .map(|i| {
                let value = i.record.map(|(offset, len)| {
                    let h = ValueHandle {
                        file: number,
                        epoch,
                        offset,
                        len,
                    };
                    String::from_utf8(f.read_value(&h, &i.key, i.seq).unwrap()).unwrap()
                });
                (String::from_utf8(i.key).unwrap(), i.seq, value)
            })
            .collect()
    }

    fn fs() -> Arc<dyn Fs> {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        fs.create_dir_all(Path::new("/db")).unwrap();
        fs
    }

    #[test]
    fn the_newest_record_of_each_key_survives_and_tombstones_kill() {
        let fs = fs();
        let main = segment(&fs, 3, 2, &[("a", 1, Some("a1")), ("b", 2, Some("b2"))]);
        let log = segment(
            &fs,
            7,
            1,
            &[("a", 5, Some("a5")), ("b", 6, None), ("c", 4, Some("c4"))],
        );
        let out = job(&fs, vec![main, log], vec![]).run().unwrap();
        assert_eq!(out.bytes_read, out.summary.unwrap().entry_bytes);
        assert_eq!(
            items(&fs, 3, 3),
            vec![
                ("a".into(), 5, Some("a5".into())),
                ("c".into(), 4, Some("c4".into())),
            ],
            "a@1 shadowed; b deleted, its tombstone gone with it"
        );
    }

    #[test]
    fn snapshots_keep_what_they_see_and_the_tombstones_that_hide_it() {
        let fs = fs();
        let log = segment(
            &fs,
            9,
            1,
            &[
                ("a", 8, Some("a8")),
                ("a", 4, Some("a4")),
                ("a", 2, Some("a2")),
                ("b", 7, None),
                ("b", 3, Some("b3")),
            ],
        );
        job(&fs, vec![log], vec![5]).run().unwrap();
        assert_eq!(
            items(&fs, 9, 2),
            vec![
                ("a".into(), 8, Some("a8".into())),
                ("a".into(), 4, Some("a4".into())),
                ("b".into(), 7, None),
                ("b".into(), 3, Some("b3".into())),
            ],
            "the snapshot at 5 sees a@4 and b@3; a@2 is hidden from everyone"
        );
    }

    #[test]
    fn a_group_with_nothing_live_writes_nothing() {
        let fs = fs();
        let log = segment(&fs, 4, 1, &[("a", 2, None), ("b", 1, None)]);
        let out = job(&fs, vec![log], vec![]).run().unwrap();
        assert!(out.summary.is_none());
        assert!(!fs.exists(&value_file_path(Path::new("/db"), 4, 2)).unwrap());
    }

    #[test]
    fn a_damaged_live_record_fails_the_job_with_its_file() {
        let mem = MemFs::new();
        let fs: Arc<dyn Fs> = Arc::new(mem.clone());
        fs.create_dir_all(Path::new("/db")).unwrap();
        let log = segment(&fs, 5, 1, &[("a", 2, Some("value of a"))]);
        let data = mem.read_file(log.path()).unwrap();
        let at = data.windows(10).position(|w| w == b"value of a").unwrap();
        mem.corrupt(log.path(), at as u64, 0x20).unwrap();
        let fresh = Arc::new(ValueFile::with_epoch(
            Arc::clone(&fs),
            Path::new("/db"),
            5,
            1,
        ));
        let err = job(&fs, vec![fresh], vec![]).run().unwrap_err();
        assert!(err.is_corruption(), "{err}");
        assert!(err.to_string().contains("000005-1.svt"), "{err}");
    }
}

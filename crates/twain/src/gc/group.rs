//! Group GC in the hash layout (HashKV): merge a group's log segments into its main
//! segment, keeping the records that are live, judged from the group alone, and keep the
//! records that survive twice apart, in cold segments, so that later GCs judge them
//! without copying them (hotness awareness).
//!
//! Every version of a key is in its group: a large value as a record, a delete or small
//! put as a tombstone (`db::flush`). So the group's entries of a key, newest first, are
//! judged as a compaction judges versions (`compaction::filter`): one per snapshot stripe
//! survives, and a tombstone older than every snapshot goes too, unless a cold segment
//! left in place holds an older record of the key (the tombstone still hides it). No LSM
//! lookup, no drop record.
//!
//! **Hotness.** A record of a log segment that survives goes to the main segment: it was
//! written since the group's last GC. A record of the main segment that survives has now
//! survived two GCs without being overwritten: it is cold, and goes to a new cold segment
//! (HashKV separates cold values for the same reason; where HashKV leaves a tag in the
//! group, the cold segment's own index serves, read by every GC of the group). Cold
//! segments are judged by their index, with the rest of the group, and left in place: their
//! live records are the bytes hotness saves copying. A cold segment is merged (its live
//! records rewritten into the new cold segment) once its own dead share reaches the job's
//! `cold_dead_share` (one minus the inverse of the space target), and the smallest are
//! merged when the group would otherwise have more than [`MAX_COLD_SEGMENTS`]; when the
//! group was picked for its cold garbage (`merge_deadest_cold`), the one with the most dead
//! bytes is merged whatever its share. The others stay as they are. With hotness off,
//! every survivor goes to the main segment and cold segments are merged into it. A group
//! with no log segment keeps its main segment as it is unless one of its records died or
//! a cold record is merged into it: merging a cold segment copies only that segment.
//!
//! The main output keeps the file number of the group's main segment (or, at the group's
//! first GC, of its lowest-numbered segment) with the next epoch, NovKV-style: a handle
//! naming that number at an older epoch finds its record by key and sequence, and a handle
//! naming a segment merged away is forwarded to the main or a cold segment of its key's
//! group (`Version::hash_chain`). A cold output is a new file number at epoch 1. Stale
//! handles are fixed lazily by reads and compactions.
//!
//! This is the job, from its [`GroupJob`] alone; `db::group_gc` picks, installs and paces.
//! Crash safety: the outputs are written and synced with their directory entries before
//! the manifest edit that installs them and deletes the inputs they replace; a crash before
//! the edit leaves files no manifest names, which the next open removes.

use super::Throttle;
use crate::Result;
use crate::compaction::filter::{Decision, DropFilter};
use crate::error::IoContext;
use crate::format::compression::StoredValue;
use crate::format::handle::ValueHandle;
use crate::format::names::value_file_path;
use crate::fs::Fs;
use crate::hash_layout::{MAX_COLD_SEGMENTS, Role};
use crate::key::{EntryKind, SeqNo, internal_key};
use crate::vlog::{SvTableSummary, SvTableWriter, ValueFile};
use std::path::PathBuf;
use std::sync::Arc;

/// Bytes each output buffers before appending.
const OUTPUT_CHUNK: usize = 1 << 20;

/// One group GC: its inputs and where the outputs go.
pub(crate) struct GroupJob {
    pub fs: Arc<dyn Fs>,
    pub dir: PathBuf,
    /// The group.
    pub group: u32,
    /// The group's main segment, if it has one, then its log segments, when the job was
    /// made: merged and replaced.
    pub inputs: Vec<Arc<ValueFile>>,
    /// The group's cold segments: judged, and replaced only if the job merges them.
    pub cold: Vec<Arc<ValueFile>>,
    /// The file number the main output keeps (one of the inputs').
    pub keep: u64,
    /// The main output's epoch: one past the kept file's.
    pub epoch: u32,
    /// The file number of a cold output (epoch 1), reserved for the job.
    pub cold_number: u64,
    /// Whether survivors of the main segment go to a cold segment.
    pub hotness: bool,
    /// Cold segments are merged once this share of their record bytes is dead.
    pub cold_dead_share: f64,
    /// Whether the cold segment with the most dead bytes is merged whatever its share
    /// (when it has any): the group was picked for its cold garbage.
    pub merge_deadest_cold: bool,
    /// Live snapshots' sequence numbers.
    pub snapshots: Vec<SeqNo>,
    /// Read + write rate limit (0: none).
    pub bytes_per_sec: u64,
    /// Set when the database closes: the job stops waiting out its rate.
    pub closing: Arc<super::Closing>,
}

/// What a group GC wrote, synced and not yet installed.
#[derive(Debug, Default)]
pub(crate) struct GroupOutput {
    /// Whether the job changed anything; if not, nothing is to be installed.
    pub changed: bool,
    /// The main output; `None` if nothing went there (no file was written).
    pub summary: Option<SvTableSummary>,
    /// The cold output; `None` if nothing went there.
    pub cold: Option<SvTableSummary>,
    /// The cold segments the job merged: they are to be deleted.
    pub cold_merged: Vec<u64>,
    /// Bytes of records read (the live ones; dead records are never read).
    pub bytes_read: u64,
    /// Bytes of live records left in place in cold segments: what hotness saved copying.
    pub cold_bytes_not_copied: u64,
    /// Bytes of records judged dead that the job frees: in the inputs, and in the cold
    /// segments if it merged them.
    pub dead_bytes: u64,
    /// Bytes of dead records left in place in cold segments (not merged).
    pub cold_dead_bytes: u64,
    /// Bytes of records in the log segments.
    pub log_bytes: u64,
    /// Whether the main segment is left as it is (no log segment to merge, none of its
    /// records dead, nothing merged into it): it is not an input to delete.
    pub main_kept: bool,
}

/// Where an index item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Log,
    Main,
    Cold,
}

/// One index item of a segment.
struct Item {
    key: Vec<u8>,
    seq: SeqNo,
    source: Source,
    /// The segment: an index into `inputs`, then `cold`.
    file: usize,
    /// Offset and length; `None` for a tombstone.
    record: Option<(u64, u32)>,
}

/// Where a kept item goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Main,
    Cold,
    /// Stays in its cold segment.
    InPlace,
    /// Stays in the main segment, which the job leaves as it is.
    Kept,
}

/// Every item's route, in item order: `None` for a dead one.
type Routes = Vec<Option<Route>>;

impl GroupJob {
    /// The segment an item came from.
    fn file(&self, i: usize) -> &Arc<ValueFile> {
        match self.inputs.get(i) {
            Some(f) => f,
            None => &self.cold[i - self.inputs.len()],
        }
    }

    /// Runs the job: merges the segments' indexes, judges every item, then reads and
    /// writes the live records that move.
    pub(crate) fn run(&self) -> Result<GroupOutput> {
        let mut items: Vec<Item> = Vec::new();
        let mut has_log = false;
        for (i, f) in self.inputs.iter().chain(&self.cold).enumerate() {
            let source = if i >= self.inputs.len() {
                Source::Cold
            } else if Role::of(f.epoch(), false) == Role::Main {
                Source::Main
            } else {
                has_log = true;
                Source::Log
            };
            for it in f.svtable()?.items(f.path())? {
                items.push(Item {
                    key: it.key,
                    seq: it.seq,
                    source,
                    file: i,
                    record: it.record,
                });
            }
        }
        // Internal-key order: user key ascending, newest first. Sequences are unique per
        // key, except that nothing forbids one record in two inputs: the first wins.
        items.sort_by(|a, b| a.key.cmp(&b.key).then(b.seq.cmp(&a.seq)));

        let (merge, judged) = self.cold_to_merge(&items, has_log);
        let mut routes = match judged {
            Some(routes) => routes,
            None => self.judge(&items, &merge, has_log),
        };
        let main_kept = !has_log && self.main_stays(&items, &routes);
        if main_kept {
            for (it, r) in items.iter().zip(routes.iter_mut()) {
                if it.source == Source::Main {
                    *r = Some(Route::Kept);
                }
            }
        }
        let mut out = GroupOutput {
            main_kept,
            cold_merged: self
                .cold
                .iter()
                .zip(&merge)
                .filter(|&(_, &m)| m)
                .map(|(f, _)| f.number())
                .collect(),
            ..GroupOutput::default()
        };
        let mut inputs_dropped = false;
        for (it, r) in items.iter().zip(&routes) {
            let len = it.record.map_or(0, |(_, len)| u64::from(len));
            if it.source == Source::Log {
                out.log_bytes += len;
            }
            match r {
                None if self.in_place(it, &merge) => {
                    out.cold_dead_bytes += len;
                }
                None => {
                    out.dead_bytes += len;
                    inputs_dropped |= it.source != Source::Cold;
                }
                Some(Route::InPlace) => out.cold_bytes_not_copied += len,
                Some(Route::Main | Route::Cold | Route::Kept) => {}
            }
        }
        // Nothing new, nothing to drop, nothing to merge: a GC would only copy.
        out.changed = has_log || !out.cold_merged.is_empty() || inputs_dropped;
        if !out.changed {
            out.cold_bytes_not_copied = 0;
            return Ok(out);
        }
        self.write(&items, &routes, &mut out)?;
        Ok(out)
    }

    /// Which cold segments (by index in `cold`) the job merges: every one with hotness off
    /// (when there is a main segment or a log segment to fold them into); each whose dead
    /// share reaches `cold_dead_share`; the one with the most dead bytes, if none is merged
    /// yet and `merge_deadest_cold` asks for it; and, when one more cold segment would make more
    /// than [`MAX_COLD_SEGMENTS`], the smallest of the rest until it would not. A cold
    /// segment that is not merged stays as it is, however the others fare: a group's
    /// truly cold records are not copied again because a newer cold segment filled up.
    ///
    /// Also the routes of every item when they hold for the choice (no segment merged:
    /// the routes judged to choose are then the final ones), so they are not judged twice.
    fn cold_to_merge(&self, items: &[Item], has_log: bool) -> (Vec<bool>, Option<Routes>) {
        let all = !self.hotness && !self.inputs.is_empty();
        let mut merge = vec![all; self.cold.len()];
        if all || self.cold.is_empty() {
            return (merge, None);
        }
        let routes = self.judge(items, &merge, has_log);
        let mut dead = vec![(0u64, 0u64); self.cold.len()];
        for (it, r) in items.iter().zip(&routes) {
            if let (Some(c), Some((_, len))) = (self.cold_index(it), it.record) {
                dead[c].1 += u64::from(len);
                if r.is_none() {
                    dead[c].0 += u64::from(len);
                }
            }
        }
        for (m, &(d, total)) in merge.iter_mut().zip(&dead) {
            *m = d > 0 && d as f64 >= self.cold_dead_share * total as f64;
        }
        if self.merge_deadest_cold && !merge.contains(&true) {
            let deadest = (0..dead.len()).max_by_key(|&c| (dead[c].0, std::cmp::Reverse(c)));
            if let Some(c) = deadest.filter(|&c| dead[c].0 > 0) {
                merge[c] = true;
            }
        }
        if has_log {
            let mut kept: Vec<usize> = (0..self.cold.len()).filter(|&c| !merge[c]).collect();
            kept.sort_by_key(|&c| (self.cold[c].total_bytes(), c));
            // The merged ones and the main segment's survivors make one new segment.
            let excess = (kept.len() + 1).saturating_sub(MAX_COLD_SEGMENTS);
            for &c in kept.iter().take(excess) {
                merge[c] = true;
            }
        }
        let still_valid = !merge.contains(&true);
        (merge, still_valid.then_some(routes))
    }

    /// Whether a group with no log segment to merge keeps its main segment as it is: none
    /// of its records is dead and nothing else goes there. (A group picked for the garbage
    /// in its cold segments would otherwise copy its whole main segment to merge one cold
    /// segment.)
    fn main_stays(&self, items: &[Item], routes: &Routes) -> bool {
        items.iter().any(|it| it.source == Source::Main)
            && items.iter().zip(routes).all(|(it, r)| match it.source {
                Source::Main => *r == Some(Route::Main),
                Source::Log | Source::Cold => *r != Some(Route::Main),
            })
    }

    /// The index in `cold` of the segment an item came from, if a cold one.
    fn cold_index(&self, it: &Item) -> Option<usize> {
        (it.source == Source::Cold).then(|| it.file - self.inputs.len())
    }

    /// Whether an item stays in a cold segment the job does not merge.
    fn in_place(&self, it: &Item, merge: &[bool]) -> bool {
        self.cold_index(it).is_some_and(|c| !merge[c])
    }

    /// Judges every item: `None` if it is dead, else where it goes. A cold segment in
    /// `merge` is rewritten; the items of the others stay in place, and a tombstone that
    /// hides one of their records is kept.
    fn judge(&self, items: &[Item], merge: &[bool], has_log: bool) -> Routes {
        let mut filter = DropFilter::new(self.snapshots.clone());
        let mut ikey = Vec::new();
        let mut routes = Vec::with_capacity(items.len());
        for (i, it) in items.iter().enumerate() {
            ikey.clear();
            let kind = match it.record {
                Some(_) => EntryKind::Handle,
                None => EntryKind::Delete,
            };
            ikey.extend_from_slice(&internal_key(&it.key, it.seq, kind as u8));
            // Every older version of the key is in this group: a tombstone older than
            // every snapshot has nothing left to hide, unless a cold segment left in
            // place still holds an older record of the key.
            let no_older = || {
                !items[i + 1..]
                    .iter()
                    .take_while(|o| o.key == it.key)
                    .any(|o| self.in_place(o, merge))
            };
            if filter.decide(&ikey, &[], |_| no_older()) != Decision::Keep {
                routes.push(None);
                continue;
            }
            routes.push(Some(match (it.source, it.record) {
                (_, None) | (Source::Log, _) => Route::Main,
                (Source::Main, _) if self.hotness && has_log => Route::Cold,
                (Source::Main, _) => Route::Main,
                (Source::Cold, _) if self.in_place(it, merge) => Route::InPlace,
                // Without a main segment to fold them into, merged cold records stay cold.
                (Source::Cold, _) if self.hotness || self.inputs.is_empty() => Route::Cold,
                (Source::Cold, _) => Route::Main,
            }));
        }
        routes
    }

    /// Reads the records that move and writes the outputs.
    fn write(&self, items: &[Item], routes: &[Option<Route>], out: &mut GroupOutput) -> Result<()> {
        let main_path = value_file_path(&self.dir, self.keep, self.epoch);
        let cold_path = value_file_path(&self.dir, self.cold_number, 1);
        let mut throttle = Throttle::new(self.bytes_per_sec).until_closed(&self.closing);
        let mut main: Option<SvTableWriter> = None;
        let mut cold: Option<SvTableWriter> = None;
        for (it, route) in items.iter().zip(routes) {
            let (slot, path, number, epoch) = match route {
                None | Some(Route::InPlace | Route::Kept) => continue,
                Some(Route::Main) => (&mut main, &main_path, self.keep, self.epoch),
                Some(Route::Cold) => (&mut cold, &cold_path, self.cold_number, 1),
            };
            let w = match slot {
                Some(w) => w,
                None => {
                    let file = self.fs.create(path).ctx("create", path)?;
                    slot.insert(
                        SvTableWriter::with_chunk(file, path.clone(), number, epoch, OUTPUT_CHUNK)
                            .into_segment(),
                    )
                }
            };
            match it.record {
                None => w.add_tombstone(&it.key, it.seq)?,
                Some((offset, len)) => {
                    let f = self.file(it.file);
                    let h = ValueHandle {
                        file: f.number(),
                        epoch: f.epoch(),
                        offset,
                        len,
                    };
                    // Copied as stored: a compressed value stays compressed.
                    let (bytes, compressed) = f.read_stored(&h, &it.key, it.seq)?;
                    out.bytes_read += u64::from(len);
                    throttle.spend(u64::from(len));
                    let stored = StoredValue {
                        bytes: &bytes,
                        compressed,
                    };
                    let (_, written) = w.add_stored(&it.key, it.seq, stored)?;
                    throttle.spend(u64::from(written));
                }
            }
        }
        out.summary = main.map(SvTableWriter::finish).transpose()?;
        out.cold = cold.map(SvTableWriter::finish).transpose()?;
        if out.summary.is_some() || out.cold.is_some() {
            // IMPORTANT: the outputs' directory entries are durable before the manifest
            // names them.
            self.fs
                .sync_dir(&self.dir)
                .ctx("sync directory", &self.dir)?;
        }
        Ok(())
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
            keep: inputs.first().map_or(0, |f| f.number()),
            epoch: inputs.first().map_or(0, |f| f.epoch() + 1),
            inputs,
            cold: Vec::new(),
            cold_number: 99,
            hotness: true,
            cold_dead_share: 0.3,
            merge_deadest_cold: false,
            snapshots,
            bytes_per_sec: 0,
            closing: Default::default(),
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

    /// A job over `inputs` and `cold` segments.
    fn job_with_cold(
        fs: &Arc<dyn Fs>,
        inputs: Vec<Arc<ValueFile>>,
        cold: Vec<Arc<ValueFile>>,
    ) -> GroupJob {
        GroupJob {
            cold,
            ..job(fs, inputs, vec![])
        }
    }

    fn value(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn records_of_the_main_segment_that_survive_again_go_cold() {
        let fs = fs();
        let main = segment(&fs, 3, 2, &[("a", 1, Some("a1")), ("b", 2, Some("b2"))]);
        let log = segment(&fs, 7, 1, &[("a", 5, Some("a5")), ("c", 4, Some("c4"))]);
        let out = job(&fs, vec![main, log], vec![]).run().unwrap();
        assert!(out.changed && out.cold_merged.is_empty());
        assert_eq!(
            items(&fs, 3, 3),
            vec![("a".into(), 5, value("a5")), ("c".into(), 4, value("c4"))],
            "written since the last GC: main"
        );
        assert_eq!(
            items(&fs, 99, 1),
            vec![("b".into(), 2, value("b2"))],
            "survived twice: cold"
        );
        assert_eq!(out.cold.unwrap().entry_count, 1);
    }

    #[test]
    fn hotness_off_keeps_every_survivor_in_the_main_segment() {
        let fs = fs();
        let main = segment(&fs, 3, 2, &[("b", 2, Some("b2"))]);
        let log = segment(&fs, 7, 1, &[("c", 4, Some("c4"))]);
        let out = GroupJob {
            hotness: false,
            ..job(&fs, vec![main, log], vec![])
        }
        .run()
        .unwrap();
        assert!(out.cold.is_none());
        assert_eq!(
            items(&fs, 3, 3),
            vec![("b".into(), 2, value("b2")), ("c".into(), 4, value("c4"))]
        );
    }

    #[test]
    fn cold_records_stay_in_place_and_a_tombstone_keeps_hiding_them() {
        let fs = fs();
        let cold = segment(
            &fs,
            5,
            1,
            &[
                ("a", 1, Some("a1 is long enough to matter")),
                ("x", 2, Some("x2 is long enough to matter")),
                ("y", 2, Some("y2 is long enough to matter")),
                ("z", 2, Some("z2 is long enough to matter")),
            ],
        );
        let log = segment(&fs, 8, 1, &[("a", 9, None), ("c", 4, Some("c4"))]);
        let out = job_with_cold(&fs, vec![log], vec![cold]).run().unwrap();
        assert!(
            out.cold_merged.is_empty(),
            "a quarter dead is below the share"
        );
        assert!(out.cold.is_none());
        assert_eq!(
            out.cold_bytes_not_copied,
            3 * out.cold_dead_bytes,
            "x, y, z left in place; a dead"
        );
        assert_eq!(out.dead_bytes, 0, "nothing freed");
        assert_eq!(
            items(&fs, 8, 2),
            vec![("a".into(), 9, None), ("c".into(), 4, value("c4"))],
            "the tombstone stays while a cold record of the key does"
        );
        assert_eq!(out.log_bytes, out.bytes_read);
    }

    #[test]
    fn cold_segments_are_merged_once_enough_of_them_is_dead() {
        let fs = fs();
        let cold = segment(&fs, 5, 1, &[("a", 1, Some("a1")), ("b", 2, Some("b2"))]);
        let log = segment(&fs, 8, 1, &[("a", 9, None), ("c", 4, Some("c4"))]);
        let out = job_with_cold(&fs, vec![log], vec![cold]).run().unwrap();
        assert_eq!(out.cold_merged, [5], "half dead");
        assert_eq!(out.cold_bytes_not_copied, 0);
        assert_eq!(items(&fs, 99, 1), vec![("b".into(), 2, value("b2"))]);
        assert_eq!(
            items(&fs, 8, 2),
            vec![("c".into(), 4, value("c4"))],
            "the tombstone has nothing left to hide"
        );
    }

    #[test]
    fn a_group_keeps_at_most_its_share_of_cold_segments() {
        let fs = fs();
        let cold: Vec<_> = (0..MAX_COLD_SEGMENTS as u64)
            .map(|i| {
                segment(
                    &fs,
                    20 + i,
                    1,
                    &[(["p", "q", "r", "s"][i as usize], 1, Some("v"))],
                )
            })
            .collect();
        let main = segment(&fs, 3, 2, &[("m", 2, Some("m2"))]);
        let log = segment(&fs, 9, 1, &[("n", 4, Some("n4"))]);
        let out = job_with_cold(&fs, vec![main, log], cold).run().unwrap();
        assert_eq!(out.cold_merged.len(), 1, "the smallest, merged with m2");
        let merged: Vec<String> = items(&fs, 99, 1).into_iter().map(|i| i.0).collect();
        assert_eq!(merged.len(), 2, "{merged:?}");
        assert_eq!(merged[0], "m");
        assert_eq!(
            out.cold_bytes_not_copied,
            3 * 9,
            "three segments of one 9-byte entry each left in place"
        );
    }

    #[test]
    fn the_deadest_cold_segment_is_merged_when_the_group_is_picked_for_it() {
        let fs = fs();
        let main = segment(&fs, 3, 2, &[("a", 9, Some("a9"))]);
        // A quarter dead, under the job's 0.3: left in place unless asked.
        let entries = [
            ("a", 1, Some("a1")),
            ("b", 2, Some("b2")),
            ("c", 3, Some("c3")),
            ("d", 4, Some("d4")),
        ];
        let deadest = segment(&fs, 5, 1, &entries);
        let live = segment(&fs, 6, 1, &[("e", 5, Some("e5"))]);
        let cold = || vec![Arc::clone(&deadest), Arc::clone(&live)];
        let out = job_with_cold(&fs, vec![Arc::clone(&main)], cold())
            .run()
            .unwrap();
        assert!(!out.changed, "{out:?}");
        assert!(out.cold_dead_bytes > 0, "a1's death is known all the same");
        let out = GroupJob {
            merge_deadest_cold: true,
            ..job_with_cold(&fs, vec![main], cold())
        }
        .run()
        .unwrap();
        assert!(out.changed);
        assert_eq!(out.cold_merged, [5], "{out:?}");
        assert_eq!(out.cold_dead_bytes, 0, "{out:?}");
        assert!(out.dead_bytes > 0, "{out:?}");
        let kept: Vec<String> = items(&fs, 99, 1).into_iter().map(|i| i.0).collect();
        assert_eq!(kept, ["b", "c", "d"], "the survivors stay cold");
        assert!(out.main_kept && out.summary.is_none(), "{out:?}");
        assert!(
            !fs.exists(&value_file_path(Path::new("/db"), 3, 3)).unwrap(),
            "the main segment is not copied to merge a cold one"
        );
        assert_eq!(
            out.bytes_read,
            out.cold.unwrap().entry_bytes,
            "only b2, c3 and d4 are read"
        );
    }

    #[test]
    fn a_main_segment_with_a_dead_record_is_rewritten_without_a_log() {
        let fs = fs();
        // A snapshot kept a1 under a2; it is gone now, so a1 dies.
        let main = segment(&fs, 3, 2, &[("a", 2, Some("a2")), ("a", 1, Some("a1"))]);
        let cold = segment(&fs, 5, 1, &[("b", 1, Some("b1"))]);
        let out = GroupJob {
            merge_deadest_cold: true,
            ..job_with_cold(&fs, vec![main], vec![cold])
        }
        .run()
        .unwrap();
        assert!(out.changed && !out.main_kept, "{out:?}");
        assert_eq!(items(&fs, 3, 3), vec![("a".into(), 2, value("a2"))]);
        assert!(
            out.cold_merged.is_empty(),
            "nothing dead in the cold segment"
        );
    }

    #[test]
    fn a_group_with_nothing_new_or_dead_changes_nothing() {
        let fs = fs();
        let main = segment(&fs, 3, 2, &[("a", 1, Some("a1"))]);
        let cold = segment(&fs, 5, 1, &[("b", 2, Some("b2"))]);
        let out = job_with_cold(&fs, vec![main], vec![cold]).run().unwrap();
        assert!(!out.changed);
        assert!(!fs.exists(&value_file_path(Path::new("/db"), 3, 3)).unwrap());
    }

    #[test]
    fn cold_segments_alone_stay_cold_without_hotness() {
        let fs = fs();
        let a = segment(&fs, 5, 1, &[("a", 1, Some("a1")), ("b", 2, Some("b2"))]);
        let b = segment(&fs, 6, 1, &[("a", 3, Some("a3"))]);
        let out = GroupJob {
            hotness: false,
            cold_dead_share: f64::MIN_POSITIVE,
            ..job_with_cold(&fs, vec![], vec![b, a])
        }
        .run()
        .unwrap();
        assert_eq!(out.cold_merged, [5], "{out:?}");
        assert!(out.summary.is_none());
        assert_eq!(
            items(&fs, 99, 1),
            vec![("b".into(), 2, value("b2"))],
            "no main segment to fold it into: the segment with a dead record merged alone"
        );
    }
}

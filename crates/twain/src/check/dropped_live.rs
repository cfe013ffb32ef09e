//! Live versions whose every copy a counted drop names.
//!
//! Drop-records GC discards a record when its value file's drop set names its sequence,
//! without asking the tree. A version the tree still reads, all of whose copies sit in
//! files whose counted drops name its sequence, is therefore lost at the next GC of those
//! files, although every read still finds it today. Engines before aade362 could leave
//! that state (a relocated copy written beside a dropped copy of the same version in one
//! log), and only this check sees it before the loss.
//!
//! A version counts as live when nothing newer shadows it and it has not expired by the
//! check's clock (a compaction drops an expired version while a lazy fix-up's copy of it
//! may stay behind). Copies are the tables' handles to files that exist
//! and the version's separated puts after the flushed point (the next open replays them).
//! Uncounted drops (of a flush or compaction whose edit never landed) are set aside by the
//! next open, so they do not count. The hash layout records no drops; the vlog mode only
//! those of transient files, which are deleted whole once every entry is dropped.
//!
//! A log that holds such a version twice (a dropped copy and the live one, the state
//! those engines left) is only a note: value GC reads a dropped sequence held twice as
//! live and keeps one copy.
//!
//! Only drop-records GC (the default mode) discards by drops alone; in lsm-lookup mode the
//! version survives as long as the tree names its copy, and the finding says the database
//! cannot be switched to the default mode safely. The rule needs the whole tree to judge
//! what is live: the caller skips it when a table or a log could not be read (a shadowing
//! version may be in what was not read).

use super::{HandlesByVersion, LogVersions, Separated};
use crate::format::names::value_file_path;
use crate::key::SeqNo;
use crate::seq_set::SeqSet;
use crate::vlog::ValueFile;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::CheckReport;

/// A copy of a version: its value file, and its offset when a handle names the file's
/// current epoch.
type VersionCopy = (u64, Option<u64>);

/// What [`find`] reads.
pub(super) struct Inputs<'a> {
    pub dir: &'a std::path::Path,
    pub handles: &'a HandlesByVersion,
    pub versions: &'a LogVersions,
    /// Versions in the tables that have expired.
    pub expired: &'a HashSet<(Vec<u8>, SeqNo)>,
    pub files: &'a HashMap<u64, ValueFile>,
    /// Counted drops by value file, of its current epoch.
    pub counted: &'a HashMap<u64, SeqSet>,
    /// The separated entries each value file holds.
    pub held: &'a BTreeMap<u64, Separated>,
}

/// Reports, as problems, every live version whose copies are all named by counted drops;
/// and, as a note, how many such versions value GC keeps because a log holds them twice.
pub(super) fn find(inputs: &Inputs<'_>, report: &mut CheckReport) {
    let dropped_in =
        |file: u64, seq: SeqNo| inputs.counted.get(&file).is_some_and(|d| d.contains(&seq));
    // A log holding a dropped sequence twice keeps it (`gc::Job::read`).
    let twice_in = |file: u64, seq: SeqNo| {
        inputs.files.get(&file).is_some_and(|f| f.epoch() == 0)
            && inputs
                .held
                .get(&file)
                .and_then(|h| h.get(&seq))
                .is_some_and(|copies| copies.len() > 1)
    };
    let mut kept = 0u64;
    // Each version the tables or the unflushed log hold, with the tables' copies: the file
    // and, where the handle names the file's current epoch, the record's offset.
    let mut all: Vec<(&Vec<u8>, SeqNo, Vec<VersionCopy>)> = Vec::new();
    for ((key, seq), copies) in inputs.handles {
        let copies = copies
            .iter()
            .filter_map(|(h, _)| {
                let file = inputs.files.get(&h.file)?;
                Some((h.file, (file.epoch() == h.epoch).then_some(h.offset)))
            })
            .collect();
        all.push((key, *seq, copies));
    }
    for (key, seq) in inputs.versions.unflushed.keys() {
        if !inputs.handles.contains_key(&(key.clone(), *seq)) {
            all.push((key, *seq, Vec::new()));
        }
    }
    let mut found: Vec<(u64, Option<u64>, String, SeqNo)> = Vec::new();
    for (key, seq, mut copies) in all {
        if inputs.versions.shadowed(key, seq) || inputs.expired.contains(&(key.clone(), seq)) {
            continue;
        }
        if let Some(logged) = inputs.versions.unflushed.get(&(key.clone(), seq)) {
            copies.extend(logged.iter().map(|&f| (f, None)));
        }
        let Some(&(file, offset)) = copies.first() else {
            continue;
        };
        if !copies.iter().all(|&(f, _)| dropped_in(f, seq)) {
            continue;
        }
        match copies.iter().any(|&(f, _)| twice_in(f, seq)) {
            true => kept += 1,
            false => found.push((file, offset, crate::dump::escape(key), seq)),
        }
    }
    if kept > 0 {
        report.note(
            inputs.dir,
            None,
            format!(
                "{kept} live versions have a dropped copy beside them in one value log (left by \
                 engines before aade362): value GC keeps one copy of each"
            ),
        );
    }
    found.sort();
    for (file, offset, key, seq) in found {
        let epoch = inputs.files.get(&file).map_or(0, ValueFile::epoch);
        report.problem(
            &value_file_path(inputs.dir, file, epoch),
            offset,
            format!(
                "key {key} (sequence {seq}) is live, but the counted drops name every copy of \
                 it: drop-records value GC of this file would discard it"
            ),
        );
    }
}

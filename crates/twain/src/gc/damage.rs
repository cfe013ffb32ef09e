//! What value GC does about damage in the file it collects (issue 19, finding 7).
//!
//! GC never needs a dead record, so damage in one must not stop it. A read that met damage
//! is judged by counting: the manifest says how many separated records the file holds;
//! each record read intact is accounted for, and so is each record in the drop set. If
//! they cover the count, every record GC could not read is dead: the run goes on without
//! them, and they are counted (`gc_corrupt_dead_records`). Otherwise a live record may be
//! among them, or liveness cannot be established: the file is **set aside**. GC leaves it
//! alone from then on, reads of its intact records work as before, a read of the damaged
//! record fails with `Error::Corruption` naming the file and offset, and the file is listed
//! by `Db::gc_set_aside`, `twain stats` and `twain check`. Corruption met by GC never makes
//! the database read-only; I/O errors still do.
//!
//! The list is not persisted (no format change): after a reopen, GC meets the damage again
//! when it next picks the file, and sets it aside again.

use super::records::Scan;
use crate::seq_set::SeqSet;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Damaged places kept per read of a file (the first one is always kept).
pub(crate) const MAX_DAMAGES: usize = 16;

/// A damaged place met while reading a value file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    /// File offset.
    pub offset: u64,
    /// The key of the damaged record, where known. From a value log, it is read from the
    /// damaged entry itself, so the damage may be in it.
    pub key: Option<Vec<u8>>,
    /// What was wrong.
    pub what: String,
}

/// A value file that value GC set aside: damaged where a live record may lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAsideFile {
    /// The value file's number.
    pub number: u64,
    /// Its epoch when it was set aside.
    pub epoch: u32,
    /// The damaged file: the value file, or (lsm-lookup mode) a table met while looking
    /// up the file's records.
    pub file: PathBuf,
    /// Where in `file` the damage is.
    pub offset: u64,
    /// The damaged record's key, where known.
    pub key: Option<Vec<u8>>,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for SetAsideFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at offset {}", self.file.display(), self.offset)?;
        if let Some(key) = &self.key {
            write!(f, ", key {}", crate::dump::escape(key))?;
        }
        write!(f, ": {}", self.what)
    }
}

/// What a run may do with a file whose read met damage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Every record that could not be read is dead: collect the file without them.
    Collect {
        /// Records lost to the damage (all dead).
        corrupt_dead: u64,
    },
    /// A live record may be damaged: leave the file alone.
    SetAside(Damage),
}

/// Judges `scan` of a file holding `separated_count` records, `dropped` of them dead.
pub(crate) fn judge(scan: &Scan, separated_count: u64, dropped: &SeqSet) -> Verdict {
    let Some(first) = scan.damage.first() else {
        return Verdict::Collect { corrupt_dead: 0 };
    };
    let unread_dropped = dropped.len().saturating_sub(scan.intact_dropped.len()) as u64;
    if scan.intact + unread_dropped == separated_count {
        return Verdict::Collect {
            corrupt_dead: separated_count - scan.intact,
        };
    }
    let at = scan
        .damage
        .iter()
        .find(|d| d.key.is_some())
        .unwrap_or(first);
    let unread = separated_count.saturating_sub(scan.intact);
    Verdict::SetAside(Damage {
        what: format!(
            "{}; {unread} of {separated_count} records unreadable, {unread_dropped} of them known dead",
            at.what
        ),
        ..at.clone()
    })
}

/// The files set aside, by number. Thread-safe.
#[derive(Debug, Default)]
pub(crate) struct SetAsideList {
    files: Mutex<BTreeMap<u64, SetAsideFile>>,
}

impl SetAsideList {
    /// The list, locked (a panic elsewhere while it was held left it whole: every change
    /// is one map operation).
    fn files(&self) -> MutexGuard<'_, BTreeMap<u64, SetAsideFile>> {
        self.files.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sets a file aside.
    pub fn insert(&self, f: SetAsideFile) {
        self.files().insert(f.number, f);
    }

    /// The numbers of the files set aside.
    pub fn numbers(&self) -> Vec<u64> {
        self.files().keys().copied().collect()
    }

    /// The files set aside that are still at the epoch they were set aside at (a file
    /// whose records all died since is deleted without GC, and forgotten here).
    pub fn list(&self, current_epoch: impl Fn(u64) -> Option<u32>) -> Vec<SetAsideFile> {
        let mut files = self.files();
        files.retain(|&n, f| current_epoch(n) == Some(f.epoch));
        files.values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::SeqNo;

    fn scan(intact: &[SeqNo], damaged: bool) -> Scan {
        let mut s = Scan {
            intact: intact.len() as u64,
            ..Scan::default()
        };
        s.intact_dropped = intact.iter().copied().filter(|&q| q >= 100).collect();
        if damaged {
            s.damage.push(Damage {
                offset: 50,
                key: None,
                what: "frame checksum mismatch".into(),
            });
        }
        s
    }

    #[test]
    fn unread_records_must_all_be_in_the_drop_set() {
        let dropped: SeqSet = [100, 101].into_iter().collect();
        // Five records: 1, 2, 3 and the dropped 100, 101.
        let whole = scan(&[1, 2, 3, 100, 101], false);
        assert_eq!(
            judge(&whole, 5, &dropped),
            Verdict::Collect { corrupt_dead: 0 }
        );
        let dead_lost = scan(&[1, 2, 3, 100], true);
        assert_eq!(
            judge(&dead_lost, 5, &dropped),
            Verdict::Collect { corrupt_dead: 1 }
        );
        let live_lost = scan(&[1, 2, 100, 101], true);
        assert!(matches!(
            judge(&live_lost, 5, &dropped),
            Verdict::SetAside(_)
        ));
        let nothing_read = scan(&[], true);
        assert!(matches!(
            judge(&nothing_read, 5, &dropped),
            Verdict::SetAside(_)
        ));
        assert_eq!(
            judge(&nothing_read, 2, &dropped),
            Verdict::Collect { corrupt_dead: 2 }
        );
    }
}

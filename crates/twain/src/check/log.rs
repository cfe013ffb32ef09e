//! The value log after the flushed point, as [`check`](super::check) sees it: each file's
//! records, and where the log ends as recovery will find it.

use super::{CheckReport, Finding, LogVersions, Separated};
use crate::format::names::value_file_path;
use crate::format::record::FRAME_HEADER_LEN;
use crate::format::vlog::LogEntryKind;
use crate::fs::Fs;
use crate::version::VersionState;
use crate::vlog::{ScanOutcome, scan_value_file_skipping};
use std::path::Path;

/// Where the log after the flushed point ends, as recovery will find it: the first file
/// the writer did not leave complete ends it — damage if a later file proves it was synced —
/// every seal names a file that exists, and the log reaches the sequence the manifest
/// records as durable.
pub(super) fn check_log_end(
    dir: &Path,
    state: &VersionState,
    logs: &[(u64, ScanOutcome)],
    report: &mut CheckReport,
) {
    let mut max_seq = 0;
    for (i, (n, o)) in logs.iter().enumerate() {
        let path = value_file_path(dir, *n, 0);
        max_seq = max_seq.max(o.max_seq.unwrap_or(0));
        let later = logs.get(i + 1..).unwrap_or_default();
        if !later.is_empty() && !o.is_complete() {
            match later
                .iter()
                .find(|(_, l)| l.was_synced() || l.ends_with_marker)
            {
                Some((l, _)) => report.problem(
                    &path,
                    Some(o.valid_end),
                    format!(
                        "ends without its seal record, but value file {l} holds a record \
                         written after a sync: records are missing"
                    ),
                ),
                None => report.note(
                    &path,
                    Some(o.valid_end),
                    "the log ends here (a crash before the file was synced); the next open \
                     removes the unsynced value files after it",
                ),
            }
            break;
        }
        if let Some(next) = o.sealed_next
            && !later.iter().any(|(l, _)| *l == next)
        {
            report.problem(
                &value_file_path(dir, next, 0),
                None,
                format!("missing: value file {n} continues in it"),
            );
        }
    }
    if let Some(flushed_seq) = state.flushed_sequence
        && state.last_sequence > max_seq.max(flushed_seq)
    {
        let (path, at) = match logs.last() {
            Some((n, o)) => (value_file_path(dir, *n, 0), Some(o.valid_end)),
            None => (value_file_path(dir, state.flushed_point.file, 0), None),
        };
        report.problem(
            &path,
            at,
            format!(
                "the value log ends at sequence {}, below sequence {} that the manifest \
                 records as durable: records are missing",
                max_seq.max(flushed_seq),
                state.last_sequence
            ),
        );
    }
}

/// Scans one value file; returns its separated entries by sequence number, and what the
/// scan found if it completed.
pub(super) fn check_value_file(
    fs: &dyn Fs,
    path: &Path,
    number: u64,
    is_last: bool,
    (state, now): (&VersionState, u64),
    versions: &mut LogVersions,
    report: &mut CheckReport,
) -> (Separated, Option<ScanOutcome>) {
    report.count_file(fs, path);
    report.value_files += 1;
    let mut entries = Separated::default();
    // Counted apart from `entries`: a version can be in one log twice under one sequence
    // number (two whole records), and the writer counted both. A relocation and a
    // compaction's re-placement of the version can both land in one log, and lsm-lookup GC
    // once relocated both copies when it judged records by key and sequence alone.
    let (mut records, mut sep_bytes, mut sep_count) = (0u64, 0u64, 0u64);
    // Punched runs are skipped, as every sequential reader does; their records are
    // counted from the manifest.
    let punched = state.punched.get(&number).map_or(&[][..], Vec::as_slice);
    let flushed = (state.flushed_point.file, state.flushed_point.offset);
    let outcome =
        scan_value_file_skipping(fs, path, number, is_last, punched, |at, _len, reader| {
            records += 1;
            let payload_at = at + FRAME_HEADER_LEN as u64;
            while let Some(e) = reader
                .next_entry()
                .map_err(|e| e.into_corruption(path, payload_at))?
            {
                if e.kind == LogEntryKind::RangeDelete {
                    versions
                        .ranges
                        .push((e.key.to_vec(), e.value.to_vec(), e.seq));
                    continue;
                }
                versions.saw(e.key, e.seq);
                if e.kind == LogEntryKind::Separated {
                    versions.records.insert((e.key.to_vec(), e.seq));
                    if (number, at) >= flushed && e.expires_at.is_none_or(|t| t > now) {
                        let at = versions.unflushed.entry((e.key.to_vec(), e.seq));
                        at.or_default().push(number);
                    }

                    let offset = payload_at + e.offset as u64;
                    entries
                        .entry(e.seq)
                        .or_default()
                        .push((offset, e.len as u32));
                    sep_bytes += e.len as u64;
                    sep_count += 1;
                }
            }
            Ok(())
        });
    report.value_records += records;
    report.separated_entries += sep_count;
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            report.problems.push(Finding::from_error(e, path));
            return (entries, None);
        }
    };
    if let Some((at, what)) = &outcome.torn_at {
        report.note(
            path,
            Some(*at),
            format!(
                "torn tail of {} bytes ({what}); the next open truncates it",
                outcome.file_len - outcome.valid_end
            ),
        );
    }
    let (punched_count, punched_bytes) = state
        .value_files
        .get(&number)
        .map_or((0, 0), |f| (f.punched_count, f.punched_record_bytes));
    let found = (
        outcome.file_len,
        sep_bytes + punched_bytes,
        sep_count + punched_count,
    );
    check_sealed_counts(state, number, path, found, report);
    (entries, Some(outcome))
}

/// Compares a sealed value file's (bytes, separated bytes, separated entries) with what
/// the manifest records for it, and its drop count with its entries.
pub(super) fn check_sealed_counts(
    state: &VersionState,
    number: u64,
    path: &Path,
    found: (u64, u64, u64),
    report: &mut CheckReport,
) {
    let Some(file) = state.value_files.get(&number) else {
        return;
    };
    let Some(sealed) = file.sealed else {
        return;
    };
    let recorded = (
        sealed.total_bytes,
        sealed.separated_bytes,
        sealed.separated_count,
    );
    if found != recorded {
        report.problem(
            path,
            None,
            format!(
                "holds (bytes, separated bytes, separated entries) {found:?}, the manifest records {recorded:?}"
            ),
        );
    }
    if file.dropped_count > sealed.separated_count {
        report.problem(
            path,
            None,
            format!(
                "the manifest counts {} drops of {} separated entries",
                file.dropped_count, sealed.separated_count
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::file_header::{FileKind, encode_header};
    use crate::format::manifest::ValueFileRecord;
    use crate::format::vlog::RelocationWriter;
    use crate::fs::MemFs;

    /// A sealed log holding one record twice under one sequence number (two relocations
    /// of it by lsm-lookup GC) matches a manifest that counts both: the crash test's
    /// `twain check` found (…, 1826) against (…, 1829) with equal bytes. Both copies are
    /// kept, with their lengths, for the drops to be matched against (the kill loop met
    /// two copies of different lengths, one compressed).
    #[test]
    fn a_record_relocated_twice_counts_twice() {
        let fs = MemFs::new();
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let mut bytes = encode_header(FileKind::ValueLog, 7).to_vec();
        let mut separated = 0;
        for n in [100, 120] {
            let mut rec = RelocationWriter::begin(&mut bytes, 0);
            separated += rec.add(&mut bytes, 42, b"key", &vec![7u8; n]).len as u64;
            rec.finish(&mut bytes);
        }
        let path = value_file_path(dir, 7, 0);
        fs.write_file(&path, &bytes).unwrap();
        let mut state = VersionState::empty(7);
        state.value_files.entry(7).or_default().sealed = Some(ValueFileRecord {
            number: 7,
            epoch: 0,
            total_bytes: bytes.len() as u64,
            separated_bytes: separated,
            separated_count: 2,
        });
        let mut report = CheckReport::default();
        let mut versions = LogVersions::default();
        let (entries, outcome) = check_value_file(
            &fs,
            &path,
            7,
            false,
            (&state, 0),
            &mut versions,
            &mut report,
        );
        assert!(outcome.is_some());
        assert_eq!(entries.len(), 1, "one sequence number");
        let lens: Vec<u32> = entries[&42].iter().map(|&(_, l)| l).collect();
        assert_eq!(lens.len(), 2, "both copies");
        assert!(lens[1] > lens[0], "{lens:?}");
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert_eq!(report.separated_entries, 2);
    }
}

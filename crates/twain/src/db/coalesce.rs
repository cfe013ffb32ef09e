//! Grouping value reads into positional reads: handles into one value file that lie close
//! together are read with one `pread` and checked one by one afterwards. Used by the
//! prefetcher (`db::prefetch`) and by `Db::multi_get` (`db::multi_get`).

use crate::format::handle::ValueHandle;
use crate::vlog::ValueFile;
use std::sync::Arc;

/// Two neighbouring entries are read together when at most this many bytes lie between
/// them (reading them costs less than a second read).
pub(crate) const COALESCE_GAP: u64 = 4 << 10;

/// One read covers at most this many bytes.
pub(crate) const MAX_RUN: u64 = 256 << 10;

/// One positional read covering the entries of `items`.
pub(crate) struct Run<T> {
    pub file: Arc<ValueFile>,
    pub offset: u64,
    pub len: u64,
    pub items: Vec<T>,
}

/// Cuts `items` (each with its file and handle) into runs: sorted by file and offset,
/// neighbours no more than [`COALESCE_GAP`] apart share a run of at most [`MAX_RUN`]
/// bytes. Overlapping handles (one entry asked for twice) share a run too.
pub(crate) fn runs<T>(
    mut items: Vec<(Arc<ValueFile>, T)>,
    handle: impl Fn(&T) -> &ValueHandle,
) -> Vec<Run<T>> {
    items.sort_by_key(|(f, i)| (f.number(), handle(i).offset));
    let mut runs: Vec<Run<T>> = Vec::new();
    for (file, item) in items {
        let h = handle(&item);
        let (start, end) = (h.offset, h.offset + u64::from(h.len));
        if let Some(run) = runs.last_mut()
            && Arc::ptr_eq(&run.file, &file)
            && start >= run.offset
            && start <= run.offset + run.len + COALESCE_GAP
            && end.max(run.offset + run.len) - run.offset <= MAX_RUN
        {
            run.len = end.max(run.offset + run.len) - run.offset;
            run.items.push(item);
            continue;
        }
        runs.push(Run {
            file,
            offset: start,
            len: end - start,
            items: vec![item],
        });
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{Fs, MemFs};
    use std::path::Path;

    fn h(offset: u64, len: u32) -> ValueHandle {
        ValueHandle {
            file: 1,
            epoch: 0,
            offset,
            len,
        }
    }

    #[test]
    fn neighbours_share_a_read_and_far_ones_do_not() {
        let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
        let a = Arc::new(ValueFile::new(Arc::clone(&fs), Path::new("/d"), 1));
        let b = Arc::new(ValueFile::new(Arc::clone(&fs), Path::new("/d"), 2));
        let items = vec![
            (Arc::clone(&a), h(4000, 100)),
            (Arc::clone(&a), h(100, 100)),
            (Arc::clone(&a), h(200, 50)),
            (Arc::clone(&a), h(200, 50)), // asked for twice
            (Arc::clone(&a), h(100_000, 10)),
            (Arc::clone(&b), h(300, 10)),
        ];
        let runs = runs(items, |h| h);
        let shape: Vec<(u64, u64, u64, usize)> = runs
            .iter()
            .map(|r| (r.file.number(), r.offset, r.len, r.items.len()))
            .collect();
        assert_eq!(
            shape,
            vec![(1, 100, 4000, 4), (1, 100_000, 10, 1), (2, 300, 10, 1)],
            "250..4000 is within the gap; 4100..100000 is not"
        );
        let far = vec![(Arc::clone(&a), h(0, 10)), (Arc::clone(&a), h(MAX_RUN, 10))];
        assert_eq!(
            super::runs(far, |h| h).len(),
            2,
            "a run stays within MAX_RUN"
        );
    }
}

//! Finding many keys' newest entries at one view, the first half of `Db::multi_get`.
//!
//! Each key probes the memtables, then the tables a `get` probes, in the same order
//! (`read::tables_for_key`), and stops at the first entry it finds, as `read::find` does.
//! A probe that needs a data block the block cache does not hold waits for it. The blocks
//! all waiting probes need are then read together (`fs::read_batch`: io_uring on Linux),
//! each block once however many keys need it, and the probes go on. A request whose keys
//! lie in uncached blocks of the last level costs about one round of reads, submitted at
//! once, instead of one read after another.
//!
//! A round buffers at most `MAX_ROUND_BYTES` of blocks (plus one); the probes that would
//! need more wait for the next round, so a request of many keys holds a bounded number of
//! blocks at a time.

use super::SuperVersion;
use super::range_view::RangeView;
use super::read::{FoundEntry, in_memtables, tables_for_key};
use crate::Result;
use crate::format::table::BlockHandle;
use crate::fs::{BatchRead, read_batch};
use crate::key::{SeqNo, lookup_key};
use crate::version::TableFile;
use bytes::Bytes;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The most block bytes one round reads before its probes go on.
const MAX_ROUND_BYTES: u64 = 8 << 20;

/// One key's way down the tables.
struct Probe<'a> {
    /// The key's place in the request.
    index: usize,
    lookup: Vec<u8>,
    /// The tables to probe, in order, and the next one.
    tables: Vec<&'a Arc<TableFile>>,
    next: usize,
}

/// What a probe met at its next table.
enum Step {
    Found((Vec<u8>, Bytes)),
    Absent,
    /// The entry may be in the data block at this handle of the table at `next`, which
    /// the cache does not hold.
    Needs(BlockHandle),
}

/// The newest entry of each of `keys` visible at `seq` in `sv`, in the order asked, as
/// [`super::read::find`] finds it (a tombstone included, range deletions judged); the
/// blocks read enter the block cache if `fill_cache`. Fails as a `find` of any of the keys
/// would. REQUIRES: `sv` holds every version visible at `seq` (see `db::read`).
pub(crate) fn find_many<'a>(
    sv: &'a SuperVersion,
    keys: &[&[u8]],
    seq: SeqNo,
    fill_cache: bool,
) -> Result<Vec<Option<FoundEntry<'a>>>> {
    let view = RangeView::of(sv, seq);
    let mut out: Vec<Option<FoundEntry<'a>>> = (0..keys.len()).map(|_| None).collect();
    let mut probes = Vec::new();
    for (index, &key) in keys.iter().enumerate() {
        let lookup = lookup_key(key, seq);
        if let Some((ikey, value)) = in_memtables(sv, &lookup) {
            let found = FoundEntry {
                source: Path::new("memtable"),
                ikey,
                value: Bytes::from(value),
            };
            out[index] = Some(found.judged(&view));
            continue;
        }
        probes.push(Probe {
            index,
            lookup,
            tables: tables_for_key(&sv.version, key).collect(),
            next: 0,
        });
    }
    while !probes.is_empty() {
        let mut reads: Vec<BatchRead> = Vec::new();
        // The table and handle of each read, and each block's read by (table, offset).
        let mut blocks_read: Vec<(&'a Arc<TableFile>, BlockHandle)> = Vec::new();
        let mut slots: HashMap<(u64, u64), usize> = HashMap::new();
        let mut waiting = Vec::new();
        let mut later = Vec::new();
        let mut bytes = 0u64;
        for mut probe in probes {
            if bytes >= MAX_ROUND_BYTES {
                later.push(probe);
                continue;
            }
            match advance(&mut probe)? {
                Step::Found(entry) => {
                    let t = probe.tables[probe.next];
                    out[probe.index] = Some(found_in(t, entry).judged(&view));
                }
                Step::Absent => {}
                Step::Needs(handle) => {
                    let t = probe.tables[probe.next];
                    let slot = match slots.get(&(t.table.number(), handle.offset)) {
                        Some(&slot) => slot,
                        None => {
                            reads.push(t.table.block_read(handle)?);
                            blocks_read.push((t, handle));
                            bytes += handle.size;
                            slots.insert((t.table.number(), handle.offset), reads.len() - 1);
                            reads.len() - 1
                        }
                    };
                    waiting.push((probe, slot, handle));
                }
            }
        }
        read_batch(&mut reads);
        let blocks = reads
            .into_iter()
            .zip(blocks_read)
            .map(|(read, (t, handle))| t.table.block_from_read(handle, read, fill_cache))
            .collect::<Result<Vec<_>>>()?;
        for (mut probe, slot, handle) in waiting {
            let t = probe.tables[probe.next];
            match t
                .table
                .entry_in_block(&blocks[slot], handle, &probe.lookup)?
            {
                Some(entry) => out[probe.index] = Some(found_in(t, entry).judged(&view)),
                None => {
                    probe.next += 1;
                    later.push(probe);
                }
            }
        }
        probes = later;
    }
    Ok(out)
}

/// Probes the tables from `probe.next` on until an entry is found, no table is left, or
/// one needs a block the cache does not hold.
fn advance(probe: &mut Probe<'_>) -> Result<Step> {
    while let Some(t) = probe.tables.get(probe.next) {
        if let Some(handle) = t.table.locate(&probe.lookup)? {
            let Some(block) = t.table.cached_block(handle) else {
                return Ok(Step::Needs(handle));
            };
            if let Some(entry) = t.table.entry_in_block(&block, handle, &probe.lookup)? {
                return Ok(Step::Found(entry));
            }
        }
        probe.next += 1;
    }
    Ok(Step::Absent)
}

/// An entry found in table `t`.
fn found_in(t: &Arc<TableFile>, (ikey, value): (Vec<u8>, Bytes)) -> FoundEntry<'_> {
    FoundEntry {
        source: t.table.path(),
        ikey,
        value,
    }
}

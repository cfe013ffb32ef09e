//! Reading many keys at one view (`Db::multi_get`). Each key's newest visible entry is
//! found as `get` finds it, the table blocks all keys need read together
//! (`db::find_many`). Separated values that a handle names directly (its value
//! file at the handle's epoch, out of the log's unflushed tail) are read together: per
//! value file in offset order, neighbours in one positional read (`db::coalesce`), all
//! those reads submitted at once (`fs::read_batch`), each entry then checked on its own
//! (checksum, key, sequence). The rest (stale handles of a
//! rewritten file, hash-layout handles forwarded to a main segment, the unflushed tail)
//! are read one at a time, as `get` reads them.

use super::coalesce::{Run, runs};
use super::read::{Reader, resolve};
use super::{DbInner, SuperVersion};
use crate::Result;
use crate::format::handle::ValueHandle;
use crate::fs::{BatchRead, read_batch};
use crate::key::{EntryKind, ParsedKey, SeqNo, is_expired, split_expiry};
use crate::stats::Counters;
use std::sync::Arc;

/// A value to read in a batch: the key's index in the request, the handle, key and
/// sequence it must hold.
struct Wanted {
    index: usize,
    handle: ValueHandle,
    key: Vec<u8>,
    seq: SeqNo,
}

/// The values of `keys` visible at `view` in `sv`, in the order asked (a key asked twice
/// is answered twice). Fails as a `get` of any of them would. REQUIRES: `sv` holds every
/// version visible at `view` (see `db::read`).
pub(crate) fn multi_get(
    inner: &DbInner,
    sv: &SuperVersion,
    view: SeqNo,
    keys: &[&[u8]],
) -> Result<Vec<Option<Vec<u8>>>> {
    let now = inner.opts.clock.now_millis();
    let mut out: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
    let mut batch = Vec::new();
    Counters::add(&inner.counters.gets, keys.len() as u64);
    let found = super::find_many::find_many(sv, keys, view, true)?;
    for (index, (&key, found)) in keys.iter().zip(found).enumerate() {
        let Some(found) = found else {
            continue;
        };
        let p = ParsedKey::parse(&found.ikey);
        if p.entry_kind() == Some(EntryKind::Handle)
            && let Ok((expires_at, encoded)) = split_expiry(p.kind, &found.value)
            && !is_expired(expires_at, now)
            && let Ok(h) = ValueHandle::decode(encoded)
            && let Some(file) = sv.version.value_files.get(&h.file)
            && file.epoch() == h.epoch
            && h.offset + u64::from(h.len) <= file.written_len()
        {
            let wanted = Wanted {
                index,
                handle: h,
                key: key.to_vec(),
                seq: p.seq,
            };
            batch.push((Arc::clone(file), wanted));
            continue;
        }
        out[index] = resolve(
            inner,
            sv,
            view,
            now,
            found.source,
            &found.ikey,
            found.value,
            Reader::Get,
        )?
        .map(super::read::into_vec);
    }
    // The runs' reads are submitted together (`fs::read_batch`: io_uring on Linux), so
    // keys whose values are not cached wait about one disk read per group, not one each.
    // A group buffers at most `MAX_GROUP_BYTES` (plus one run), so a request of many keys
    // does not hold every run's gap bytes at once.
    let mut pending = runs(batch, |w: &Wanted| &w.handle).into_iter().peekable();
    while pending.peek().is_some() {
        let mut group = Vec::new();
        let mut bytes = 0u64;
        while bytes < MAX_GROUP_BYTES
            && let Some(run) = pending.next()
        {
            bytes += run.len;
            group.push(run);
        }
        read_group(inner, group, &mut out)?;
    }
    Ok(out)
}

/// The most bytes one group of `multi_get`'s reads buffers before its values are checked.
const MAX_GROUP_BYTES: u64 = 8 << 20;

/// Reads `group`'s runs together and checks each value into `out`.
fn read_group(inner: &DbInner, group: Vec<Run<Wanted>>, out: &mut [Option<Vec<u8>>]) -> Result<()> {
    let mut reads = Vec::with_capacity(group.len());
    for run in &group {
        let len = usize::try_from(run.len).unwrap_or(usize::MAX);
        reads.push(BatchRead::new(
            Arc::clone(run.file.reader()?),
            run.offset,
            len,
        ));
    }
    read_batch(&mut reads);
    let c = &inner.counters;
    for (run, read) in group.into_iter().zip(reads) {
        read.result
            .map_err(|e| run.file.read_error(run.offset, e))?;
        let buf = bytes::Bytes::from(read.buf);
        Counters::add(&c.multi_get_reads, 1);
        for w in run.items {
            let h = &w.handle;
            let start = (h.offset - run.offset) as usize;
            let value = run.file.value_in(h, &buf, start, &w.key, w.seq)?;
            Counters::add(&c.value_reads, 1);
            Counters::add(&c.value_bytes_read, u64::from(h.len));
            out[w.index] = Some(value.to_vec());
        }
    }
    Ok(())
}

//! Reading many keys at one view (`Db::multi_get`). Each key's newest visible entry is
//! found as `get` finds it. Separated values that a handle names directly (its value
//! file at the handle's epoch, out of the log's unflushed tail) are read together: per
//! value file in offset order, neighbours in one positional read (`db::coalesce`), each
//! entry then checked on its own (checksum, key, sequence). The rest (stale handles of a
//! rewritten file, hash-layout handles forwarded to a main segment, the unflushed tail)
//! are read one at a time, as `get` reads them.

use super::coalesce::runs;
use super::read::{Reader, find, resolve};
use super::{DbInner, SuperVersion};
use crate::Result;
use crate::format::handle::ValueHandle;
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
    for (index, &key) in keys.iter().enumerate() {
        Counters::add(&inner.counters.gets, 1);
        let Some(found) = find(sv, key, view, true, false)? else {
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
    let c = &inner.counters;
    for run in runs(batch, |w: &Wanted| &w.handle) {
        let len = usize::try_from(run.len).unwrap_or(usize::MAX);
        let mut buf = vec![0u8; len];
        run.file.read_span(run.offset, &mut buf)?;
        let buf = bytes::Bytes::from(buf);
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
    Ok(out)
}

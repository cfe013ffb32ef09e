//! The write path: group commit into the value log, then the memtable.
//!
//! Writers queue up; the writer at the front becomes the leader, takes the batches of the
//! writers behind it, appends one record per batch to the active value file with a single
//! write (and a single fdatasync if any of them asked for sync), inserts the entries into
//! the memtable, publishes their sequence numbers and wakes the followers.

use super::{DbInner, SuperVersion, lock};
use crate::event_log::event;
use crate::format::compression::{StoredValue, compress_value};
use crate::format::file_header::FILE_HEADER_LEN;
use crate::format::handle::ValueHandle;
use crate::format::vlog::{BATCH_ENTRIES_AT, BatchRecordWriter, LogEntryKind, RelocationWriter};
use crate::key::{EntryKind, SeqNo, append_expiring_value, append_internal_key, put_kind};
use crate::memtable::Memtable;
use crate::options::ValueLayout;
use crate::stats::Counters;
use crate::vlog::{LogWriter, SpareLog, ValueFile};
use crate::{BatchOp, Error, Result, WriteBatch};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A group stops growing once it holds this many bytes of keys and values.
const MAX_GROUP_BYTES: usize = 1 << 20;

/// One waiting writer.
struct Writer {
    batch: WriteBatch,
    /// Per operation of `batch`, the compressed form of a separated put's value, made on
    /// the writer's own thread (`value_compression`); empty when nothing was compressed.
    packed: Vec<Option<Vec<u8>>>,
    sync: bool,
    cv: Condvar,
    /// Set by the leader that committed this writer's batch (under the queue lock).
    outcome: Mutex<Option<Result<(), String>>>,
}

/// State only the group-commit leader touches.
pub(crate) struct WriteState {
    /// The active value file.
    pub log: LogWriter,
    /// The active memtable (the same one the super version publishes).
    pub mem: Arc<Memtable>,
    /// The sequence number the next entry gets.
    pub next_seq: SeqNo,
    /// Value-log bytes appended while the active memtable was active.
    pub mem_log_bytes: u64,
    /// Id for the next memtable.
    pub next_mem_id: u64,
    buf: Vec<u8>,
    handles: Vec<ValueHandle>,
}

impl WriteState {
    /// Write state continuing from recovery.
    pub fn new(log: LogWriter, mem: Arc<Memtable>, next_seq: SeqNo) -> WriteState {
        let next_mem_id = mem.id() + 1;
        WriteState {
            log,
            mem,
            next_seq,
            mem_log_bytes: 0,
            next_mem_id,
            buf: Vec::new(),
            handles: Vec::new(),
        }
    }
}

/// The writer queue and the leader's state.
pub(crate) struct WritePath {
    queue: Mutex<VecDeque<Arc<Writer>>>,
    pub state: Mutex<WriteState>,
}

impl WritePath {
    /// A write path over recovered state.
    pub fn new(state: WriteState) -> WritePath {
        WritePath {
            queue: Mutex::new(VecDeque::new()),
            state: Mutex::new(state),
        }
    }
}

/// Commits `batch`, as leader or as follower of a group.
pub(crate) fn write(inner: &DbInner, batch: WriteBatch, sync: bool) -> Result<()> {
    batch.validate()?;
    inner.check_bg_error()?;
    if batch.is_empty() {
        return if sync { sync_log(inner) } else { Ok(()) };
    }
    wait_for_log_room(inner)?;
    let packed = pack_values(inner, &batch);
    let me = Arc::new(Writer {
        batch,
        packed,
        sync,
        cv: Condvar::new(),
        outcome: Mutex::new(None),
    });
    let mut queue = lock(&inner.write.queue);
    queue.push_back(Arc::clone(&me));
    loop {
        if let Some(outcome) = lock(&me.outcome).take() {
            return outcome.map_err(Error::ReadOnly);
        }
        if queue.front().is_some_and(|f| Arc::ptr_eq(f, &me)) {
            break;
        }
        queue = me.cv.wait(queue).unwrap_or_else(|e| e.into_inner());
    }
    let mut group = Vec::new();
    let mut bytes = 0;
    for w in queue.iter() {
        if !group.is_empty() && bytes + w.batch.payload_bytes() > MAX_GROUP_BYTES {
            break;
        }
        // A non-sync leader never syncs on its thread: a sync writer behind it leads the
        // next group (a sync leader takes non-sync writers along).
        if w.sync && !me.sync {
            break;
        }
        bytes += w.batch.payload_bytes();
        group.push(Arc::clone(w));
    }
    drop(queue);

    let result = commit_group(inner, &group);

    let shared = result.as_ref().map(|_| ()).map_err(|e| e.to_string());
    let mut queue = lock(&inner.write.queue);
    for w in &group {
        queue.pop_front();
        if !Arc::ptr_eq(w, &me) {
            *lock(&w.outcome) = Some(shared.clone());
            w.cv.notify_one();
        }
    }
    if let Some(next) = queue.front() {
        next.cv.notify_one();
    }
    result
}

/// Compresses the values of `batch` that the log will separate, as `value_compression`
/// asks, before the write queues: the leader only copies what its writers compressed.
fn pack_values(inner: &DbInner, batch: &WriteBatch) -> Vec<Option<Vec<u8>>> {
    let codec = inner.opts.value_compression;
    let threshold = inner.opts.inline_threshold;
    if codec == crate::Compression::None || inner.opts.value_layout != ValueLayout::Log {
        return Vec::new();
    }
    let mut any = false;
    let packed = batch
        .iter()
        .map(|op| match op {
            BatchOp::Put { key, value, .. } if key.len() + value.len() >= threshold => {
                let mut out = Vec::new();
                let floor = threshold.saturating_sub(key.len());
                compress_value(codec, value, floor, &mut out).then(|| {
                    any = true;
                    out
                })
            }
            _ => None,
        })
        .collect();
    if any { packed } else { Vec::new() }
}

/// Appends the group's records, syncs if asked, and applies them to the memtable.
fn commit_group(inner: &DbInner, group: &[Arc<Writer>]) -> Result<()> {
    let mut guard = lock(&inner.write.state);
    let ws = &mut *guard;
    inner.check_bg_error()?;
    make_room(inner, ws)?;
    if ws.log.position().offset >= inner.opts.value_file_size {
        roll_log(inner, ws)?;
    }

    let file = ws.log.value_file().number();
    let synced_upto = ws.log.synced_upto();
    // The hash layout separates at the flush, into the groups' segments: the log holds
    // every value inline, for recovery only.
    let threshold = match inner.opts.value_layout {
        ValueLayout::Log => inner.opts.inline_threshold,
        ValueLayout::Hash => usize::MAX,
    };
    ws.buf.clear();
    ws.handles.clear();
    let mut seq = ws.next_seq;
    let mut user_bytes = 0u64;
    // Key + value bytes of the puts per placement class: small, medium, large.
    let mut class_bytes = [0u64; 3];
    let placement = inner.opts.placement();
    let mut ops = 0u64;
    let mut separated_bytes = 0u64;
    let mut range_deletions = 0u64;
    // The group is one batch record (its writers' batches follow one another), which may
    // join the previous group's record still open in the log's tail.
    let mut rec = BatchRecordWriter::begin(&mut ws.buf, seq, synced_upto);
    for w in group {
        for (i, op) in w.batch.iter().enumerate() {
            let (kind, key, value, expires_at) = match op {
                BatchOp::Delete { key } => (LogEntryKind::Delete, key, &[][..], None),
                BatchOp::DeleteRange { start, end } => {
                    (LogEntryKind::RangeDelete, start, end, None)
                }
                BatchOp::Put {
                    key,
                    value,
                    expires_at,
                } if key.len() + value.len() >= threshold => {
                    (LogEntryKind::Separated, key, value, expires_at)
                }
                BatchOp::Put {
                    key,
                    value,
                    expires_at,
                } => (LogEntryKind::Inline, key, value, expires_at),
            };
            let packed = w.packed.get(i).and_then(Option::as_deref);
            let placed = match packed {
                Some(bytes) if kind == LogEntryKind::Separated => rec.add_stored(
                    &mut ws.buf,
                    key,
                    StoredValue {
                        bytes,
                        compressed: true,
                    },
                    expires_at,
                ),
                _ => rec.add_expiring(&mut ws.buf, kind, key, value, expires_at),
            };
            if kind == LogEntryKind::RangeDelete {
                range_deletions += 1;
            }
            if kind == LogEntryKind::Separated {
                separated_bytes += placed.len as u64;
                // From the record's first entry; placed in the file once appended.
                ws.handles.push(ValueHandle {
                    file,
                    epoch: 0,
                    offset: (placed.offset - BATCH_ENTRIES_AT) as u64,
                    len: placed.len as u32,
                });
            }
            user_bytes += (key.len() + value.len()) as u64;
            if matches!(kind, LogEntryKind::Inline | LogEntryKind::Separated) {
                let class = placement.class(key.len(), value.len()) as usize;
                class_bytes[class] += (key.len() + value.len()) as u64;
            }
            ops += 1;
            seq += 1;
        }
    }
    // `rec` is not finished here: the log fills in the count and checksum once, when the
    // open record this batch starts or joins is closed.

    let count = (seq - ws.next_seq) as u32;
    let separated = !ws.handles.is_empty();
    let (entries_at, appended) = match ws.log.append_batch(&ws.buf, ws.next_seq, count, separated) {
        Ok(placed) => placed,
        Err(e) => return Err(inner.set_bg_error(e)),
    };
    for h in &mut ws.handles {
        h.offset += entries_at;
    }
    let sync = group.iter().any(|w| w.sync);
    if sync {
        sync_active(inner, ws)?;
    }
    ws.log
        .value_file()
        .add_separated(ws.handles.len() as u64, separated_bytes);
    ws.mem_log_bytes += appended;

    let mut seq = ws.next_seq;
    let mut handles = ws.handles.iter();
    let mut encoded = Vec::with_capacity(16);
    let mut ikey = Vec::with_capacity(64);
    for w in group {
        for op in w.batch.iter() {
            ikey.clear();
            match op {
                BatchOp::Delete { key } => {
                    append_internal_key(&mut ikey, key, seq, EntryKind::Delete as u8);
                    ws.mem.insert(&ikey, &[]);
                }
                BatchOp::DeleteRange { start, end } => ws.mem.delete_range(start, end, seq),
                BatchOp::Put {
                    key,
                    value,
                    expires_at,
                } if key.len() + value.len() >= threshold => {
                    encoded.clear();
                    if let Some(at) = expires_at {
                        encoded.extend_from_slice(&at.to_le_bytes());
                    }
                    if let Some(h) = handles.next() {
                        h.encode_to(&mut encoded);
                    }
                    let kind = put_kind(EntryKind::Handle, expires_at);
                    append_internal_key(&mut ikey, key, seq, kind);
                    ws.mem.insert(&ikey, &encoded);
                }
                BatchOp::Put {
                    key,
                    value,
                    expires_at: None,
                } => {
                    append_internal_key(&mut ikey, key, seq, EntryKind::Inline as u8);
                    ws.mem.insert(&ikey, value);
                }
                BatchOp::Put {
                    key,
                    value,
                    expires_at: Some(at),
                } => {
                    encoded.clear();
                    append_expiring_value(&mut encoded, Some(at), value);
                    let kind = put_kind(EntryKind::Inline, Some(at));
                    append_internal_key(&mut ikey, key, seq, kind);
                    ws.mem.insert(&ikey, &encoded);
                }
            }
            seq += 1;
        }
    }
    ws.next_seq = seq;
    // IMPORTANT: publish only after every entry of the group is in the memtable, so a
    // reader never sees part of a batch.
    inner.visible_seq.store(seq - 1, Ordering::Release);

    let c = &inner.counters;
    Counters::add(&c.user_bytes, user_bytes);
    Counters::add(&c.small_bytes_written, class_bytes[0]);
    Counters::add(&c.medium_bytes_written, class_bytes[1]);
    Counters::add(&c.large_bytes_written, class_bytes[2]);
    Counters::add(&c.user_ops, ops);
    Counters::add(&c.range_deletions, range_deletions);
    Counters::add(&c.write_groups, 1);
    Counters::add(&c.log_bytes, appended);
    if sync {
        Counters::add(&c.synced_groups, 1);
    }
    Ok(())
}

/// Makes sure the memtable has room, freezing it when full, and applies the L0 slowdown
/// and stop triggers. Waits (stalls) while too many memtables await flush or L0 is full:
/// the only waits a non-sync write has, each counted by cause.
fn make_room(inner: &DbInner, ws: &mut WriteState) -> Result<()> {
    let opts = &inner.opts;
    let mut slowed = false;
    loop {
        inner.check_bg_error()?;
        let sv = inner.super_version();
        let l0 = sv.version.num_level_files(0);
        if !slowed && l0 >= opts.l0_slowdown_trigger {
            let start = Instant::now();
            std::thread::sleep(Duration::from_millis(1));
            Counters::add(&inner.counters.slowdowns, 1);
            Counters::add(
                &inner.counters.stall_micros,
                start.elapsed().as_micros() as u64,
            );
            slowed = true;
            continue;
        }
        let full = ws.mem.approximate_bytes() >= opts.memtable_size
            || ws.mem_log_bytes >= opts.memtable_max_log_bytes
            || ws.mem.range_deletion_count() >= crate::memtable::MAX_RANGE_DELETIONS;
        if !full || ws.mem.is_empty() {
            return Ok(());
        }
        let cause = if sv.imms.len() >= opts.max_immutable_memtables {
            Some(StallCause::Memtables)
        } else if l0 >= opts.l0_stop_trigger {
            Some(StallCause::L0Files)
        } else {
            None
        };
        if let Some(cause) = cause {
            if inner.log_sync.is_closing() {
                return Err(Error::ReadOnly("the database is closing".into()));
            }
            let start = Instant::now();
            inner.bg.wait_for_change(Duration::from_millis(100));
            count_stall(inner, cause, start);
            continue;
        }
        return freeze_for_flush(inner, ws);
    }
}

/// Freezes the active memtable for its flush, first rolling a log file of inline entries
/// only (`roll_log_of_inline_memtable`), so that the flush deletes that file unsynced.
pub(crate) fn freeze_for_flush(inner: &DbInner, ws: &mut WriteState) -> Result<()> {
    roll_log_of_inline_memtable(inner, ws)?;
    switch_memtable(inner, ws)
}

/// Before a memtable switch: if the active value file holds records but no separated entry,
/// and a spare file is ready, rolls the log, so that the memtable freezes at the start of
/// a fresh file. Its flush then deletes the sealed file (nothing refers to its records once
/// they are in the table) without any sync (`LogSync::sync_for_flush`), and the log thread
/// leaves it unsynced meanwhile: at small values the log's bytes need never reach the disk.
/// Never waits: without a spare ready the memtable freezes mid-file, and its flush syncs
/// the log as before.
fn roll_log_of_inline_memtable(inner: &DbInner, ws: &mut WriteState) -> Result<()> {
    let active = ws.log.value_file();
    if active.separated_count() > 0 || ws.log.position().offset <= FILE_HEADER_LEN as u64 {
        return Ok(());
    }
    match inner.log_sync.take_spare(Duration::ZERO) {
        Some(spare) => switch_to(inner, ws, spare),
        None => Ok(()),
    }
}

/// Why a write waited for background work.
#[derive(Debug, Clone, Copy)]
enum StallCause {
    /// `max_immutable_memtables` frozen memtables wait for flush.
    Memtables,
    /// L0 holds `l0_stop_trigger` tables.
    L0Files,
    /// The log thread had no spare value file ready when the active one filled.
    LogFile,
    /// vlog mode: the log used up its space budget and GC is freeing its tail.
    Space,
}

fn count_stall(inner: &DbInner, cause: StallCause, start: Instant) {
    let micros = start.elapsed().as_micros() as u64;
    let c = &inner.counters;
    Counters::add(&c.stall_micros, micros);
    let (count, time) = match cause {
        StallCause::Memtables => (&c.stalls_memtables, &c.stall_memtables_micros),
        StallCause::L0Files => (&c.stalls_l0, &c.stall_l0_micros),
        StallCause::LogFile => (&c.stalls_log_file, &c.stall_log_file_micros),
        StallCause::Space => (&c.stalls_space, &c.stall_space_micros),
    };
    Counters::add(count, 1);
    Counters::add(time, micros);
    if micros >= LONG_STALL_MICROS {
        let why = match cause {
            StallCause::Memtables => "too many memtables await flush",
            StallCause::L0Files => "too many L0 tables",
            StallCause::LogFile => "no spare value log file was ready",
            StallCause::Space => "the value log used up its space budget (vlog GC mode)",
        };
        event!(
            inner.events,
            Warn,
            "writes stalled {} ms: {why}",
            micros / 1000
        );
    }
}

/// In vlog GC mode, waits while the log has used up its space budget (`DbInner::log_limit`,
/// set by the GC thread: `background::set_log_room`): HashKV's vLog is a circular log of a
/// fixed size, whose writes wait once its reserved space is full. Wakes the GC thread to
/// make room. Waits before joining the write queue, so GC's own write-back (`relocate`)
/// never waits behind it. Returns on shutdown or after a background error.
fn wait_for_log_room(inner: &DbInner) -> Result<()> {
    let full =
        || Counters::get(&inner.counters.log_bytes) >= inner.log_limit.load(Ordering::Acquire);
    if !full() {
        return Ok(());
    }
    let start = Instant::now();
    while full() {
        inner.check_bg_error()?;
        if super::background::shutting_down(inner) {
            break;
        }
        // Again each time: a wake-up the GC thread was not yet waiting for is lost.
        inner.bg.notify_all();
        inner.bg.wait_for_change(Duration::from_millis(20));
    }
    count_stall(inner, StallCause::Space, start);
    Ok(())
}

/// Stalls at least this long are events (`event_log`).
const LONG_STALL_MICROS: u64 = 100_000;

/// Freezes the active memtable at the current log position and starts a new one.
///
/// Hands the log to the operating system but does not sync it: the flush of this memtable
/// makes the log durable up to the freeze position before its edit records that position
/// as the flushed point, wherever anything needs it (`LogSync::sync_for_flush`), so no
/// table can refer to log records that a crash could lose.
pub(crate) fn switch_memtable(inner: &DbInner, ws: &mut WriteState) -> Result<()> {
    if let Err(e) = ws.log.write_out() {
        return Err(inner.set_bg_error(e));
    }
    ws.mem
        .freeze(ws.log.position(), ws.next_seq.saturating_sub(1));
    let mem = Arc::new(Memtable::new(ws.next_mem_id));
    ws.next_mem_id += 1;
    ws.mem_log_bytes = 0;
    let frozen = std::mem::replace(&mut ws.mem, Arc::clone(&mem));
    inner.update_super_version(|sv| {
        let mut imms = Vec::with_capacity(sv.imms.len() + 1);
        imms.push(frozen);
        imms.extend(sv.imms.iter().cloned());
        SuperVersion {
            mem,
            imms,
            version: Arc::clone(&sv.version),
        }
    });
    inner.bg.notify_all();
    Ok(())
}

/// Seals the active value file and continues in the spare one the log thread prepared
/// (created, synced and registered in the version). No sync on this path: the sealed file
/// is queued for the log thread, which syncs it in full.
fn roll_log(inner: &DbInner, ws: &mut WriteState) -> Result<()> {
    let spare = match inner.log_sync.take_spare(Duration::ZERO) {
        Some(spare) => spare,
        None => {
            let start = Instant::now();
            let spare = loop {
                inner.check_bg_error()?;
                if inner.log_sync.is_closing() {
                    return Err(Error::ReadOnly("the database is closing".into()));
                }
                if let Some(spare) = inner.log_sync.take_spare(Duration::from_millis(100)) {
                    break spare;
                }
            };
            count_stall(inner, StallCause::LogFile, start);
            spare
        }
    };
    switch_to(inner, ws, spare)
}

/// Seals the active value file naming `spare`'s, and continues in `spare`.
fn switch_to(inner: &DbInner, ws: &mut WriteState, spare: SpareLog) -> Result<()> {
    let next = spare.writer.value_file().number();
    if let Err(e) = ws.log.seal(next) {
        return Err(inner.set_bg_error(e));
    }
    let SpareLog { writer, syncer } = spare;
    let next_file = Arc::clone(writer.value_file());
    let old = std::mem::replace(&mut ws.log, writer);
    inner
        .log_sync
        .seal_and_switch(old.into_sealed(), next_file, syncer);
    Ok(())
}

/// Seals the active value file for value GC (`Db::gc`) if `worth` says its garbage is
/// worth collecting: rolls the log to the spare file like a full file does, then freezes
/// the memtable at the start of the new file, so that its flush records the sealed file in
/// the manifest and GC can pick it. Crash-safe as any roll: the seal record and the sync
/// are the log thread's, and the freeze is an ordinary one. Called by `Db::gc` and by the
/// GC thread under the space target's pacing (`value_gc::seal_active_if_worth`), never by
/// a write. Returns whether it sealed.
pub(crate) fn seal_active(inner: &DbInner, worth: impl FnOnce(&ValueFile) -> bool) -> Result<bool> {
    let mut guard = lock(&inner.write.state);
    let ws = &mut *guard;
    inner.check_bg_error()?;
    // A closing database takes no new log file: nothing to seal for.
    if inner.log_sync.is_closing() || !worth(ws.log.value_file()) {
        return Ok(false);
    }
    roll_log(inner, ws)?;
    switch_memtable(inner, ws)?;
    Ok(true)
}

/// Makes every record appended so far durable: the sealed files the log thread has not
/// synced yet first (syncs go in file order), then the active file.
fn sync_active(inner: &DbInner, ws: &mut WriteState) -> Result<()> {
    if let Err(e) = inner.log_sync.sync_sealed(u64::MAX) {
        return Err(inner.set_bg_error(e));
    }
    // IMPORTANT: a failed fsync is never retried into a success; the database refuses
    // writes until it is reopened and recovers from what is durable.
    if let Err(e) = ws.log.sync() {
        inner.log_sync.poison(&e);
        return Err(inner.set_bg_error(e));
    }
    Ok(())
}

/// Runs `f` with the write lock held: no write is in flight and none can start, so every
/// entry in the memtable has a published sequence number.
pub(crate) fn quiesced<T>(inner: &DbInner, f: impl FnOnce() -> T) -> T {
    let _ws = lock(&inner.write.state);
    f()
}

/// Makes everything appended to the value log so far durable. The write lock is held only
/// to hand the log to the operating system: writers go on while the sync runs.
pub(crate) fn sync_log(inner: &DbInner) -> Result<()> {
    inner.check_bg_error()?;
    let upto = {
        let mut ws = lock(&inner.write.state);
        if let Err(e) = ws.log.write_out() {
            return Err(inner.set_bg_error(e));
        }
        ws.log.position()
    };
    inner
        .log_sync
        .sync_through(upto)
        .map_err(|e| inner.set_bg_error(e))
}

/// Appends the records of value file `file` (read at epoch `epoch`) that are still their
/// key's newest version, each the very copy the tree's handle names, as one relocation
/// record at the head of the log, and writes their new handles back into the memtable
/// (value GC in lsm-lookup and vlog modes). The check and the write-back happen under
/// the write lock, so a record overwritten or deleted meanwhile is never written back.
/// Returns the number of records relocated, or `None` (nothing written) when a record
/// that is no longer the newest is still seen by a live snapshot, so the old file must
/// stay. Not synced: the caller syncs before deleting the old file.
pub(crate) fn relocate(
    inner: &DbInner,
    (file, epoch): (u64, u32),
    records: &[crate::gc::Record],
) -> Result<Option<usize>> {
    let mut guard = loop {
        let mut guard = lock(&inner.write.state);
        inner.check_bg_error()?;
        make_room(inner, &mut guard)?;
        if guard.log.position().offset >= inner.opts.value_file_size {
            roll_log(inner, &mut guard)?;
        }
        // IMPORTANT: a version relocated into this log before, then moved out of it (a
        // compaction merged it into the tree or placed it elsewhere, dropping the copy
        // here) and now relocated again, would sit beside its dropped copy under the same
        // sequence number, and drop sets name records by sequence: drop-records GC and
        // hole punching would take the new copy for dead. A copy made after this log
        // became the head is in a file numbered above it (numbers only grow, and a GC
        // rewrite keeps a file's number and holds only what it held), so records of such
        // a file start a new log; so do records whose sequence this log's drops name
        // already. The drop lock is never waited for under the write lock (installs hold
        // it and then take the write lock): if it is busy, wait for it without.
        let head = guard.log.value_file().number();
        let dropped_here = records
            .iter()
            .map(|r| inner.drop_index.try_is_dropped(head, 0, r.seq))
            .try_fold(file >= head, |any, d| d.map(|d| any || d));
        match dropped_here {
            Some(false) => break guard,
            Some(true) => {
                roll_log(inner, &mut guard)?;
                break guard;
            }
            None => {
                drop(guard);
                drop(inner.drop_index.lock());
            }
        }
    };
    let ws = &mut *guard;
    let sv = inner.super_version();
    // Under the write lock: no write and no new snapshot can see a state between these
    // lookups and the write-back.
    let snapshots = inner.snapshot_seqs();
    let log_file = ws.log.value_file().number();
    let base = ws.log.position().offset;
    ws.buf.clear();
    let mut rec = RelocationWriter::begin(&mut ws.buf, ws.log.synced_upto());
    let mut kept = Vec::new();
    let mut separated = 0u64;
    for r in records {
        Counters::add(&inner.counters.gc_lsm_lookups, 1);
        let at = crate::gc::CopyAt {
            file,
            epoch,
            offset: r.offset,
        };
        let Some(expires_at) =
            super::relocate::newest_expiry_if_points_into(&sv, &r.key, r.seq, at)?
        else {
            // Overwritten or deleted since GC looked it up. A snapshot taken in between
            // still sees it, and it cannot be written back above the newer version: the
            // file must stay.
            for &snap in &snapshots {
                Counters::add(&inner.counters.gc_lsm_lookups, 1);
                if super::relocate::snapshot_sees(&sv, &r.key, r.seq, at, snap)? {
                    return Ok(None);
                }
            }
            continue;
        };
        let placed = rec.add_stored(&mut ws.buf, r.seq, &r.key, r.stored(), expires_at);
        separated += placed.len as u64;
        kept.push((
            r,
            expires_at,
            ValueHandle {
                file: log_file,
                epoch: 0,
                offset: base + placed.offset as u64,
                len: placed.len as u32,
            },
        ));
    }
    if kept.is_empty() {
        return Ok(Some(0));
    }
    rec.finish(&mut ws.buf);
    if let Err(e) = ws.log.append(&ws.buf) {
        return Err(inner.set_bg_error(e));
    }
    ws.log
        .value_file()
        .add_separated(kept.len() as u64, separated);
    ws.mem_log_bytes += ws.buf.len() as u64;
    let mut ikey = Vec::with_capacity(64);
    let mut value = Vec::with_capacity(32);
    for (r, expires_at, h) in &kept {
        ikey.clear();
        value.clear();
        let kind = put_kind(EntryKind::Handle, *expires_at);
        append_internal_key(&mut ikey, &r.key, r.seq, kind);
        append_expiring_value(&mut value, *expires_at, &h.encode());
        ws.mem.insert(&ikey, &value);
    }
    Counters::add(&inner.counters.gc_records_relocated, kept.len() as u64);
    Counters::add(&inner.counters.gc_bytes_written, ws.buf.len() as u64);
    Ok(Some(kept.len()))
}

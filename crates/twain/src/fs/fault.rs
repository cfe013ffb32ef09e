//! [`Fs`] that injects failures into another one: [`FaultFs`].
//!
//! The semantics are specified in the docs of [`FaultFs`].
#![deny(clippy::indexing_slicing)]

use super::{FileLock, Fs, MemFs, ReadableFile, WritableFile};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The kinds of operation a [`FaultFs`] counts and can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// [`Fs::create`].
    Create,
    /// [`Fs::open_append`].
    OpenAppend,
    /// [`Fs::open_read`].
    OpenRead,
    /// [`WritableFile::append`].
    Append,
    /// [`WritableFile::flush`].
    Flush,
    /// [`WritableFile::sync_data`].
    Sync,
    /// [`ReadableFile::read_exact_at`] (and so [`ReadableFile::read_vec`]).
    Read,
    /// [`Fs::remove_file`].
    Remove,
    /// [`Fs::rename`].
    Rename,
    /// [`Fs::list_dir`].
    ListDir,
    /// [`Fs::sync_dir`].
    SyncDir,
    /// [`Fs::exists`], [`Fs::is_file`], [`Fs::link_count`] and [`FileLock::still_held`] (a
    /// stat of a path).
    Exists,
    /// [`Fs::file_size`] and [`ReadableFile::len`].
    FileSize,
    /// [`Fs::truncate`].
    Truncate,
    /// [`Fs::create_dir_all`].
    CreateDir,
    /// [`Fs::lock`].
    Lock,
    /// [`Fs::punch_hole`].
    Punch,
    /// [`Fs::hard_link`].
    Link,
}

/// Number of [`OpKind`] variants.
const OP_KINDS: usize = 18;

/// What an injected failure looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// An I/O error (`io::ErrorKind::Other`, standing for `EIO`); nothing is done.
    Eio,
    /// No space left on the device (`io::ErrorKind::StorageFull`); nothing is done.
    NoSpace,
    /// An append writes the first half of its bytes (rounded down), then fails like
    /// [`FaultKind::Eio`]. Plain `Eio` on other operations.
    ShortWrite,
    /// A read-only file system (`io::ErrorKind::ReadOnlyFilesystem`, standing for `EROFS`);
    /// nothing is done. What [`FaultFs::set_read_only`] injects.
    ReadOnly,
}

impl OpKind {
    /// Whether the operation changes the file system (what a read-only one refuses):
    /// everything but reads, listings and stats. A lock counts, as opening the lock file for
    /// writing does on a read-only mount.
    pub fn is_mutating(self) -> bool {
        !matches!(
            self,
            OpKind::OpenRead | OpKind::Read | OpKind::ListDir | OpKind::Exists | OpKind::FileSize
        )
    }
}

/// When a [`FaultFs`] injects a failure; see the [`FaultFs`] docs for how rules count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultRule {
    /// The kind of operation to fail; `None` matches every kind.
    pub op: Option<OpKind>,
    /// Only operations on a path containing this string match (`None`: any path).
    pub path_contains: Option<String>,
    /// Fail the `nth` matching operation from when the rule is added (1-based; 0 is 1).
    pub nth: u64,
    /// Keep failing every matching operation after the `nth` too.
    pub persistent: bool,
    /// How to fail.
    pub kind: FaultKind,
}

impl FaultRule {
    /// Fails the next operation of kind `op`, once, with [`FaultKind::Eio`].
    pub fn on(op: OpKind) -> FaultRule {
        FaultRule {
            op: Some(op),
            path_contains: None,
            nth: 1,
            persistent: false,
            kind: FaultKind::Eio,
        }
    }

    /// Fails the next operation of any kind, once, with [`FaultKind::Eio`].
    pub fn any_op() -> FaultRule {
        FaultRule {
            op: None,
            ..FaultRule::on(OpKind::Create)
        }
    }

    /// Only matches operations on a path containing `part`.
    pub fn with_path(mut self, part: impl Into<String>) -> FaultRule {
        self.path_contains = Some(part.into());
        self
    }

    /// Fires on the `nth` matching operation instead of the first.
    pub fn with_nth(mut self, nth: u64) -> FaultRule {
        self.nth = nth;
        self
    }

    /// Keeps firing on every matching operation after the first it fires on.
    pub fn forever(mut self) -> FaultRule {
        self.persistent = true;
        self
    }

    /// Fails with `kind` instead of [`FaultKind::Eio`].
    pub fn with_kind(mut self, kind: FaultKind) -> FaultRule {
        self.kind = kind;
        self
    }

    fn matches(&self, op: OpKind, paths: &[&Path]) -> bool {
        self.op.is_none_or(|o| o == op)
            && self.path_contains.as_ref().is_none_or(|part| {
                paths
                    .iter()
                    .any(|p| p.to_string_lossy().contains(part.as_str()))
            })
    }
}

/// When an [`FaultFs`] observer is called for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpPhase {
    /// The operation passed the rules and is about to reach the inner file system.
    Before,
    /// The inner file system has run it; `ok` tells whether it succeeded.
    After {
        /// Whether the inner file system reported success.
        ok: bool,
    },
}

/// One operation as a [`FaultFs`] observer sees it.
#[derive(Debug, Clone, Copy)]
pub struct OpEvent<'a> {
    /// What kind of operation.
    pub op: OpKind,
    /// The path it applies to (for `rename`, the source; `to` is the target).
    pub path: &'a Path,
    /// The target of a `rename`.
    pub to: Option<&'a Path>,
    /// Before or after the inner file system ran it.
    pub phase: OpPhase,
    /// The operation's number among every operation the `FaultFs` counted (1-based).
    pub number: u64,
}

/// A callback that sees every operation a [`FaultFs`] passes on; see
/// [`FaultFs::set_observer`].
pub type Observer = Arc<dyn Fn(&OpEvent<'_>) + Send + Sync>;

/// A failure a [`FaultFs`] injected, as [`FaultFs::injected_faults`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectedFault {
    /// The operation that failed.
    pub op: OpKind,
    /// How it failed.
    pub kind: FaultKind,
    /// The (first) path of the operation.
    pub path: PathBuf,
    /// The operation's number among every operation counted (1-based).
    pub number: u64,
}

/// A file system that counts every operation and fails the ones its rules select.
///
/// # Counting and rules
///
/// Every call on a `FaultFs` and on the handles it returns is one *operation* of an
/// [`OpKind`], counted before anything else happens (so failed calls count too). The
/// operation is then checked against the [`FaultRule`]s in the order they were added. Each
/// rule counts the operations it *matches* (right op kind, or any if `op` is `None`; some
/// path of the call containing `path_contains`, if set) from the moment it is added, and
/// *fires* on its `nth` match (1-based; 0 counts as 1) — and, if `persistent`, on every match
/// after that. A rule that is not persistent is spent once it fires. Every matching rule
/// counts the operation even if an earlier rule fires on it; the first rule that fires picks
/// the failure.
///
/// Paths: handle operations use the path the handle was opened with (a later rename is not
/// seen); `rename` matches if either of its paths does. [`ReadableFile::len`] counts as
/// [`OpKind::FileSize`]; [`WritableFile::len`], which cannot fail, is not counted.
///
/// # Failures, without hidden side effects
///
/// A fired operation is not passed on to the inner file system, so it changes nothing there:
/// - [`FaultKind::Eio`] fails with `io::ErrorKind::Other` (standing for `EIO`);
/// - [`FaultKind::NoSpace`] fails with `io::ErrorKind::StorageFull`;
/// - [`FaultKind::ShortWrite`] on an append passes on the first `len / 2` bytes (rounded
///   down), then fails like `Eio`; on any other operation it is plain `Eio`.
///
/// A failed `sync_data` therefore leaves the data unsynced in the inner file system, and a
/// failed `sync_dir` leaves its entries non-durable. [`FaultFs::is_injected`] tells an
/// injected error from a real one, and [`FaultFs::injected_faults`] lists every failure
/// injected so far (the space limit's included).
///
/// # Read-only mode
///
/// [`FaultFs::set_read_only`] makes every mutating operation ([`OpKind::is_mutating`]) fail
/// with [`FaultKind::ReadOnly`], before the rules are consulted (they do not count it), as a
/// file system remounted read-only would; reads keep working.
///
/// # Observing operations
///
/// [`FaultFs::set_observer`] installs a callback that runs on the calling thread for every
/// operation passed on to the inner file system: once [`OpPhase::Before`] it reaches the
/// inner file system and once [`OpPhase::After`] it returned. Operations that a rule
/// fails are not observed (nor is the prefix a short write passes on). The callback runs with no lock of the `FaultFs` held, so it may take a
/// [`MemFs::crash`] image of the inner file system: the crash tests use it to build crash
/// states at every sync, create, rename, remove, directory sync and hole punch. It must not call back
/// into this `FaultFs` from `Before` of an append or sync of the same handle (that handle is
/// borrowed), and it runs inside the engine's I/O, so it should be quick.
///
/// # Space limit
///
/// With [`FaultFs::set_space_limit`], an append that would take the space in use past the
/// limit fails with `StorageFull` and writes nothing. The space in use is measured by a
/// *probe*: [`FaultFs::over_mem`] probes [`MemFs::total_bytes`] (sizes of the live files,
/// so removing or truncating files frees space), [`FaultFs::with_space_probe`] takes any
/// function; a `FaultFs` made with [`FaultFs::new`] has no probe and counts instead the
/// bytes appended through it since it was made (nothing is ever freed).
///
/// # Thread safety
///
/// `FaultFs` is a cheap handle: clones share the rules, counters and limit. Appends are
/// serialized while a space limit is set, so that the check and the write are one step.
#[derive(Clone)]
pub struct FaultFs {
    inner: Arc<dyn Fs>,
    shared: Arc<Shared>,
}

/// What a [`FaultFs`], its clones and its handles share.
struct Shared {
    state: Mutex<State>,
    /// Measures the space in use for the space limit; `None`: use `appended`.
    probe: Option<Box<dyn Fn() -> u64 + Send + Sync>>,
    /// Bytes appended through this file system.
    appended: AtomicU64,
    /// Held across the check and the write of an append while a space limit is set.
    space: Mutex<()>,
}

/// A rule and the number of operations it has matched.
#[derive(Debug)]
struct Armed {
    rule: FaultRule,
    seen: u64,
}

#[derive(Default)]
struct State {
    rules: Vec<Armed>,
    counts: [u64; OP_KINDS],
    total: u64,
    space_limit: Option<u64>,
    read_only: bool,
    observer: Option<Observer>,
    injected: Vec<InjectedFault>,
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("rules", &self.rules)
            .field("total", &self.total)
            .field("space_limit", &self.space_limit)
            .field("observer", &self.observer.is_some())
            .field("injected", &self.injected.len())
            .finish()
    }
}

/// The error payload of an injected failure; found again by [`FaultFs::is_injected`].
#[derive(Debug)]
struct Injected {
    op: OpKind,
    kind: FaultKind,
    path: PathBuf,
}

impl fmt::Display for Injected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "injected {:?} fault in {:?} of {}",
            self.kind,
            self.op,
            self.path.display()
        )
    }
}

impl std::error::Error for Injected {}

fn injected(kind: FaultKind, op: OpKind, paths: &[&Path]) -> io::Error {
    let error_kind = match kind {
        FaultKind::NoSpace => io::ErrorKind::StorageFull,
        FaultKind::ReadOnly => io::ErrorKind::ReadOnlyFilesystem,
        FaultKind::Eio | FaultKind::ShortWrite => io::ErrorKind::Other,
    };
    let path = paths.first().map(|p| p.to_path_buf()).unwrap_or_default();
    io::Error::new(error_kind, Injected { op, kind, path })
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Counts one operation and applies the rules; `Err` if one fires. On success, returns
    /// the [`Ticket`] that runs the operation between the observer's two calls.
    fn check(&self, op: OpKind, paths: &[&Path]) -> Result<Ticket, FaultKind> {
        let mut state = lock(&self.state);
        if let Some(count) = state.counts.get_mut(op as usize) {
            *count += 1;
        }
        state.total += 1;
        let number = state.total;
        let refused = state.read_only && op.is_mutating();
        let mut fired = refused.then_some(FaultKind::ReadOnly);
        if !refused {
            state.rules.retain_mut(|armed| {
                if !armed.rule.matches(op, paths) {
                    return true;
                }
                armed.seen += 1;
                let nth = armed.rule.nth.max(1);
                let fires = armed.seen == nth || (armed.rule.persistent && armed.seen > nth);
                if fires && fired.is_none() {
                    fired = Some(armed.rule.kind);
                }
                armed.rule.persistent || !fires
            });
        }
        if let Some(kind) = fired {
            let path = paths.first().map(|p| p.to_path_buf()).unwrap_or_default();
            state.injected.push(InjectedFault {
                op,
                kind,
                path,
                number,
            });
            return Err(kind);
        }
        Ok(Ticket {
            observer: state.observer.clone(),
            op,
            number,
        })
    }

    /// Like [`check`](Self::check), with the failure as an `io::Error`.
    fn check_io(&self, op: OpKind, paths: &[&Path]) -> io::Result<Ticket> {
        self.check(op, paths)
            .map_err(|kind| injected(kind, op, paths))
    }

    /// Records a failure injected by the space limit.
    fn record_no_space(&self, path: &Path) {
        let mut state = lock(&self.state);
        let number = state.total;
        state.injected.push(InjectedFault {
            op: OpKind::Append,
            kind: FaultKind::NoSpace,
            path: path.to_path_buf(),
            number,
        });
    }

    /// Appends `data` to `file` unless that would exceed the space limit.
    fn append_within_limit(
        &self,
        file: &mut dyn WritableFile,
        data: &[u8],
        path: &Path,
    ) -> io::Result<()> {
        let len = data.len() as u64;
        let limit = lock(&self.state).space_limit;
        let _serial = limit.map(|_| lock(&self.space));
        if let Some(limit) = limit {
            let used = match &self.probe {
                Some(probe) => probe(),
                None => self.appended.load(Ordering::Relaxed),
            };
            if used.saturating_add(len) > limit {
                self.record_no_space(path);
                return Err(injected(FaultKind::NoSpace, OpKind::Append, &[path]));
            }
        }
        file.append(data)?;
        self.appended.fetch_add(len, Ordering::Relaxed);
        Ok(())
    }
}

/// An operation that passed the rules: runs it between the observer's two calls.
struct Ticket {
    observer: Option<Observer>,
    op: OpKind,
    number: u64,
}

impl Ticket {
    /// Runs `f` (the inner operation on `path`, or `path -> to` for a rename), telling the
    /// observer before and after.
    fn run<T>(
        self,
        path: &Path,
        to: Option<&Path>,
        f: impl FnOnce() -> io::Result<T>,
    ) -> io::Result<T> {
        let Some(observer) = self.observer else {
            return f();
        };
        let event = |phase| OpEvent {
            op: self.op,
            path,
            to,
            phase,
            number: self.number,
        };
        observer(&event(OpPhase::Before));
        let result = f();
        observer(&event(OpPhase::After { ok: result.is_ok() }));
        result
    }
}

impl FaultFs {
    /// Wraps `inner`, with no rules. A space limit counts the bytes appended through the
    /// new `FaultFs`.
    pub fn new(inner: Arc<dyn Fs>) -> FaultFs {
        FaultFs::build(inner, None)
    }

    /// Wraps `inner`; a space limit compares against what `probe` returns.
    pub fn with_space_probe(
        inner: Arc<dyn Fs>,
        probe: impl Fn() -> u64 + Send + Sync + 'static,
    ) -> FaultFs {
        FaultFs::build(inner, Some(Box::new(probe)))
    }

    /// Wraps a clone of `mem`; a space limit compares against [`MemFs::total_bytes`].
    pub fn over_mem(mem: &MemFs) -> FaultFs {
        let probed = mem.clone();
        FaultFs::with_space_probe(Arc::new(mem.clone()), move || probed.total_bytes())
    }

    fn build(inner: Arc<dyn Fs>, probe: Option<Box<dyn Fn() -> u64 + Send + Sync>>) -> FaultFs {
        FaultFs {
            inner,
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                probe,
                appended: AtomicU64::new(0),
                space: Mutex::new(()),
            }),
        }
    }

    /// The wrapped file system.
    pub fn inner(&self) -> &Arc<dyn Fs> {
        &self.inner
    }

    /// Adds a rule; it counts matching operations from now on.
    pub fn add_rule(&self, rule: FaultRule) {
        lock(&self.shared.state).rules.push(Armed { rule, seen: 0 });
    }

    /// Removes every rule (the space limit stays).
    pub fn clear_rules(&self) {
        lock(&self.shared.state).rules.clear();
    }

    /// Makes every later file sync and directory sync fail with [`FaultKind::Eio`].
    pub fn fail_syncs_from_now(&self) {
        self.add_rule(FaultRule::on(OpKind::Sync).forever());
        self.add_rule(FaultRule::on(OpKind::SyncDir).forever());
    }

    /// Installs (or, with `None`, removes) the observer called before and after every
    /// operation passed on to the inner file system; see the [`FaultFs`] docs.
    pub fn set_observer(&self, observer: Option<Observer>) {
        lock(&self.shared.state).observer = observer;
    }

    /// Every failure injected so far (by rules and by the space limit), oldest first.
    pub fn injected_faults(&self) -> Vec<InjectedFault> {
        lock(&self.shared.state).injected.clone()
    }

    /// Turns read-only mode on or off: while on, every mutating operation fails with
    /// [`FaultKind::ReadOnly`] (`EROFS`); see the [`FaultFs`] docs.
    pub fn set_read_only(&self, read_only: bool) {
        lock(&self.shared.state).read_only = read_only;
    }

    /// Sets (or, with `None`, lifts) the space limit in bytes.
    pub fn set_space_limit(&self, limit: Option<u64>) {
        lock(&self.shared.state).space_limit = limit;
    }

    /// Operations counted so far, of every kind, failed ones included.
    pub fn op_count(&self) -> u64 {
        lock(&self.shared.state).total
    }

    /// Operations of `kind` counted so far, failed ones included.
    pub fn ops_of(&self, kind: OpKind) -> u64 {
        lock(&self.shared.state)
            .counts
            .get(kind as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Whether `error` was injected by a `FaultFs` (a rule or the space limit).
    pub fn is_injected(error: &io::Error) -> bool {
        error.get_ref().is_some_and(|e| e.is::<Injected>())
    }
}

impl fmt::Debug for FaultFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.shared.state);
        f.debug_struct("FaultFs")
            .field("inner", &self.inner)
            .field("rules", &state.rules)
            .field("op_count", &state.total)
            .field("space_limit", &state.space_limit)
            .field("read_only", &state.read_only)
            .finish()
    }
}

impl Fs for FaultFs {
    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        self.shared
            .check_io(OpKind::CreateDir, &[path])?
            .run(path, None, || self.inner.create_dir_all(path))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let file = self
            .shared
            .check_io(OpKind::Create, &[path])?
            .run(path, None, || self.inner.create(path))?;
        Ok(Box::new(FaultWritable {
            file,
            path: path.to_path_buf(),
            shared: self.shared.clone(),
        }))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        // One `Create` operation, like `create`: the check for an existing file is the
        // inner file system's.
        let file = self
            .shared
            .check_io(OpKind::Create, &[path])?
            .run(path, None, || self.inner.create_new(path))?;
        Ok(Box::new(FaultWritable {
            file,
            path: path.to_path_buf(),
            shared: self.shared.clone(),
        }))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let file = self
            .shared
            .check_io(OpKind::OpenAppend, &[path])?
            .run(path, None, || self.inner.open_append(path))?;
        Ok(Box::new(FaultWritable {
            file,
            path: path.to_path_buf(),
            shared: self.shared.clone(),
        }))
    }

    fn open_read(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        let file = self
            .shared
            .check_io(OpKind::OpenRead, &[path])?
            .run(path, None, || self.inner.open_read(path))?;
        Ok(Arc::new(FaultReadable {
            file,
            path: path.to_path_buf(),
            shared: self.shared.clone(),
        }))
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.shared
            .check_io(OpKind::Remove, &[path])?
            .run(path, None, || self.inner.remove_file(path))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.shared
            .check_io(OpKind::Rename, &[from, to])?
            .run(from, Some(to), || self.inner.rename(from, to))
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<String>> {
        self.shared
            .check_io(OpKind::ListDir, &[path])?
            .run(path, None, || self.inner.list_dir(path))
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        self.shared
            .check_io(OpKind::SyncDir, &[path])?
            .run(path, None, || self.inner.sync_dir(path))
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        self.shared
            .check_io(OpKind::Exists, &[path])?
            .run(path, None, || self.inner.exists(path))
    }

    fn is_file(&self, path: &Path) -> io::Result<bool> {
        self.shared
            .check_io(OpKind::Exists, &[path])?
            .run(path, None, || self.inner.is_file(path))
    }

    fn file_size(&self, path: &Path) -> io::Result<u64> {
        self.shared
            .check_io(OpKind::FileSize, &[path])?
            .run(path, None, || self.inner.file_size(path))
    }

    // A stat like `file_size`: the same rules fail it.
    fn allocated_bytes(&self, path: &Path) -> io::Result<u64> {
        self.shared
            .check_io(OpKind::FileSize, &[path])?
            .run(path, None, || self.inner.allocated_bytes(path))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        self.shared
            .check_io(OpKind::Truncate, &[path])?
            .run(path, None, || self.inner.truncate(path, len))
    }

    // A write of zeros: mutating, so read-only mode refuses it, and an observed crash point.
    fn punch_hole(&self, path: &Path, offset: u64, len: u64) -> io::Result<()> {
        self.shared
            .check_io(OpKind::Punch, &[path])?
            .run(path, None, || self.inner.punch_hole(path, offset, len))
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.shared
            .check_io(OpKind::Link, &[from, to])?
            .run(from, Some(to), || self.inner.hard_link(from, to))
    }

    fn link_count(&self, path: &Path) -> io::Result<u64> {
        self.shared
            .check_io(OpKind::Exists, &[path])?
            .run(path, None, || self.inner.link_count(path))
    }

    fn settle(&self) {
        self.inner.settle();
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        let lock = self
            .shared
            .check_io(OpKind::Lock, &[path])?
            .run(path, None, || self.inner.lock(path))?;
        Ok(Box::new(FaultLock {
            lock,
            path: path.to_path_buf(),
            shared: self.shared.clone(),
        }))
    }
}

/// A held lock whose checks are counted (as [`OpKind::Exists`]) and can be failed.
struct FaultLock {
    lock: Box<dyn FileLock>,
    path: PathBuf,
    shared: Arc<Shared>,
}

impl FileLock for FaultLock {
    fn still_held(&self) -> io::Result<bool> {
        self.shared
            .check_io(OpKind::Exists, &[&self.path])?
            .run(&self.path, None, || self.lock.still_held())
    }
}

/// An append handle whose operations are counted and checked.
struct FaultWritable {
    file: Box<dyn WritableFile>,
    path: PathBuf,
    shared: Arc<Shared>,
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        let path = self.path.as_path();
        match self.shared.check(OpKind::Append, &[path]) {
            Ok(ticket) => {
                let (file, shared) = (&mut *self.file, &self.shared);
                ticket.run(path, None, || shared.append_within_limit(file, data, path))
            }
            Err(FaultKind::ShortWrite) => {
                let prefix = data.get(..data.len() / 2).unwrap_or_default();
                self.shared
                    .append_within_limit(&mut *self.file, prefix, path)?;
                Err(injected(FaultKind::ShortWrite, OpKind::Append, &[path]))
            }
            Err(kind) => Err(injected(kind, OpKind::Append, &[path])),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let ticket = self.shared.check_io(OpKind::Flush, &[&self.path])?;
        let file = &mut self.file;
        ticket.run(&self.path, None, || file.flush())
    }

    fn sync_data(&mut self) -> io::Result<()> {
        let ticket = self.shared.check_io(OpKind::Sync, &[&self.path])?;
        let file = &mut self.file;
        ticket.run(&self.path, None, || file.sync_data())
    }

    fn len(&self) -> u64 {
        self.file.len()
    }
}

/// A read handle whose operations are counted and checked.
struct FaultReadable {
    file: Arc<dyn ReadableFile>,
    path: PathBuf,
    shared: Arc<Shared>,
}

impl ReadableFile for FaultReadable {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.shared
            .check_io(OpKind::Read, &[&self.path])?
            .run(&self.path, None, || self.file.read_exact_at(buf, offset))
    }

    fn len(&self) -> io::Result<u64> {
        self.shared
            .check_io(OpKind::FileSize, &[&self.path])?
            .run(&self.path, None, || self.file.len())
    }

    fn advise_random(&self) {
        self.file.advise_random();
    }

    fn will_need(&self, offset: u64, len: u64) {
        self.file.will_need(offset, len);
    }
}

#[cfg(test)]
mod tests;

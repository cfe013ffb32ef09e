//! Compaction parts offloaded to a compaction worker (Co-KV, `compaction_offload`): a
//! worker in this process, on a Unix socket, over the same file system as the host. With
//! a good worker the host installs the worker's parts after checking them; with every
//! kind of bad worker (unreachable, another database, wrong token, silent, hanging up,
//! sending garbage, failing on I/O errors, returning tables with keys out of range,
//! corrupt blocks or numbers it was not given) the host runs the part itself, reads stay
//! right, the statistics say what happened, and no file is left behind.

use crate::dbutil;

use dbutil::Model;
use std::collections::BTreeMap;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::compaction::files_env::FilesEnv;
use twain::compaction::job::PartOutcome;
use twain::compaction::part::{PartEnd, run_part};
use twain::compaction::remote::Address;
use twain::compaction::worker::{Worker, WorkerConfig};
use twain::format::compaction_job::{decode_job, encode_outcome};
use twain::format::worker_protocol::{
    MAX_FRAME, decode_hello, encode_welcome, read_frame, write_frame,
};
use twain::fs::{FaultFs, FaultRule, Fs, MemFs, OpKind};
use twain::{Db, Options, Stats};

const DIR: &str = "/db";

fn opts(fs: &Arc<dyn Fs>, socket: &Path, token: &[u8]) -> Options {
    Options::default()
        .fs(Arc::clone(fs))
        .memtable_size(32 << 10)
        .value_file_size(64 << 10)
        .l1_target_size(32 << 10)
        .target_file_size(8 << 10)
        .block_size(1024)
        .inline_threshold(64)
        .medium_threshold(64)
        .l0_compaction_trigger(2)
        .max_subcompactions(2)
        .gc_enabled(false)
        .compaction_offload(Some(Address::Unix(socket.to_path_buf())))
        .compaction_offload_token(token.to_vec())
        .compaction_offload_timeout_ms(1000)
}

/// Writes rounds of overwrites and deletes over 600 keys, flushing each, then compacts
/// everything; returns what the database should hold.
fn workload(db: &Db, rounds: u32) -> Model {
    let mut model = BTreeMap::new();
    for r in 0..rounds {
        for i in 0..600u32 {
            let k = format!("k{:05}", (i * 7 + r * 131) % 600).into_bytes();
            if (i + r).is_multiple_of(11) {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                let len = if i.is_multiple_of(3) { 300 } else { 20 };
                let v = vec![(r * 31 + i) as u8; len];
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    model
}

fn assert_reads(db: &Db, model: &Model, what: &str) {
    let got: Vec<_> = db.range::<&[u8], _>(..).map(|r| r.unwrap()).collect();
    let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    dbutil::assert_pairs_eq(&got, &want, what);
}

/// After the database closes, `twain check` finds nothing wrong and no orphan: every file
/// a worker wrote is installed or removed.
fn assert_clean(fs: &Arc<dyn Fs>, what: &str) {
    let report = check(
        Path::new(DIR),
        &CheckOptions {
            fs: Arc::clone(fs),
            ..CheckOptions::default()
        },
    )
    .unwrap();
    assert!(report.is_ok(), "{what}: {}", report.to_text());
    assert!(
        report.orphans.is_empty(),
        "{what}: orphans {:?}",
        report.orphans
    );
}

fn socket_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("worker.sock")
}

/// Starts a real worker for `dir` of `fs` on `socket`.
fn start_worker(fs: &Arc<dyn Fs>, dir: &str, socket: &Path, token: Option<&[u8]>) -> Arc<Worker> {
    let worker = Arc::new(
        Worker::new(WorkerConfig {
            fs: Arc::clone(fs),
            dir: PathBuf::from(dir),
            token: token.map(<[u8]>::to_vec),
            max_connections: 8,
            at_step: None,
        })
        .unwrap(),
    );
    let listener = worker.bind(&Address::Unix(socket.to_path_buf())).unwrap();
    let w = Arc::clone(&worker);
    std::thread::spawn(move || w.serve_on(listener));
    worker
}

/// Opens the database once without offload, so that it has its identity.
fn create(fs: &Arc<dyn Fs>) {
    drop(Db::open(DIR, Options::default().fs(Arc::clone(fs))).unwrap());
}

fn totals(db: &Db) -> Stats {
    db.stats().unwrap()
}

#[test]
fn parts_go_to_the_worker_and_are_installed_after_the_check() {
    let sockets = tempfile::tempdir().unwrap();
    let socket = socket_in(&sockets);
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    create(&fs);
    let worker = start_worker(&fs, DIR, &socket, Some(b"t0ken"));
    let db = Db::open(DIR, opts(&fs, &socket, b"t0ken")).unwrap();
    let model = workload(&db, 6);
    assert_reads(&db, &model, "with a worker");
    let s = totals(&db);
    assert!(s.split_compactions > 0, "no compaction was split");
    assert!(s.parts_offloaded > 0, "no part was offloaded: {s:?}");
    assert_eq!(s.parts_taken_back, 0, "{:?}", s.last_offload_failure);
    assert!(s.worker_bytes_written > 0 && s.offload_check_bytes >= s.worker_bytes_written);
    assert!(
        s.compaction_parts > s.parts_offloaded,
        "the host ran none itself"
    );
    // The worker counts a part once its outcome is sent, which may be after the host
    // read it.
    let done = || {
        worker
            .counters()
            .parts_done
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    let counted = dbutil::wait_until(std::time::Duration::from_secs(10), || {
        done() == s.parts_offloaded
    });
    assert!(
        counted,
        "worker {} parts, host {}",
        done(),
        s.parts_offloaded
    );
    let text = s.to_text();
    assert!(text.contains("offload "), "{text}");
    drop(db);
    assert_clean(&fs, "good worker");
    // The counts persist, and the data reads back without the worker.
    let db = Db::open(DIR, Options::default().fs(Arc::clone(&fs))).unwrap();
    assert_reads(&db, &model, "reopened without the worker");
    assert_eq!(
        db.stats().unwrap().totals.parts_offloaded,
        s.parts_offloaded
    );
}

/// Runs the workload against a host whose worker misbehaves (`start`, given the file
/// system and the socket path, sets it up) and checks that every offloaded part was taken
/// back for a reason containing `reason`.
fn taken_back(token: &[u8], reason: &str, start: impl FnOnce(&Arc<dyn Fs>, &Path)) {
    taken_back_leaving(token, reason, start, false);
}

/// [`taken_back`]; with `strays`, files the worker wrote under numbers it was not given
/// stay until the next open removes them (the host never deletes a file a worker names
/// outside the part's reserved numbers: it could be a live one).
fn taken_back_leaving(
    token: &[u8],
    reason: &str,
    start: impl FnOnce(&Arc<dyn Fs>, &Path),
    strays: bool,
) {
    let sockets = tempfile::tempdir().unwrap();
    let socket = socket_in(&sockets);
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    create(&fs);
    start(&fs, &socket);
    let db = Db::open(DIR, opts(&fs, &socket, token)).unwrap();
    let model = workload(&db, 4);
    assert_reads(&db, &model, reason);
    let s = totals(&db);
    assert!(s.parts_taken_back > 0, "{reason}: nothing was taken back");
    assert_eq!(s.parts_offloaded, 0, "{reason}");
    let why = s.last_offload_failure.clone().unwrap_or_default();
    assert!(why.contains(reason), "expected {reason:?} in {why:?}");
    assert!(db.health().is_ok(), "{reason}: the host turned read-only");
    drop(db);
    if strays {
        let plain = Options::default().fs(Arc::clone(&fs));
        let db = Db::open(DIR, plain).unwrap();
        assert_reads(&db, &model, reason);
    }
    assert_clean(&fs, reason);
}

#[test]
fn an_unreachable_worker_leaves_the_parts_to_the_host() {
    taken_back(b"", "connection", |_, _| {});
}

#[test]
fn a_worker_for_another_database_is_refused() {
    taken_back(b"", "WrongDatabase", |fs, socket| {
        let other = "/other";
        drop(Db::open(other, Options::default().fs(Arc::clone(fs))).unwrap());
        start_worker(fs, other, socket, None);
    });
}

#[test]
fn a_wrong_token_is_refused() {
    taken_back(b"guess", "Unauthorized", |fs, socket| {
        start_worker(fs, DIR, socket, Some(b"secret"));
    });
}

#[test]
fn a_worker_whose_file_system_fails_reports_it_and_the_host_runs_the_part() {
    taken_back(b"", "PartFailed", |fs, socket| {
        // The worker sees the same files through a file system that fails every create.
        let mem = Arc::clone(fs);
        let faulty = FaultFs::new(mem);
        faulty.add_rule(FaultRule::on(OpKind::Create).forever());
        let faulty: Arc<dyn Fs> = Arc::new(faulty);
        start_worker(&faulty, DIR, socket, None);
    });
}

/// What a fake worker does once it has a job.
#[derive(Clone, Copy)]
enum Fake {
    /// Sends bytes that are no message.
    Garbage,
    /// Says nothing, ever.
    Silent,
    /// Closes the connection.
    HangUp,
    /// Runs the part for real, then moves its first table's largest key out of the range.
    KeyOutOfRange,
    /// Runs the part for real, then flips a byte in the middle of its first table.
    CorruptBlock,
    /// Runs the part for real, then renames its first table to a number it was not given.
    ForeignNumber,
    /// Runs the part for real, then leaves its last table out of the outcome (the figures
    /// made to match): only the entry-by-entry check can tell.
    Incomplete,
    /// Runs the part for real, then returns an outcome with nothing in it.
    Empty,
}

/// Serves `fake` on `socket` for the database in `DIR` of `fs`: a hand-made worker that
/// speaks the protocol and misbehaves on every job.
fn start_fake(fs: &Arc<dyn Fs>, socket: &Path, fake: Fake) {
    let listener = UnixListener::bind(socket).unwrap();
    let fs = Arc::clone(fs);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let fs = Arc::clone(&fs);
            std::thread::spawn(move || {
                let Ok(hello) = read_frame(&mut s, MAX_FRAME) else {
                    return;
                };
                let Ok(hello) = decode_hello(&hello) else {
                    return;
                };
                // It claims to serve whatever database the host names.
                let _ = write_frame(&mut s, &encode_welcome(&hello.identity));
                while let Ok(msg) = read_frame(&mut s, MAX_FRAME) {
                    let job = decode_job(&msg).unwrap();
                    match fake {
                        Fake::Garbage => {
                            let _ = write_frame(&mut s, b"not a message at all");
                        }
                        Fake::Silent => {
                            // Hold the connection until the host drops it.
                            let mut rest = Vec::new();
                            let _ = std::io::Read::read_to_end(&mut s, &mut rest);
                            return;
                        }
                        Fake::HangUp => return,
                        _ => {
                            let env = FilesEnv::new(Arc::clone(&fs), Path::new(DIR));
                            let mut written = Vec::new();
                            let end = run_part(&job, &env, &mut written).unwrap();
                            let PartEnd::Done(mut outcome) = end else {
                                return;
                            };
                            tamper(&fs, &mut outcome, fake);
                            let _ = write_frame(&mut s, &encode_outcome(&outcome));
                        }
                    }
                }
            });
        }
    });
}

fn tamper(fs: &Arc<dyn Fs>, outcome: &mut PartOutcome, fake: Fake) {
    match fake {
        Fake::Incomplete => {
            if let Some(t) = outcome.tables.pop() {
                outcome.figures.table_bytes_written -= t.file_size;
            }
            return;
        }
        Fake::Empty => {
            outcome.tables.clear();
            outcome.drops.take();
            outcome.figures = Default::default();
            return;
        }
        _ => {}
    }
    let Some(t) = outcome.tables.first_mut() else {
        return;
    };
    let path = Path::new(DIR).join(format!("{:06}.sst", t.number));
    match fake {
        Fake::KeyOutOfRange => {
            // A key past every part's range: "\xff..." sorts after "k...".
            t.largest = twain::key::internal_key(b"\xff\xff", 1, 1);
        }
        Fake::CorruptBlock => {
            let f = fs.open_read(&path).unwrap();
            let mut bytes = f.read_vec(0, t.file_size as usize).unwrap();
            let mid = bytes.len() / 3;
            bytes[mid] ^= 0x5a;
            let mut w = fs.create(&path).unwrap();
            w.append(&bytes).unwrap();
            w.sync_data().unwrap();
        }
        Fake::ForeignNumber => {
            let foreign = t.number + 1_000_000;
            let to = Path::new(DIR).join(format!("{foreign:06}.sst"));
            fs.rename(&path, &to).unwrap();
            t.number = foreign;
        }
        _ => {}
    }
}

#[test]
fn garbage_from_the_worker_is_refused() {
    taken_back(b"", "garbage", |fs, socket| {
        start_fake(fs, socket, Fake::Garbage)
    });
}

#[test]
fn a_silent_worker_is_given_up_after_the_timeout() {
    taken_back(b"", "no word from the worker", |fs, socket| {
        start_fake(fs, socket, Fake::Silent)
    });
}

#[test]
fn a_worker_that_hangs_up_mid_job_is_given_up() {
    taken_back(b"", "connection", |fs, socket| {
        start_fake(fs, socket, Fake::HangUp)
    });
}

#[test]
fn tables_with_keys_outside_the_part_fail_the_check() {
    taken_back(b"", "failed the check", |fs, socket| {
        start_fake(fs, socket, Fake::KeyOutOfRange)
    });
}

#[test]
fn tables_with_corrupt_blocks_fail_the_check() {
    taken_back(b"", "failed the check", |fs, socket| {
        start_fake(fs, socket, Fake::CorruptBlock)
    });
}

#[test]
fn tables_under_numbers_not_reserved_fail_the_check() {
    taken_back_leaving(
        b"",
        "not among the numbers reserved",
        |fs, socket| start_fake(fs, socket, Fake::ForeignNumber),
        true,
    );
}

#[test]
fn a_worker_needs_an_identity_and_a_token_over_tcp() {
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    fs.create_dir_all(Path::new("/empty")).unwrap();
    let config = |dir: &str, token: Option<&[u8]>| WorkerConfig {
        fs: Arc::clone(&fs),
        dir: PathBuf::from(dir),
        token: token.map(<[u8]>::to_vec),
        max_connections: 1,
        at_step: None,
    };
    let err = Worker::new(config("/empty", None)).err().unwrap();
    assert!(err.to_string().contains("IDENTITY"), "{err}");
    create(&fs);
    let worker = Worker::new(config(DIR, None)).unwrap();
    let tcp = Address::parse("tcp:127.0.0.1:0").unwrap();
    let err = worker.bind(&tcp).err().unwrap();
    assert!(err.to_string().contains("token"), "{err}");
    let worker = Worker::new(config(DIR, Some(b"k"))).unwrap();
    assert!(worker.bind(&tcp).is_ok());
    // The host refuses TCP without a token too.
    let o = Options::default().compaction_offload(Some(tcp));
    assert!(o.validate().unwrap_err().to_string().contains("token"));
}

#[test]
fn an_outcome_missing_entries_fails_the_full_check() {
    // The left-out table stays under a reserved number: the host removes it too.
    taken_back(
        b"",
        "the outputs end before the merge does",
        |fs, socket| start_fake(fs, socket, Fake::Incomplete),
    );
}

#[test]
fn an_empty_outcome_fails_the_full_check() {
    taken_back(b"", "failed the check", |fs, socket| {
        start_fake(fs, socket, Fake::Empty)
    });
}

/// A client that sends part of a hello and stalls is cut off after the hello's time limit
/// (10 s), however it trickles; meanwhile, beyond `max_connections`, others are refused as
/// busy.
#[test]
fn a_stalled_hello_is_cut_off_and_extra_connections_are_refused() {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    use std::time::{Duration, Instant};
    use twain::format::worker_protocol::{FailureCode, decode_failure};
    let sockets = tempfile::tempdir().unwrap();
    let socket = socket_in(&sockets);
    let fs: Arc<dyn Fs> = Arc::new(MemFs::new());
    create(&fs);
    let worker = Arc::new(
        Worker::new(WorkerConfig {
            fs: Arc::clone(&fs),
            dir: PathBuf::from(DIR),
            token: None,
            max_connections: 1,
            at_step: None,
        })
        .unwrap(),
    );
    let listener = worker.bind(&Address::Unix(socket.clone())).unwrap();
    let w = Arc::clone(&worker);
    std::thread::spawn(move || w.serve_on(listener));
    let started = Instant::now();
    let mut slow = UnixStream::connect(&socket).unwrap();
    slow.write_all(&[200, 0]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // The one slot is taken: the next connection hears it is busy.
    let mut second = UnixStream::connect(&socket).unwrap();
    second
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let reply = read_frame(&mut second, MAX_FRAME).unwrap();
    assert_eq!(decode_failure(&reply).unwrap().code, FailureCode::Busy);
    // The stalled one trickles a byte now and then, and is still cut off in time.
    slow.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 64];
    loop {
        let _ = slow.write_all(&[0]);
        match slow.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => panic!("the worker answered a partial hello"),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => break,
        }
        assert!(started.elapsed() < Duration::from_secs(20), "never cut off");
    }
    assert!(started.elapsed() >= Duration::from_secs(9));
}

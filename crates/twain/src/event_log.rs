//! What the engine tells its operator: opens and closes, flushes, compactions, value GC
//! runs, long write stalls, damage set aside, and background errors.
//!
//! Every event goes to the [`log`] facade with target `twain`, so an application's logger
//! shows or filters it like its own; nothing is printed without one. With
//! `Options::info_log` (off by default, on in `twain serve`) each event is also appended,
//! as a line `TIMESTAMP LEVEL message`, to the `LOG` file in the database directory.
//! An open moves the previous `LOG` to `LOG.old`; a `LOG` that grows past
//! [`MAX_LOG_BYTES`] is rotated the same way, so the two files take at most twice that.
//! The file is written through the `Fs` seam and never synced: it is for reading, not for
//! recovery. Writing it never fails an operation: after its first failure it is closed,
//! and the failure is reported through the facade.

use crate::fs::{Fs, WritableFile};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// The name of the info log in the database directory.
pub const LOG_FILE: &str = "LOG";
/// The name the previous info log is kept under.
pub const OLD_LOG_FILE: &str = "LOG.old";
/// Bytes past which the info log is rotated.
pub const MAX_LOG_BYTES: u64 = 16 << 20;

/// The events of one open database. Thread-safe.
pub(crate) struct EventLog {
    fs: Arc<dyn Fs>,
    dir: PathBuf,
    file: Mutex<Option<Box<dyn WritableFile>>>,
}

impl EventLog {
    /// The events of the database in `dir`, also written to its `LOG` file if `to_file`.
    pub(crate) fn open(fs: Arc<dyn Fs>, dir: &Path, to_file: bool) -> EventLog {
        let log = EventLog {
            fs,
            dir: dir.to_path_buf(),
            file: Mutex::new(None),
        };
        if to_file {
            match log.start() {
                Ok(f) => *log.file.lock().unwrap_or_else(PoisonError::into_inner) = Some(f),
                Err(e) => log::warn!(
                    target: "twain",
                    "{}: no LOG file: {e}",
                    log.dir.display()
                ),
            }
        }
        log
    }

    /// Moves an existing `LOG` to `LOG.old` and starts a new one.
    fn start(&self) -> std::io::Result<Box<dyn WritableFile>> {
        let path = self.dir.join(LOG_FILE);
        if self.fs.exists(&path)? {
            self.fs.rename(&path, &self.dir.join(OLD_LOG_FILE))?;
        }
        self.fs.create(&path)
    }

    /// Reports one event.
    pub(crate) fn event(&self, level: log::Level, args: fmt::Arguments<'_>) {
        log::log!(target: "twain", level, "{}: {args}", self.dir.display());
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(f) = file.as_mut() else {
            return;
        };
        let line = format!("{} {level:<5} {args}\n", utc_timestamp(SystemTime::now()));
        let written = f.append(line.as_bytes()).and_then(|()| f.flush());
        let failure = match written {
            Err(e) => Some(e),
            Ok(()) if f.len() >= MAX_LOG_BYTES => match self.start() {
                Ok(next) => {
                    *f = next;
                    None
                }
                Err(e) => Some(e),
            },
            Ok(()) => None,
        };
        if let Some(e) = failure {
            *file = None;
            log::warn!(
                target: "twain",
                "{}: LOG file closed after a failed write: {e}",
                self.dir.display()
            );
        }
    }
}

/// Reports an event: `event!(log, Info, "flush: {} entries", n)`.
macro_rules! event {
    ($log:expr, $level:ident, $($arg:tt)*) => {
        $log.event(log::Level::$level, format_args!($($arg)*))
    };
}
pub(crate) use event;

/// `time` in UTC as `2026-11-27T11:20:00.123Z`.
fn utc_timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        since.subsec_millis()
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_dates() {
        let at = |secs: u64, millis: u64| {
            utc_timestamp(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(at(1_795_737_600 + 3661, 123), "2026-11-27T01:01:01.123Z");
        assert_eq!(at(4_107_542_399, 999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn events_are_lines_of_the_log_file_and_an_open_keeps_the_last_one() {
        let fs = MemFs::new();
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let shared: Arc<dyn Fs> = Arc::new(fs.clone());
        let first = EventLog::open(Arc::clone(&shared), dir, true);
        event!(first, Info, "flush: {} entries", 3);
        event!(first, Warn, "stalled");
        let text = String::from_utf8(fs.read_file(&dir.join(LOG_FILE)).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].ends_with(" INFO  flush: 3 entries"), "{text}");
        assert!(lines[1].ends_with(" WARN  stalled"), "{text}");
        drop(first);
        let second = EventLog::open(Arc::clone(&shared), dir, true);
        event!(second, Info, "again");
        assert_eq!(
            fs.read_file(&dir.join(OLD_LOG_FILE)).unwrap(),
            text.as_bytes()
        );
        let off = EventLog::open(shared, Path::new("/other"), false);
        event!(off, Info, "nowhere");
        assert!(!fs.exists(&Path::new("/other").join(LOG_FILE)).unwrap());
    }
}

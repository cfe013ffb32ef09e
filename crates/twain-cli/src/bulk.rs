//! Bulk writes from the command line: `import` (the lines `scan` prints, from stdin) and
//! `load` (random keys and values, with a progress bar and a summary).

use crate::text::Text;
use crate::units::{Sizes, counted};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::io::{BufRead, Write};
use std::time::Instant;
use twain::{Db, Error, Result, WriteBatch, WriteOptions};
use twain_bench::keys::{KEY_LEN, Permutation, key_bytes};
use twain_bench::values::{ValueDist, ValueSource};

/// How `import` treats a malformed line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadLines {
    /// Stop at the first: the pairs before it are written, nothing after it.
    Stop,
    /// Skip them, counting them.
    Skip,
}

/// What an `import` did, when it finished and when it stopped.
#[derive(Debug, Default)]
pub struct Imported {
    /// Pairs written to the database.
    pub written: u64,
    /// Key and value bytes of those pairs.
    pub bytes: u64,
    /// Malformed lines skipped (with [`BadLines::Skip`]).
    pub skipped: u64,
    /// The first skipped lines, each with its number and what is wrong with it (at most
    /// [`SKIPPED_SHOWN`]).
    pub first_skipped: Vec<(u64, String)>,
}

/// How many skipped lines an import names.
pub const SKIPPED_SHOWN: usize = 10;

/// Why an `import` stopped.
#[derive(Debug)]
pub enum ImportError {
    /// A malformed line (with [`BadLines::Stop`]): its number and what is wrong with it.
    BadLine(u64, String),
    /// Reading stdin or writing to the database failed.
    Engine(Error),
}

impl From<Error> for ImportError {
    fn from(e: Error) -> Self {
        ImportError::Engine(e)
    }
}

/// One `key<TAB>value` line (without its line end) as a pair, or what is wrong with it.
fn parse_line(text: Text, line: &[u8]) -> std::result::Result<(Vec<u8>, Vec<u8>), String> {
    let mut fields = line.splitn(2, |&b| b == b'\t');
    let (Some(k), Some(v)) = (fields.next(), fields.next()) else {
        return Err("expected KEY<TAB>VALUE".into());
    };
    let key = text.parse(k).map_err(|e| format!("key: {e}"))?;
    let value = text.parse(v).map_err(|e| format!("value: {e}"))?;
    Ok((key, value))
}

/// Writes `key<TAB>value` lines from `input` in batches of `batch` pairs, then flushes the
/// memtable, so that later opens do not replay the log. The input is bytes: without
/// `--hex` a field need not be UTF-8.
///
/// When it stops (a malformed line with [`BadLines::Stop`], a failed read or write), every
/// pair of the lines before is written and flushed if the database lets it, and `imported`
/// says how many: the input can be resumed after the line named.
pub fn import(
    db: &Db,
    text: Text,
    input: &mut dyn BufRead,
    batch: usize,
    bad_lines: BadLines,
    opts: &WriteOptions,
    imported: &mut Imported,
) -> std::result::Result<(), ImportError> {
    let read = read_lines(db, text, input, batch.max(1), bad_lines, opts, imported);
    // The pairs written are flushed whether or not the input was read to its end; a
    // failed flush after a failed read is not the error to report.
    let flushed = db.flush();
    read?;
    Ok(flushed?)
}

/// The pairs read and not yet written.
struct Pending {
    batch: WriteBatch,
    count: usize,
    /// Key and value bytes of the pairs.
    bytes: u64,
}

impl Pending {
    /// Writes the pairs, if any, counting them in `imported`.
    fn write(&mut self, db: &Db, opts: &WriteOptions, imported: &mut Imported) -> Result<()> {
        if self.count > 0 {
            db.write(std::mem::take(&mut self.batch), opts)?;
            imported.written += self.count as u64;
            imported.bytes += self.bytes;
            self.count = 0;
            self.bytes = 0;
        }
        Ok(())
    }
}

/// The loop of [`import`], writing a batch whenever it is full and before it returns.
fn read_lines(
    db: &Db,
    text: Text,
    input: &mut dyn BufRead,
    batch: usize,
    bad_lines: BadLines,
    opts: &WriteOptions,
    imported: &mut Imported,
) -> std::result::Result<(), ImportError> {
    let mut pending = Pending {
        batch: WriteBatch::new(),
        count: 0,
        bytes: 0,
    };
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        number += 1;
        let read = input.read_until(b'\n', &mut line);
        let n = match read {
            Ok(n) => n,
            Err(source) => {
                pending.write(db, opts, imported)?;
                return Err(ImportError::Engine(Error::Io {
                    op: "read",
                    path: format!("stdin line {number}").into(),
                    source,
                }));
            }
        };
        if n == 0 {
            break;
        }
        let content = line.strip_suffix(b"\n").unwrap_or(&line);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        if content.is_empty() {
            continue;
        }
        match parse_line(text, content) {
            Ok((key, value)) => {
                pending.bytes += (key.len() + value.len()) as u64;
                pending.batch.put(key, value);
                pending.count += 1;
                if pending.count == batch {
                    pending.write(db, opts, imported)?;
                }
            }
            Err(why) if bad_lines == BadLines::Skip => {
                imported.skipped += 1;
                if imported.first_skipped.len() < SKIPPED_SHOWN {
                    imported.first_skipped.push((number, why));
                }
            }
            Err(why) => {
                pending.write(db, opts, imported)?;
                return Err(ImportError::BadLine(number, why));
            }
        }
    }
    pending.write(db, opts, imported)?;
    Ok(())
}

/// What `load` writes.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// Number of keys.
    pub num: u64,
    /// Value size distribution (`ValueDist` syntax: `1024`, `4K`, `100..1000`, `sd`, ...).
    pub value_size: String,
    /// Pairs per write batch.
    pub batch: usize,
    /// Random seed: the key order and the value bytes.
    pub seed: u64,
    /// Sync every batch.
    pub sync: bool,
}

/// Writes `spec.num` 16-byte keys in a random order with random values, then flushes, and
/// writes a summary to `out` (sizes as `sizes` says): ops/s, bytes/s and write
/// amplification.
pub fn load(db: &Db, spec: &LoadSpec, sizes: Sizes, out: &mut dyn Write) -> Result<()> {
    let dist = ValueDist::parse(&spec.value_size)
        .map_err(|e| Error::InvalidArgument(format!("--value-size: {e}")))?;
    let values = ValueSource::new(dist, spec.seed);
    let order = Permutation::new(spec.num, spec.seed);
    let mut rng = SmallRng::seed_from_u64(spec.seed);
    let opts = WriteOptions::default().sync(spec.sync);
    let batch = spec.batch.max(1) as u64;
    let bar = ProgressBar::new(spec.num).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} keys, {per_sec}, eta {eta}")
            .map_err(|e| Error::InvalidArgument(e.to_string()))?,
    );
    let before = db.stats()?;
    let start = Instant::now();
    let mut user_bytes = 0u64;
    let mut i = 0;
    while i < spec.num {
        let end = (i + batch).min(spec.num);
        let mut b = WriteBatch::new();
        for j in i..end {
            let value = values.next(&mut rng);
            user_bytes += (KEY_LEN + value.len()) as u64;
            b.put(key_bytes(order.apply(j)), value);
        }
        db.write(b, &opts)?;
        bar.inc(end - i);
        i = end;
    }
    db.flush()?;
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    bar.finish_and_clear();
    let after = db.stats()?;
    let written = after.engine_bytes_written() - before.engine_bytes_written();
    writeln!(
        out,
        "loaded {}, values {dist}: {:.1} s, {:.0} ops/s, {} of keys and values; write \
         amplification {:.2} ({} written by the engine / {} by the user, so far: compaction \
         goes on in the background)",
        counted(spec.num, "key"),
        secs,
        spec.num as f64 / secs,
        sizes.rate(user_bytes as f64 / secs),
        written as f64 / user_bytes.max(1) as f64,
        sizes.show(written),
        sizes.show(user_bytes),
    )
    .map_err(|source| Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    })
}

//! Bulk writes from the command line: `import` (the lines `scan` prints, from stdin) and
//! `load` (random keys and values, with a progress bar and a summary).

use crate::text::Text;
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::io::{BufRead, Write};
use std::time::Instant;
use twain::{Db, Error, Result, WriteBatch, WriteOptions};
use twain_bench::keys::{KEY_LEN, Permutation, key_bytes};
use twain_bench::values::{ValueDist, ValueSource};

/// Writes `key<TAB>value` lines from `input` in batches of `batch` pairs; returns how many
/// pairs were written. A malformed line is an error naming it; the batches before it are
/// written.
pub fn import(
    db: &Db,
    text: Text,
    input: &mut dyn BufRead,
    batch: usize,
    opts: &WriteOptions,
) -> Result<u64> {
    let batch = batch.max(1);
    let (mut pending, mut count, mut written) = (WriteBatch::new(), 0usize, 0u64);
    let mut line = String::new();
    for number in 1.. {
        line.clear();
        let n = input.read_line(&mut line).map_err(|source| Error::Io {
            op: "read",
            path: "stdin".into(),
            source,
        })?;
        if n == 0 {
            break;
        }
        let content = line.strip_suffix('\n').unwrap_or(&line);
        let content = content.strip_suffix('\r').unwrap_or(content);
        if content.is_empty() {
            continue;
        }
        let bad = |why: String| Error::InvalidArgument(format!("stdin line {number}: {why}"));
        let (k, v) = content
            .split_once('\t')
            .ok_or_else(|| bad("expected KEY<TAB>VALUE".into()))?;
        let key = text.parse(k).map_err(|e| bad(format!("key: {e}")))?;
        let value = text.parse(v).map_err(|e| bad(format!("value: {e}")))?;
        pending.put(key, value);
        count += 1;
        if count == batch {
            db.write(std::mem::take(&mut pending), opts)?;
            written += count as u64;
            count = 0;
        }
    }
    if count > 0 {
        db.write(pending, opts)?;
        written += count as u64;
    }
    Ok(written)
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
/// writes a summary to `out`: ops/s, MB/s and write amplification.
pub fn load(db: &Db, spec: &LoadSpec, out: &mut dyn Write) -> Result<()> {
    let dist = ValueDist::parse(&spec.value_size)
        .map_err(|e| Error::InvalidArgument(format!("--value-size: {e}")))?;
    let values = ValueSource::new(dist, spec.seed);
    let order = Permutation::new(spec.num, spec.seed);
    let mut rng = SmallRng::seed_from_u64(spec.seed);
    let opts = WriteOptions { sync: spec.sync };
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
        "loaded {} keys, values {dist}: {:.1} s, {:.0} ops/s, {:.1} MB/s of keys and values; \
         write amplification {:.2} ({} engine bytes written / {} user bytes, so far: \
         compaction goes on in the background)",
        spec.num,
        secs,
        spec.num as f64 / secs,
        user_bytes as f64 / secs / 1e6,
        written as f64 / user_bytes.max(1) as f64,
        written,
        user_bytes,
    )
    .map_err(|source| Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    })
}

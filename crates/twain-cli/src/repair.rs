//! `twain repair`: the command-line face of [`twain::repair`].

use std::io::Write;
use std::path::Path;
use twain::{Error, Options, Result};

/// Repairs the closed database at `db` (options from `sets`, for `num_levels` and the
/// layout of rewritten tables) and writes the report to `out`. Succeeds whenever the
/// repair completed, lossless or not: the report lists damaged, missing and lost items.
pub fn run(db: &Path, sets: &[String], out: &mut dyn Write) -> Result<()> {
    let mut opts = Options::default().create_if_missing(false);
    crate::commands::apply_sets(&mut opts, sets)?;
    let report = twain::repair(db, &opts)?;
    writeln!(out, "{}", report.to_text()).map_err(|source| Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    })
}

//! `twain check`: the command-line face of [`twain::check::check`].

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use twain::check::{CheckOptions, check};
use twain::{Error, Options, Result};

/// Checks the database at `db` (options from `sets`, for `num_levels`), writes the report
/// to `out`, and fails if it found any problem.
pub fn run(db: &Path, sets: &[String], out: &mut dyn Write) -> Result<()> {
    let mut opts = Options::default();
    crate::commands::apply_sets(&mut opts, sets)?;
    let report = check(
        db,
        &CheckOptions {
            fs: Arc::new(twain::fs::RealFs::new()),
            num_levels: opts.num_levels,
        },
    )?;
    writeln!(out, "{}", report.to_text()).map_err(|source| Error::Io {
        op: "write",
        path: "stdout".into(),
        source,
    })?;
    if report.is_ok() {
        Ok(())
    } else {
        Err(Error::Corruption {
            file: db.to_path_buf(),
            offset: 0,
            what: format!("twain check found {} problems", report.problems.len()),
        })
    }
}

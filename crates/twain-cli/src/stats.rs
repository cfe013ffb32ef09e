//! `twain stats`: the engine's statistics as text, with sizes as `--bytes` asks, or as
//! JSON with exact numbers.
//!
//! The lines are those of [`twain::Stats::to_text_with`] (which the server's `INFO` prints
//! in MiB), every size written by [`Sizes`].

use crate::units::Sizes;
use clap::Args;
use twain::{Db, Error, Result, Stats};

/// Arguments of `twain stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// As one JSON object (exact numbers, whatever --bytes says).
    #[arg(long)]
    pub json: bool,
    /// Skip the pass over every table's keys: the live-data figure (and so the space
    /// amplification) is then the referenced bytes, an upper bound.
    #[arg(long)]
    pub fast: bool,
}

/// The statistics of `db`, with the exact live-data figure unless `fast`.
pub fn collect(db: &Db, fast: bool) -> Result<Stats> {
    if !fast {
        // A failed pass shows in the statistics (`live_bytes_error`).
        let _ = db.refresh_live_bytes();
    }
    db.stats()
}

/// The statistics as `twain stats` prints them: JSON (one object, a line) or text.
pub fn render(s: &Stats, json: bool, sizes: Sizes) -> Result<String> {
    if json {
        to_json(s)
    } else {
        Ok(to_text(s, sizes))
    }
}

/// [`Stats::to_json`] with `estimated_keys` added ([`Stats::estimated_keys`]).
pub fn to_json(s: &Stats) -> Result<String> {
    let bad = |e: serde_json::Error| Error::InvalidArgument(format!("statistics JSON: {e}"));
    let mut object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&s.to_json()).map_err(bad)?;
    object.insert("estimated_keys".into(), s.estimated_keys().into());
    serde_json::to_string(&object).map_err(bad)
}

/// The statistics as readable text, one figure a line, sizes written by `sizes`
/// ([`Stats::to_text_with`]).
pub fn to_text(s: &Stats, sizes: Sizes) -> String {
    s.to_text_with(&|b| sizes.show(b))
}

//! `twain dump`: a readable form of one database file, or a summary of every file in a
//! database directory.
//!
//! Every file's dump opens with the same header (file, kind, number, epoch, size, entries
//! and key range where cheap) and its kind's properties ([`summary`]); `--properties` stops
//! there. A table then lists its entries, within `--from`/`--to` and up to `--limit`
//! ([`table`]). The other kinds with records follow with the engine's own dump
//! ([`twain::dump::dump_file`]): frame by frame, skipping the runs value GC punched out of
//! a value file, which only the engine's reader knows how to.

mod dir;
mod records;
mod summary;
mod table;

use crate::Outcome;
use crate::text::Text;
use crate::units::Sizes;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use summary::{Kind, io};
use twain::fs::{Fs, RealFs};
use twain::{Error, Result};

/// Arguments of `twain dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// A database file, or a database directory for a summary of every file in it.
    path: PathBuf,
    /// List the entries of a table, value log or SVTable from this key on (inclusive;
    /// `\xNN` escapes, hex with --hex).
    #[arg(long)]
    from: Option<String>,
    /// List the entries of a table, value log or SVTable before this key (exclusive).
    #[arg(long)]
    to: Option<String>,
    /// List at most this many entries (of a table or value file), edits (of a manifest) or
    /// drop blocks (of a drop file).
    #[arg(long)]
    limit: Option<usize>,
    /// Only the header and the properties: no entries.
    #[arg(long)]
    properties: bool,
    /// As one JSON object (exact numbers, whatever --bytes says; keys as `scan` prints
    /// them), the entries, edits or drop blocks in its `listed` array.
    #[arg(long)]
    json: bool,
}

impl DumpArgs {
    /// Whether the arguments select entries.
    fn selects(&self) -> bool {
        self.keys() || self.limit.is_some()
    }

    /// Whether they name a key range.
    fn keys(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }
}

/// Dumps the file or directory `args` names to `out`.
pub fn run(args: &DumpArgs, text: Text, sizes: Sizes, out: &mut dyn Write) -> Result<Outcome> {
    let fs: Arc<dyn Fs> = Arc::new(RealFs::new());
    let path = &args.path;
    let meta = std::fs::metadata(path).map_err(io("stat", path))?;
    if meta.is_dir() {
        if args.selects() || args.properties {
            return Err(Error::InvalidArgument(
                "--from, --to, --limit and --properties apply to one file; a directory gets \
                 a summary of each of its files"
                    .into(),
            ));
        }
        return dir::run(&fs, path, args.json, text, sizes, out);
    }
    if !fs.is_file(path).map_err(io("stat", path))? {
        return Err(Error::InvalidArgument(format!(
            "{}: not a regular file (a directory, FIFO, socket or device); dump reads only \
             regular files",
            path.display()
        )));
    }
    let s = summary::summarize(&fs, path)?;
    let table = s.kind == Kind::Table;
    let records = matches!(
        s.kind,
        Kind::ValueFile | Kind::SvTable | Kind::Manifest | Kind::DropFile
    );
    let keyed = table || matches!(s.kind, Kind::ValueFile | Kind::SvTable);
    if (args.keys() && !keyed) || (args.selects() && !(table || records)) {
        return Err(Error::InvalidArgument(format!(
            "{} is a {}: {}",
            path.display(),
            s.kind.name(),
            if records {
                "it has no keys to select by --from or --to (--limit applies)"
            } else {
                "it has no entries to select (dumped whole)"
            }
        )));
    }
    let sel = table::Selection {
        from: args
            .from
            .as_deref()
            .map(|k| text.arg("--from", k))
            .transpose()?,
        to: args
            .to
            .as_deref()
            .map(|k| text.arg("--to", k))
            .transpose()?,
        limit: args.limit,
    };
    let w = io("write", Path::new("stdout"));
    let entries = !args.properties;
    if args.json {
        let mut object = serde_json::Value::Object(s.to_json(text)).to_string();
        if (table || records) && entries {
            // The entries are streamed: the object's closing brace comes after them.
            object.pop();
            writeln!(out, "{object},\"listed\":[").map_err(&w)?;
            if table {
                table::list_json(fs.as_ref(), &s, &sel, text, out)?;
            } else {
                records::list_json(&fs, path, &sel, text, out)?;
            }
            writeln!(out, "]}}").map_err(&w)?;
        } else {
            writeln!(out, "{object}").map_err(&w)?;
        }
        return Ok(Outcome::Done);
    }
    write!(out, "{}", s.to_text(text, sizes)).map_err(&w)?;
    if entries && table {
        writeln!(out).map_err(&w)?;
        table::list_text(fs.as_ref(), &s, &sel, text, sizes, out)?;
    } else if entries && records {
        writeln!(out).map_err(&w)?;
        records::list_text(&fs, path, &sel, out)?;
    }
    Ok(Outcome::Done)
}

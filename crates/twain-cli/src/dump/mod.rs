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
    /// List a table's entries from this key on (inclusive; `\xNN` escapes, hex with --hex).
    #[arg(long)]
    from: Option<String>,
    /// List a table's entries before this key (exclusive).
    #[arg(long)]
    to: Option<String>,
    /// List at most this many of a table's entries.
    #[arg(long)]
    limit: Option<usize>,
    /// Only the header and the properties: no entries.
    #[arg(long)]
    properties: bool,
    /// As one JSON object (exact numbers, whatever --bytes says; keys as `scan` prints
    /// them). Entries are listed for tables; other files need --properties.
    #[arg(long)]
    json: bool,
}

impl DumpArgs {
    /// Whether the arguments select entries: only a table's can be.
    fn selects(&self) -> bool {
        self.from.is_some() || self.to.is_some() || self.limit.is_some()
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
    let listed = s.kind == Kind::Table;
    let engine_body = matches!(
        s.kind,
        Kind::ValueFile | Kind::SvTable | Kind::Manifest | Kind::DropFile
    );
    if args.selects() && !listed {
        return Err(Error::InvalidArgument(format!(
            "--from, --to and --limit select a table's entries; {} is a {} (dumped whole)",
            path.display(),
            s.kind.name()
        )));
    }
    if args.json && engine_body && !args.properties {
        return Err(Error::InvalidArgument(format!(
            "--json lists the entries of tables only; {} is a {}: add --properties for its \
             header and properties",
            path.display(),
            s.kind.name()
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
        if listed && entries {
            // The entries are streamed: the object's closing brace comes after them.
            object.pop();
            writeln!(out, "{object},\"listed\":[").map_err(&w)?;
            table::list_json(fs.as_ref(), &s, &sel, text, out)?;
            writeln!(out, "]}}").map_err(&w)?;
        } else {
            writeln!(out, "{object}").map_err(&w)?;
        }
        return Ok(Outcome::Done);
    }
    write!(out, "{}", s.to_text(text, sizes)).map_err(&w)?;
    if entries && listed {
        writeln!(out).map_err(&w)?;
        table::list_text(fs.as_ref(), &s, &sel, text, sizes, out)?;
    } else if entries && engine_body {
        writeln!(out).map_err(&w)?;
        twain::dump::dump_file(&fs, path, out)?;
    }
    Ok(Outcome::Done)
}

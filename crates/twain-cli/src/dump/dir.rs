//! `twain dump DIR`: one line per file of a database directory — kind, number, size,
//! entries (or edits, records) and key range — from the cheap summaries of [`super::summary`].

use super::summary::{Kind, Summary, io, summarize};
use crate::Outcome;
use crate::say::note;
use crate::text::Text;
use crate::units::{Sizes, counted};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use twain::fs::Fs;
use twain::{Error, Result};

/// One entry of the directory: its summary, or what made it unreadable.
struct Row {
    summary: Summary,
    /// Why the file could not be read.
    error: Option<String>,
    /// Whether the entry is not a regular file (a subdirectory such as repair's `lost/`).
    irregular: bool,
}

impl Row {
    /// The last column: the key range, the manifest `CURRENT` names, the id, or why the
    /// file could not be read.
    fn detail(&self, text: Text) -> String {
        if let Some(e) = &self.error {
            return format!("unreadable: {e}");
        }
        if self.irregular {
            return "not a regular file".into();
        }
        let s = &self.summary;
        if let Some(range) = s.key_range(text) {
            return range;
        }
        match s.properties.first() {
            Some((name @ ("manifest" | "id"), super::summary::Field::Text(t))) => {
                format!("{name} {t}")
            }
            _ => "-".into(),
        }
    }
}

/// Summarizes every file in `dir`, in kind and number order, as text or JSON. Files that
/// cannot be read are listed with why, and make the status [`Outcome::Failed`].
pub fn run(
    fs: &Arc<dyn Fs>,
    dir: &Path,
    json: bool,
    text: Text,
    sizes: Sizes,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let names = fs.list_dir(dir).map_err(io("list", dir))?;
    if names.iter().all(|n| Kind::of(n).0 == Kind::Other) {
        return Err(Error::InvalidArgument(format!(
            "{}: not a twain database directory (no CURRENT, manifest, table or value file in it)",
            dir.display()
        )));
    }
    let mut rows: Vec<Row> = names.iter().map(|n| row(fs, &dir.join(n))).collect();
    rows.sort_by(|a, b| {
        let key = |r: &Row| (r.summary.kind, r.summary.number, r.summary.epoch);
        key(a)
            .cmp(&key(b))
            .then_with(|| a.summary.path.cmp(&b.summary.path))
    });
    let w = io("write", Path::new("stdout"));
    if json {
        let files: Vec<Value> = rows
            .iter()
            .map(|r| {
                let mut o = r.summary.to_json(text);
                if let Some(e) = &r.error {
                    o.insert("error".into(), json!(e));
                }
                Value::Object(o)
            })
            .collect();
        let o = json!({"dir": dir.to_string_lossy(), "files": files});
        writeln!(out, "{o}").map_err(&w)?;
    } else {
        write!(out, "{}", table(&rows, text, sizes)).map_err(&w)?;
    }
    let unreadable = rows.iter().filter(|r| r.error.is_some()).count() as u64;
    if unreadable > 0 {
        note!(
            "twain: dump: {} in {} could not be read",
            counted(unreadable, "file"),
            dir.display()
        );
        return Ok(Outcome::Failed);
    }
    Ok(Outcome::Done)
}

/// The row of the directory entry at `path`.
fn row(fs: &Arc<dyn Fs>, path: &Path) -> Row {
    let bare = |size, error| Row {
        summary: Summary::bare(path, size),
        error,
        irregular: false,
    };
    match fs.is_file(path) {
        Ok(false) => {
            let mut r = bare(0, None);
            r.summary.kind = Kind::Other;
            (r.summary.number, r.summary.epoch) = (None, None);
            r.irregular = true;
            r
        }
        Err(e) => bare(0, Some(e.to_string())),
        Ok(true) if !Summary::bare(path, 0).kind.is_dumpable() => {
            bare(fs.file_size(path).unwrap_or(0), None)
        }
        Ok(true) => match summarize(fs, path) {
            Ok(summary) => Row {
                summary,
                error: None,
                irregular: false,
            },
            Err(e) => bare(fs.file_size(path).unwrap_or(0), Some(e.to_string())),
        },
    }
}

/// The rows as aligned columns under a heading.
fn table(rows: &[Row], text: Text, sizes: Sizes) -> String {
    let dash = || "-".to_string();
    let mut cells: Vec<[String; 6]> = vec![[
        "FILE".into(),
        "KIND".into(),
        "NUMBER".into(),
        "SIZE".into(),
        "CONTENTS".into(),
        "KEYS / DETAIL".into(),
    ]];
    for r in rows {
        let s = &r.summary;
        let name = s
            .path
            .file_name()
            .map_or_else(dash, |n| n.to_string_lossy().into_owned());
        cells.push([
            name,
            s.kind.name().into(),
            s.number.map_or_else(dash, |n| n.to_string()),
            if r.irregular {
                dash()
            } else {
                sizes.show(s.size)
            },
            s.count_text().unwrap_or_else(dash),
            r.detail(text),
        ]);
    }
    let mut widths = [0usize; 6];
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let [w0, w1, w2, w3, w4, _] = widths;
    cells
        .iter()
        .map(|[file, kind, number, size, contents, detail]| {
            format!(
                "{file:<w0$}  {kind:<w1$}  {number:>w2$}  {size:>w3$}  {contents:<w4$}  {detail}"
            )
            .trim_end()
            .to_string()
                + "\n"
        })
        .collect()
}

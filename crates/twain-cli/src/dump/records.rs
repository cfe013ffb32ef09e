//! `twain dump` of a value log, SVTable, manifest or drop file: the engine's items
//! ([`twain::dump::walk`]) as text or JSON, the entries of value files within
//! `--from`/`--to`, and at most `--limit` entries (value files), edits (manifests) or drop
//! blocks (drop files).

use super::summary::io;
use super::table::Selection;
use crate::text::Text;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use twain::Result;
use twain::dump::{Item, TextWriter, walk};
use twain::format::manifest::{ValueFileOrigin, VersionEdit};
use twain::fs::Fs;

/// Whether `item` is one `--limit` counts, and whether the selection keeps it.
fn judge(item: &Item<'_>, sel: &Selection) -> (bool, bool) {
    match item {
        Item::Entry(e) => {
            let after = sel.from.as_deref().is_none_or(|f| e.key >= f);
            let before = sel.to.as_deref().is_none_or(|t| e.key < t);
            (true, after && before)
        }
        Item::Edit { .. } | Item::Drops { .. } => (true, true),
        // A batch's header is shown only when no key range narrows its entries.
        Item::Batch { .. } => (false, sel.from.is_none() && sel.to.is_none()),
        _ => (false, true),
    }
}

/// Walks the items of the file at `path` that `sel` keeps (the file's own header item
/// left out: the summary said it), handing each to `each`.
fn selected(
    fs: &Arc<dyn Fs>,
    path: &Path,
    sel: &Selection,
    mut each: impl FnMut(&Item<'_>) -> Result<()>,
) -> Result<()> {
    let mut left = sel.limit.unwrap_or(usize::MAX);
    // An SVTable's entries come in key order: the walk ends at --to.
    let mut sorted = false;
    walk(fs, path, &mut |item| {
        if let Item::ValueFile { svtable, .. } = &item {
            sorted = svtable.is_some();
        }
        if matches!(item, Item::ValueFile { .. } | Item::Framed { .. }) {
            return Ok(true);
        }
        if let Item::Entry(e) = &item
            && sorted
            && sel.to.as_deref().is_some_and(|to| e.key >= to)
        {
            return Ok(false);
        }
        let (counted, kept) = judge(&item, sel);
        // Past the limit nothing more is shown, a batch's header included.
        if left == 0 && (counted || matches!(item, Item::Batch { .. })) {
            return Ok(false);
        }
        if !kept {
            return Ok(true);
        }
        if counted {
            left -= 1;
        }
        each(&item)?;
        Ok(true)
    })
}

/// Writes the selected items as the engine's dump text.
pub fn list_text(
    fs: &Arc<dyn Fs>,
    path: &Path,
    sel: &Selection,
    out: &mut dyn Write,
) -> Result<()> {
    let text = TextWriter::new(path);
    selected(fs, path, sel, |item| {
        text.write(item, out)
            .map_err(io("write", Path::new("stdout")))
    })
}

/// Writes the selected items as the elements of a JSON array (the caller writes the
/// brackets), one a line.
pub fn list_json(
    fs: &Arc<dyn Fs>,
    path: &Path,
    sel: &Selection,
    text: Text,
    out: &mut dyn Write,
) -> Result<()> {
    let mut first = true;
    selected(fs, path, sel, |item| {
        let sep = if first { "" } else { "," };
        first = false;
        writeln!(out, "{sep}{}", to_json(item, text)).map_err(io("write", Path::new("stdout")))
    })
}

/// One item as a JSON object; what it is is its first field's name (`punched`, `batch`,
/// `entry`, `edit`, `drops`, `stop`, `end`).
fn to_json(item: &Item<'_>, text: Text) -> Value {
    match item {
        Item::ValueFile { number, epoch, .. } => json!({"value_file": number, "epoch": epoch}),
        Item::Framed { number, .. } => json!({"file": number}),
        Item::Punched { start, end } => json!({"punched": {"start": start, "end": end}}),
        Item::Batch {
            at,
            len,
            first_seq,
            count,
            synced_upto,
        } => json!({"batch": {"offset": at, "len": len, "first_seq": first_seq,
                              "count": count, "synced_upto": synced_upto}}),
        Item::Entry(e) => {
            let mut o = json!({"seq": e.seq, "kind": e.kind, "key": text.show(e.key)});
            if e.kind != "tombstone" {
                o["offset"] = json!(e.offset);
                o["len"] = json!(e.len);
            }
            match &e.value {
                Some(Ok(v)) if e.kind == "delete-range" => o["end"] = json!(text.show(v)),
                Some(Ok(v)) => {
                    o["value_len"] = json!(v.len());
                    o["value"] = json!(text.show(v));
                }
                Some(Err(what)) => o["error"] = json!(what),
                None => {}
            }
            if let Some(n) = e.stored_len {
                o["stored_len"] = json!(n);
            }
            if let Some(at) = e.expires_at {
                o["expires_at"] = json!(at);
            }
            json!({ "entry": o })
        }
        Item::Edit { at, edit } => json!({"edit": edit_json(*at, edit, text)}),
        Item::Drops { at, records } => {
            let records: Vec<Value> = records
                .iter()
                .map(|(seq, len)| json!({"seq": seq, "len": len}))
                .collect();
            json!({"drops": {"offset": at, "records": records}})
        }
        Item::Stop { kind, at, what } => {
            json!({"stop": {"kind": kind, "offset": at, "what": what}})
        }
        Item::End {
            valid_end,
            file_len,
        } => json!({"end": {"valid_bytes": valid_end, "file_len": file_len}}),
    }
}

/// A manifest edit's fields, those it sets only.
fn edit_json(at: u64, e: &VersionEdit, text: Text) -> Value {
    let mut o = json!({ "offset": at });
    let mut set = |name: &str, v: Value| {
        o[name] = v;
    };
    if let Some(n) = e.next_file_number {
        set("next_file_number", json!(n));
    }
    if let Some(s) = e.last_sequence {
        set("last_sequence", json!(s));
    }
    if let Some((file, offset)) = e.flushed_point {
        set("flushed_point", json!({"file": file, "offset": offset}));
    }
    if let Some(s) = e.flushed_sequence {
        set("flushed_sequence", json!(s));
    }
    let show = |ikey: &[u8]| text.show(twain::key::user_key(ikey));
    if !e.added_tables.is_empty() {
        let t: Vec<Value> = e
            .added_tables
            .iter()
            .map(|t| {
                json!({"number": t.number, "level": t.level, "file_size": t.file_size,
                       "smallest": show(&t.smallest), "largest": show(&t.largest),
                       "smallest_seq": t.smallest_seq, "largest_seq": t.largest_seq})
            })
            .collect();
        set("added_tables", json!(t));
    }
    if !e.deleted_tables.is_empty() {
        let t: Vec<Value> = e
            .deleted_tables
            .iter()
            .map(|(level, number)| json!({"level": level, "number": number}))
            .collect();
        set("deleted_tables", json!(t));
    }
    if !e.added_value_files.is_empty() {
        let v: Vec<Value> = e
            .added_value_files
            .iter()
            .map(|v| {
                json!({"number": v.number, "epoch": v.epoch, "total_bytes": v.total_bytes,
                       "separated_bytes": v.separated_bytes, "separated_count": v.separated_count})
            })
            .collect();
        set("sealed_value_files", json!(v));
    }
    if !e.value_file_drops.is_empty() {
        let d: Vec<Value> = e
            .value_file_drops
            .iter()
            .map(|d| json!({"number": d.number, "epoch": d.epoch, "count": d.count, "bytes": d.bytes}))
            .collect();
        set("value_file_drops", json!(d));
    }
    if !e.deleted_value_files.is_empty() {
        set("deleted_value_files", json!(e.deleted_value_files));
    }
    if !e.compact_pointers.is_empty() {
        let c: Vec<Value> = e
            .compact_pointers
            .iter()
            .map(|(level, k)| json!({"level": level, "key": show(k)}))
            .collect();
        set("compact_pointers", json!(c));
    }
    if !e.value_file_punches.is_empty() {
        let p: Vec<Value> = e
            .value_file_punches
            .iter()
            .map(|p| {
                json!({"number": p.number, "epoch": p.epoch, "runs": p.runs,
                       "records": p.records, "record_bytes": p.record_bytes,
                       "punched_bytes": p.punched_bytes})
            })
            .collect();
        set("value_file_punches", json!(p));
    }
    if !e.value_file_origins.is_empty() {
        let o: Vec<Value> = e
            .value_file_origins
            .iter()
            .map(|(n, origin)| {
                let name = match origin {
                    ValueFileOrigin::Log => "log",
                    ValueFileOrigin::Transient => "transient",
                    ValueFileOrigin::Placed => "placed",
                    ValueFileOrigin::Hash => "hash",
                };
                json!({"number": n, "origin": name})
            })
            .collect();
        set("value_file_origins", json!(o));
    }
    if e.drops_untracked {
        set("drops_untracked", json!(true));
    }
    if let Some(g) = e.hash_groups {
        set("hash_groups", json!(g));
    }
    if !e.hash_segments.is_empty() {
        let h: Vec<Value> = e
            .hash_segments
            .iter()
            .map(|(n, group)| json!({"number": n, "group": group}))
            .collect();
        set("hash_segments", json!(h));
    }
    if !e.hash_cold_segments.is_empty() {
        set("hash_cold_segments", json!(e.hash_cold_segments));
    }
    if let Some(c) = &e.counters {
        let m: serde_json::Map<String, Value> =
            c.iter().map(|(id, v)| (id.to_string(), json!(v))).collect();
        set("counters", Value::Object(m));
    }
    o
}

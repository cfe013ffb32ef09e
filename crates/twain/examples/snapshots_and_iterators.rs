//! Consistent views, ranges in both directions, prefixes, seekable cursors, key-only and
//! lazy-value iteration, zero-copy (pinned) values.
//!
//! Run: `cargo run -p twain --example snapshots_and_iterators`.

use twain::{Db, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = Db::open(dir.path(), Options::default())?;
    for (k, v) in [
        ("fruit:apple", "red"),
        ("fruit:banana", "yellow"),
        ("veg:kale", "green"),
    ] {
        db.put(k, v)?;
    }

    // A snapshot sees the database as it was when taken, whatever is written after.
    let snapshot = db.snapshot();
    db.put("fruit:cherry", "dark red")?;
    db.delete("fruit:apple")?;
    assert_eq!(snapshot.get("fruit:apple")?.as_deref(), Some(&b"red"[..]));
    assert_eq!(snapshot.get("fruit:cherry")?, None);

    // Ranges, forwards and backwards; each item is a Result (a read can fail).
    let now: Vec<Vec<u8>> = db
        .range("fruit:".."fruit;")
        .map(|kv| kv.map(|(k, _)| k))
        .collect::<Result<_, _>>()?;
    assert_eq!(now, [b"fruit:banana".to_vec(), b"fruit:cherry".to_vec()]);
    let then_reversed: Vec<Vec<u8>> = snapshot
        .prefix("fruit:")
        .rev()
        .map(|kv| kv.map(|(k, _)| k))
        .collect::<Result<_, _>>()?;
    assert_eq!(
        then_reversed,
        [b"fruit:banana".to_vec(), b"fruit:apple".to_vec()]
    );

    // A cursor: seek, then step either way.
    let mut cursor = db.iter();
    cursor.seek("fruit:c");
    let (key, value) = cursor.next().expect("a key at or after fruit:c")?;
    assert_eq!(
        (key.as_slice(), value.as_slice()),
        (&b"fruit:cherry"[..], &b"dark red"[..])
    );
    let (before, _) = cursor.prev().expect("the key before")?;
    assert_eq!(before, b"fruit:banana");

    // Keys only: no value file is read (cheap for large values).
    let count = db.keys::<&str, _>(..).count();
    assert_eq!(count, 3);

    // Entries: the value is read only when asked.
    for entry in db.entries::<&str, _>(..) {
        let entry = entry?;
        if entry.key().starts_with(b"veg:") {
            assert_eq!(entry.value()?, b"green");
        }
    }
    // Zero-copy: values as `twain::Bytes` that share the table block or read buffer they
    // were found in, instead of copies (worth it for large values).
    db.flush()?;
    let pinned: twain::Bytes = db.get_pinned("veg:kale")?.expect("kale");
    assert_eq!(pinned, &b"green"[..]);
    let sizes: usize = db
        .range_pinned("fruit:".."fruit;")
        .map(|kv| kv.map(|(_, v)| v.len()))
        .sum::<Result<_, _>>()?;
    assert_eq!(sizes, "yellow".len() + "dark red".len());

    println!("snapshots_and_iterators: {count} keys now, the snapshot still sees the old ones");
    Ok(())
}

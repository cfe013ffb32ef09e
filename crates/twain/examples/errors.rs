//! What goes wrong, and how it shows: every error is a `twain::Error` variant.
//!
//! Run: `cargo run -p twain --example errors`.

use twain::{Db, Error, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;

    // No database there, and not allowed to create one.
    let no_create = Options::default().create_if_missing(false);
    match Db::open(dir.path().join("missing"), no_create) {
        Err(Error::NotFound(path)) => println!("errors: no database at {}", path.display()),
        other => panic!("expected NotFound, got {other:?}"),
    }

    let db = Db::open(dir.path(), Options::default())?;

    // One writer per directory: a second open is refused while the first holds it.
    match Db::open(dir.path(), Options::default()) {
        Err(Error::Locked(_)) => println!("errors: the directory is locked by the first open"),
        other => panic!("expected Locked, got {other:?}"),
    }

    // Limits are errors, not panics: a key is at most 64 KiB.
    match db.put(vec![b'k'; 70_000], "v") {
        Err(Error::InvalidArgument(why)) => println!("errors: {why}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }

    // A read-only open works beside the writer and refuses writes.
    db.put("k", "v")?;
    db.flush()?;
    let reader = Db::open_read_only(dir.path(), Options::default())?;
    assert_eq!(reader.get("k")?.as_deref(), Some(&b"v"[..]));
    match reader.put("k", "w") {
        Err(e @ Error::ReadOnly(_)) => println!("errors: {e}"),
        other => panic!("expected ReadOnly, got {other:?}"),
    }

    // Damage is `Error::Corruption { file, offset, what }`, never data; a failed fsync
    // makes the database refuse writes (`ReadOnly`) until it is reopened. Match on the
    // variant, and show the message: it names the file and what failed.
    Ok(())
}

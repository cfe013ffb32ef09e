//! Open a database, write, read, delete, and close it.
//!
//! Run: `cargo run -p twain --example basics [DIR]` (a temporary directory without DIR).

use twain::{Db, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| tmp.path().to_path_buf(), Into::into);

    // Creates the directory and the database if missing (`create_if_missing` is on).
    let db = Db::open(&dir, Options::default())?;
    db.put("apple", "red")?;
    db.put(b"banana".as_slice(), vec![b'y'; 4096])?; // keys and values are bytes
    assert_eq!(db.get("apple")?.as_deref(), Some(&b"red"[..]));
    assert_eq!(db.get("banana")?.map(|v| v.len()), Some(4096));

    db.delete("apple")?;
    assert_eq!(db.get("apple")?, None);

    // Closing syncs the value log and stops the background threads; dropping `db` does
    // the same but cannot report an error.
    db.close()?;

    // Everything written is there after a reopen.
    let db = Db::open(&dir, Options::default())?;
    assert_eq!(db.get("apple")?, None);
    assert_eq!(db.get("banana")?.map(|v| v.len()), Some(4096));
    println!(
        "basics: reopened {} and read back what was written",
        dir.display()
    );
    Ok(())
}

//! Atomic batches, and durable (synced) writes.
//!
//! Run: `cargo run -p twain --example batches`.

use twain::{Db, Options, WriteBatch, WriteOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = Db::open(dir.path(), Options::default())?;
    db.put("account:alice", "100")?;
    db.put("account:bob", "50")?;

    // A transfer: both keys change together or neither does, even across a crash.
    let mut batch = WriteBatch::new();
    batch
        .put("account:alice", "70")
        .put("account:bob", "80")
        .put("transfer:1", "alice->bob 30");
    println!(
        "batch of {} operations, {} bytes",
        batch.len(),
        batch.payload_bytes()
    );
    // `sync: true`: durable when `write` returns (concurrent writers share the fsync).
    // Without it, a crash may lose the newest writes, never a part of a batch.
    db.write(batch, &WriteOptions::default().sync(true))?;

    assert_eq!(db.get("account:alice")?.as_deref(), Some(&b"70"[..]));
    assert_eq!(db.get("account:bob")?.as_deref(), Some(&b"80"[..]));

    // Deletes go in batches too, and one write can put and delete the same key: the
    // last operation wins.
    let mut batch = WriteBatch::new();
    batch.delete("transfer:1").put("k", "1").delete("k");
    db.write(batch, &WriteOptions::default())?;
    assert_eq!(db.get("transfer:1")?, None);
    assert_eq!(db.get("k")?, None);

    // Non-sync writes become durable at the next sync (or close).
    db.sync()?;
    println!("batches: the transfer and the clean-up were applied atomically");
    Ok(())
}

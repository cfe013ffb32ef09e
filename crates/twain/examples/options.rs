//! Choosing options: with setters, as fields, or by name as the CLI's `--set key=value` does.
//!
//! Run: `cargo run -p twain --example options`.

use twain::{Compression, Db, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;

    // As chained setters named like the fields.
    let mut opts = Options::default()
        // Values of at least 512 bytes (with their key) go to the value log; smaller ones
        // stay in the tree.
        .inline_threshold(512)
        // table blocks
        .compression(Compression::Lz4);
    // Or as fields.
    opts.bloom_bits_per_key = 12;
    // By name, with size suffixes; a wrong name or value is an error, not ignored.
    opts.set("memtable_size", "16M")?;
    opts.set("compression_per_level", "none,none,lz4,zstd")?;
    assert!(opts.set("memtable_size", "lots").is_err());
    assert!(opts.set("no_such_option", "1").is_err());

    let db = Db::open(dir.path(), opts)?;
    db.put("small", "stays inline")?;
    db.put("large", vec![0u8; 4096])?;
    db.flush()?;
    let stats = db.stats()?;
    println!(
        "options: {} tables, {} value files, live data {} bytes",
        stats.levels.iter().map(|l| l.files).sum::<usize>(),
        stats.value_files.len(),
        stats.live_bytes
    );
    Ok(())
}

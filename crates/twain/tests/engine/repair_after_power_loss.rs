//! Repair of a power-loss image whose manifest is then lost: the rebuilt database keeps
//! every acknowledged sync write (the log replay starts no later than the first write the
//! tables lack), the torn tail is left for open to truncate, and `check` passes. Several
//! seeds of torn unsynced tails, with garbage sectors.

use crate::repairutil;
use repairutil::*;
use std::path::Path;
use twain::fs::{CrashOptions, Fs, MemFs};
use twain::{Db, WriteOptions};

#[test]
fn rebuilt_power_loss_image_keeps_every_synced_write() {
    for seed in 0..4u64 {
        let fs = MemFs::new();
        let (mut model, _) = build(&fs, 2000);
        // A small log buffer: unsynced writes reach the file system, where the crash tears them.
        let small_buffer = existing(&fs).log_buffer_size(4096);
        let db = Db::open(Path::new(DIR), small_buffer).unwrap();
        for i in 5000..5300u32 {
            db.put_opt(key(i), value(i, 1), &WriteOptions::default().sync(true))
                .unwrap();
            model.insert(key(i), value(i, 1));
        }
        // Unsynced writes that the crash may tear.
        for i in 6000..6100u32 {
            db.put(key(i), value(i, 2)).unwrap();
        }
        let image = fs.crash(&CrashOptions::torn_with_garbage(seed));
        drop(db);
        for m in files_ending(&image, ".manifest") {
            image.remove_file(&path(&m)).unwrap();
        }

        let report = repair(&image);
        assert_eq!(report.lost_entries, 0, "seed {seed}: {}", report.to_text());
        assert_check_ok(&image);
        let db = Db::open(Path::new(DIR), existing(&image)).unwrap();
        let got = contents(&db);
        for (k, v) in &model {
            assert_eq!(got.get(k), Some(v), "seed {seed}: key {}", show(k));
        }
        // Anything else is a prefix of the unsynced writes.
        let extra: Vec<u32> = (6000..6100u32)
            .filter(|i| got.contains_key(&key(*i)))
            .collect();
        assert_eq!(extra, (6000..6000 + extra.len() as u32).collect::<Vec<_>>());
        assert_eq!(got.len(), model.len() + extra.len());
        db.put("after-repair", "works").unwrap();
        drop(db);
        assert_check_ok(&image);
    }
}

//! An estimate of how many keys the database holds, from figures [`Stats`] already has.

use super::Stats;

impl Stats {
    /// An estimate of the number of keys: the entries of every table (their properties,
    /// held in memory with the version) plus the entries in the memtables. Reads nothing.
    ///
    /// An upper bound, not a count: every version of a key and every tombstone counts
    /// until compaction drops it (a key written ten times counts ten until then), and a
    /// key both in a memtable and in a table counts twice. `Db::range(..).into_keys()`
    /// (`twain scan --count`) counts exactly, reading every key.
    pub fn estimated_keys(&self) -> u64 {
        let tables: u64 = self.levels.iter().map(|l| l.entries).sum();
        tables + self.memtable_entries
    }
}

#[cfg(test)]
mod tests {
    use crate::{Db, Options};

    #[test]
    fn the_estimate_counts_every_version_until_compaction_drops_it() -> crate::Result<()> {
        let dir = tempfile::tempdir().map_err(|e| crate::Error::InvalidArgument(e.to_string()))?;
        let db = Db::open(dir.path(), Options::default())?;
        assert_eq!(db.stats()?.estimated_keys(), 0);
        for k in ["a", "b", "c"] {
            db.put(k, "v")?;
        }
        assert_eq!(db.stats()?.estimated_keys(), 3, "in the memtable");
        db.flush()?;
        db.put("a", "newer")?;
        db.delete("b")?;
        assert_eq!(
            db.stats()?.estimated_keys(),
            5,
            "versions and a tombstone count"
        );
        db.flush()?;
        db.compact_range(None, None)?;
        assert_eq!(db.stats()?.estimated_keys(), 2, "compaction dropped them");
        db.close()
    }
}

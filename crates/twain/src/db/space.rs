//! Space accounting for `stats`: the live data (one merged pass over the key store's
//! keys) and the bytes the directory occupies on disk (allocated blocks).

use super::iter::merged_sources;
use super::{DbInner, SuperVersion};
use crate::error::IoContext;
use crate::format::handle::ValueHandle;
use crate::format::names::{FileType, parse_file_name};
use crate::format::vlog::{LogEntryKind, entry_len};
use crate::iter::InternalIterator;
use crate::key::{EntryKind, ParsedKey};
use crate::stats::DiskUsage;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// The user's data as the key store holds it: the newest version of every key.
#[derive(Debug, Default)]
pub(crate) struct LiveData {
    /// Key + value bytes of every key whose newest version is not a tombstone.
    pub bytes: u64,
    /// Per value file: bytes of the separated entries those newest versions point at
    /// (whole entries, as the file stores them).
    pub separated: BTreeMap<u64, u64>,
}

/// Walks every entry of `sv` once, in key order, and counts the newest version of each
/// key: a tombstone counts nothing, an inline value its key and value, a handle its key
/// and the value length its entry holds. Older versions are skipped whether compaction
/// has dropped them yet or not, so the figure is exact, not an estimate; the cost is a
/// read of every table (without filling the block cache) — the key store only, since
/// separated values are not read.
pub(crate) fn live_data(sv: &SuperVersion) -> Result<LiveData> {
    let source = Path::new("key store");
    let mut live = LiveData::default();
    let mut it = merged_sources(sv, false);
    it.seek_to_first()?;
    let mut last_key: Option<Vec<u8>> = None;
    while it.valid() {
        let p = ParsedKey::parse(it.key());
        if last_key.as_deref() != Some(p.user_key) {
            let key = last_key.get_or_insert_with(Vec::new);
            key.clear();
            key.extend_from_slice(p.user_key);
            let key_len = p.user_key.len() as u64;
            match p.entry_kind() {
                Some(EntryKind::Delete) => {}
                Some(EntryKind::Inline) => live.bytes += key_len + it.value().len() as u64,
                Some(EntryKind::Handle) => {
                    let h = ValueHandle::decode(it.value()).map_err(|e| {
                        Error::corruption(source, 0, format!("bad value handle: {}", e.what))
                    })?;
                    let value_len = separated_value_len(h.len, p.user_key.len())
                        .ok_or_else(|| {
                            Error::corruption(
                                source,
                                0,
                                format!(
                                    "value handle of length {} cannot hold a key of {key_len} bytes",
                                    h.len
                                ),
                            )
                        })?;
                    live.bytes += key_len + value_len;
                    *live.separated.entry(h.file).or_default() += u64::from(h.len);
                }
                None => {
                    return Err(Error::corruption(
                        source,
                        0,
                        format!("entry of unknown kind {}", p.kind),
                    ));
                }
            }
        }
        it.next()?;
    }
    Ok(live)
}

/// The value length of a separated entry of `entry_len` bytes holding a key of `key_len`
/// bytes (the entry: kind, two varint lengths, key, value, checksum); `None` if no value
/// length gives that size.
fn separated_value_len(len: u32, key_len: usize) -> Option<u64> {
    let len = len as usize;
    // The value length's varint takes 1 to 10 bytes; exactly one choice is consistent.
    (1..=10).find_map(|varint| {
        let fixed = entry_len(LogEntryKind::Separated, key_len, 0) - 1 + varint;
        let value_len = len.checked_sub(fixed)?;
        (entry_len(LogEntryKind::Separated, key_len, value_len) == len).then_some(value_len as u64)
    })
}

/// Allocated bytes of every file in the database's directory, by kind.
pub(crate) fn disk_usage(inner: &DbInner) -> Result<DiskUsage> {
    let mut d = DiskUsage::default();
    for name in inner.fs.list_dir(&inner.dir).ctx("list", &inner.dir)? {
        let path = inner.dir.join(&name);
        // A file deleted between listing and stat is simply not counted.
        let Ok(size) = inner.fs.allocated_bytes(&path) else {
            continue;
        };
        match parse_file_name(&name).map(|(k, _)| k) {
            Some(FileType::Table) => d.tables += size,
            Some(FileType::ValueLog | FileType::SvTable) => d.value_files += size,
            Some(FileType::Drops) => d.drop_files += size,
            Some(FileType::Manifest | FileType::Current) => d.manifest += size,
            _ => d.other += size,
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_length_comes_back_from_the_entry_length() {
        for key_len in [0usize, 1, 16, 200] {
            for value_len in [0usize, 1, 127, 128, 1024, 16_383, 16_384, 1 << 20] {
                let len = entry_len(LogEntryKind::Separated, key_len, value_len);
                let got = separated_value_len(len as u32, key_len);
                assert_eq!(
                    got,
                    Some(value_len as u64),
                    "key {key_len} value {value_len}"
                );
            }
        }
        assert_eq!(separated_value_len(3, 16), None);
    }
}

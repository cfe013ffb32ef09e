//! Writing and reading SVTables (see `format::svtable`).

use crate::error::IoContext;
use crate::format::block::{
    BLOCK_TRAILER_LEN, Block, BlockBuilder, BlockIter, BlockType, block_trailer,
    check_block_trailer,
};
use crate::format::compression::{Compression, StoredValue, compress_value};
use crate::format::file_header::{FILE_HEADER_LEN, FileKind, decode_header, encode_header};
use crate::format::svtable::{SVT_FOOTER_LEN, SvtFooter, decode_index_value, encode_index_value};
use crate::format::vlog::put_separated_stored;
use crate::fs::{ReadableFile, WritableFile};
use crate::key::{EntryKind, ParsedKey, SeqNo, append_internal_key, compare_internal};
use crate::{Error, Result};
use std::cmp::Ordering;
use std::path::{Path, PathBuf};

/// Bytes of entries buffered before they are appended to the file.
const WRITE_CHUNK: usize = 1 << 20;

/// Restart interval of the index block. Searches by (key, sequence) — every read through a
/// stale handle makes one — decode on average half an interval after the binary search
/// over restart points; 4 costs about 3 bytes per entry more than 16.
const INDEX_RESTART_INTERVAL: usize = 4;

/// What a finished SVTable holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SvTableSummary {
    /// The file's size.
    pub file_size: u64,
    /// Number of entries.
    pub entry_count: u64,
    /// Bytes of the entries.
    pub entry_bytes: u64,
    /// Tombstones in the index (hash layout; no bytes in the file outside the index).
    pub tombstone_count: u64,
}

/// Writes one SVTable: entries in (key ascending, sequence descending) order, then the
/// index and the footer. Not thread-safe.
pub struct SvTableWriter {
    file: Box<dyn WritableFile>,
    path: PathBuf,
    epoch: u32,
    buf: Vec<u8>,
    index: BlockBuilder,
    offset: u64,
    entry_count: u64,
    entry_bytes: u64,
    tombstone_count: u64,
    chunk: usize,
    segment: bool,
    last_key: Vec<u8>,
    ikey: Vec<u8>,
    index_value: Vec<u8>,
    /// How [`add`](SvTableWriter::add) compresses values, and the smallest stored entry
    /// (key + value) a compressed value may leave.
    codec: Compression,
    floor: usize,
    packed: Vec<u8>,
}

impl SvTableWriter {
    /// Starts SVTable `epoch` of value file `number` in `file`.
    pub fn new(
        file: Box<dyn WritableFile>,
        path: PathBuf,
        number: u64,
        epoch: u32,
    ) -> SvTableWriter {
        SvTableWriter::with_chunk(file, path, number, epoch, WRITE_CHUNK)
    }

    /// Like [`new`](Self::new), appending to the file whenever `chunk` bytes are buffered
    /// (a flush in the hash layout writes one SVTable per group at once).
    pub fn with_chunk(
        file: Box<dyn WritableFile>,
        path: PathBuf,
        number: u64,
        epoch: u32,
        chunk: usize,
    ) -> SvTableWriter {
        let mut buf = Vec::with_capacity(chunk.min(WRITE_CHUNK) + 1024);
        buf.extend_from_slice(&encode_header(FileKind::SvTable, number));
        SvTableWriter {
            file,
            path,
            epoch,
            buf,
            index: BlockBuilder::new(INDEX_RESTART_INTERVAL),

            offset: FILE_HEADER_LEN as u64,
            entry_count: 0,
            entry_bytes: 0,
            tombstone_count: 0,
            chunk: chunk.max(1),
            segment: false,
            last_key: Vec::new(),
            ikey: Vec::new(),
            index_value: Vec::new(),
            codec: Compression::None,
            floor: 0,
            packed: Vec::new(),
        }
    }

    /// Makes [`add`](Self::add) store each value compressed with `codec` where that saves
    /// an eighth and the key and the stored value keep at least `floor` bytes (the
    /// threshold of the placement class being written).
    pub fn compressing(mut self, codec: Compression, floor: usize) -> SvTableWriter {
        self.codec = codec;
        self.floor = floor;
        self
    }

    /// Adds `key@seq -> value` (compressed if [`compressing`](Self::compressing) says so)
    /// and returns where its entry starts and its length.
    /// REQUIRES: entries come in internal-key order.
    pub fn add(&mut self, key: &[u8], seq: SeqNo, value: &[u8]) -> Result<(u64, u32)> {
        let floor = self.floor.saturating_sub(key.len());
        let mut packed = std::mem::take(&mut self.packed);
        let stored = if compress_value(self.codec, value, floor, &mut packed) {
            StoredValue {
                bytes: &packed,
                compressed: true,
            }
        } else {
            StoredValue::plain(value)
        };
        let added = self.add_stored(key, seq, stored);
        self.packed = packed;
        added
    }

    /// Adds `key@seq` with its value as stored elsewhere (a copy: a compressed value stays
    /// compressed) and returns where its entry starts and its length.
    /// REQUIRES: entries come in internal-key order.
    pub fn add_stored(
        &mut self,
        key: &[u8],
        seq: SeqNo,
        stored: StoredValue<'_>,
    ) -> Result<(u64, u32)> {
        self.next_key(key, seq, EntryKind::Handle)?;
        let placed = put_separated_stored(&mut self.buf, seq, key, stored);
        let offset = self.offset;
        let len = placed.len as u32;
        self.offset += placed.len as u64;
        self.entry_count += 1;
        self.entry_bytes += placed.len as u64;
        self.index_value.clear();
        encode_index_value(&mut self.index_value, offset, len);
        self.index.add(&self.ikey, &self.index_value);
        std::mem::swap(&mut self.last_key, &mut self.ikey);
        if self.buf.len() >= self.chunk {
            self.file.append(&self.buf).ctx("append", &self.path)?;
            self.buf.clear();
        }
        Ok((offset, len))
    }

    /// Makes the table a hash-layout segment (footer format version 2), which may hold
    /// tombstones.
    pub fn into_segment(mut self) -> SvTableWriter {
        self.segment = true;
        self
    }

    /// Adds a tombstone for `key@seq`: an index entry of kind delete with no bytes in the
    /// file (hash layout: a delete or small put that shadows the group's older records).
    /// REQUIRES: entries come in internal-key order.
    pub fn add_tombstone(&mut self, key: &[u8], seq: SeqNo) -> Result<()> {
        if !self.segment {
            return Err(Error::InvalidArgument(
                "only a hash-layout segment holds tombstones".into(),
            ));
        }
        self.next_key(key, seq, EntryKind::Delete)?;
        self.index_value.clear();
        encode_index_value(&mut self.index_value, self.offset, 0);
        self.index.add(&self.ikey, &self.index_value);
        self.tombstone_count += 1;
        std::mem::swap(&mut self.last_key, &mut self.ikey);
        Ok(())
    }

    /// Makes `key@seq` of `kind` the next internal key, checking the order.
    fn next_key(&mut self, key: &[u8], seq: SeqNo, kind: EntryKind) -> Result<()> {
        self.ikey.clear();
        append_internal_key(&mut self.ikey, key, seq, kind as u8);
        let first = self.entry_count + self.tombstone_count == 0;
        if !first && compare_internal(&self.last_key, &self.ikey) != Ordering::Less {
            return Err(Error::InvalidArgument(
                "SVTable entries must be added in internal-key order".into(),
            ));
        }
        Ok(())
    }

    /// Number of entries added.
    pub fn entry_count(&self) -> u64 {
        self.entry_count
    }

    /// Writes the index and footer and syncs the file.
    pub fn finish(mut self) -> Result<SvTableSummary> {
        let index_offset = self.offset;
        let contents = self.index.finish().to_vec();
        self.buf.extend_from_slice(&contents);
        self.buf
            .extend_from_slice(&block_trailer(&contents, BlockType::Plain));
        let footer = SvtFooter {
            index_offset,
            index_size: contents.len() as u64,
            entry_count: self.entry_count + self.tombstone_count,
            entry_bytes: self.entry_bytes,
            epoch: self.epoch,
            segment: self.segment,
        };
        self.buf.extend_from_slice(&footer.encode());
        self.file.append(&self.buf).ctx("append", &self.path)?;
        self.file.sync_data().ctx("sync", &self.path)?;
        Ok(SvTableSummary {
            file_size: self.file.len(),
            entry_count: self.entry_count,
            entry_bytes: self.entry_bytes,
            tombstone_count: self.tombstone_count,
        })
    }
}

/// One entry of an SVTable's index: user key, sequence, entry offset and length.
pub type SvtEntry = (Vec<u8>, SeqNo, u64, u32);

/// One item of an SVTable's index, records and tombstones alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SvtItem {
    /// The user key.
    pub key: Vec<u8>,
    /// Its sequence number.
    pub seq: SeqNo,
    /// The record's offset and length; `None` for a tombstone.
    pub record: Option<(u64, u32)>,
}

/// The index of an SVTable, held in memory: finds an entry by (key, sequence).
/// Thread-safe.
#[derive(Debug)]
pub struct SvTableIndex {
    index: Block,
    footer: SvtFooter,
}

impl SvTableIndex {
    /// Reads and checks the footer and index of the SVTable at `path`.
    pub fn open(
        file: &dyn ReadableFile,
        path: &Path,
        number: u64,
        epoch: u32,
    ) -> Result<SvTableIndex> {
        let len = file.len().ctx("stat", path)?;
        let too_short = || Error::corruption(path, 0, "file too short for an SVTable");
        if len < (FILE_HEADER_LEN + SVT_FOOTER_LEN) as u64 {
            return Err(too_short());
        }
        let header = file.read_vec(0, FILE_HEADER_LEN).ctx("read", path)?;
        match decode_header(FileKind::SvTable, &header) {
            Ok(n) if n == number => {}
            Ok(n) => {
                return Err(Error::corruption(
                    path,
                    0,
                    format!("header names value file {n}"),
                ));
            }
            Err(e) => return Err(e.into_corruption(path, 0)),
        }
        let footer_at = len - SVT_FOOTER_LEN as u64;
        let footer =
            SvtFooter::decode(&file.read_vec(footer_at, SVT_FOOTER_LEN).ctx("read", path)?)
                .map_err(|e| e.into_corruption(path, footer_at))?;
        if footer.epoch != epoch {
            return Err(Error::corruption(
                path,
                footer_at,
                format!("footer says epoch {}, expected {epoch}", footer.epoch),
            ));
        }
        let raw_len = footer.index_size + BLOCK_TRAILER_LEN as u64;
        if footer.index_offset < FILE_HEADER_LEN as u64
            || footer.index_offset + raw_len != footer_at
        {
            return Err(Error::corruption(
                path,
                footer_at,
                "index block out of place",
            ));
        }
        let raw = file
            .read_vec(footer.index_offset, raw_len as usize)
            .ctx("read", path)?;
        let (size, block_type) =
            check_block_trailer(&raw).map_err(|e| e.into_corruption(path, footer.index_offset))?;
        if block_type != BlockType::Plain {
            return Err(Error::corruption(
                path,
                footer.index_offset,
                format!(
                    "index block of type {}: an SVTable's is plain",
                    block_type as u8
                ),
            ));
        }
        let mut contents = raw;
        contents.truncate(size);
        let index =
            Block::parse(contents).map_err(|e| e.into_corruption(path, footer.index_offset))?;
        Ok(SvTableIndex { index, footer })
    }

    /// The footer.
    pub fn footer(&self) -> &SvtFooter {
        &self.footer
    }

    /// The offset and length of the entry of `key@seq`, if the table holds it.
    pub fn find(&self, path: &Path, key: &[u8], seq: SeqNo) -> Result<Option<(u64, u32)>> {
        self.find_near(path, key, seq, &mut None)
    }

    /// Like [`find`](Self::find), for searches in ascending key order: `hint` says where
    /// the previous search ended (`None` at first) and is updated.
    pub fn find_near(
        &self,
        path: &Path,
        key: &[u8],
        seq: SeqNo,
        hint: &mut Option<usize>,
    ) -> Result<Option<(u64, u32)>> {
        let mut target = Vec::with_capacity(key.len() + 8);
        append_internal_key(&mut target, key, seq, EntryKind::Handle as u8);
        let corrupt = |e: crate::format::coding::DecodeError| {
            e.into_corruption(path, self.footer.index_offset)
        };
        let mut it = BlockIter::new(&self.index);
        it.seek_near(&target, *hint).map_err(corrupt)?;
        if !it.valid() {
            return Ok(None);
        }
        *hint = Some(it.restart_index());
        let p = ParsedKey::parse(it.key());
        if p.user_key != key || p.seq != seq || p.entry_kind() != Some(EntryKind::Handle) {
            return Ok(None);
        }
        decode_index_value(it.value()).map(Some).map_err(corrupt)
    }

    /// Every record in order: (user key, sequence, offset, length); tombstones left out.
    pub fn entries(&self, path: &Path) -> Result<Vec<SvtEntry>> {
        Ok(self
            .items(path)?
            .into_iter()
            .filter_map(|i| i.record.map(|(offset, len)| (i.key, i.seq, offset, len)))
            .collect())
    }

    /// Every index item in order, records and tombstones.
    pub fn items(&self, path: &Path) -> Result<Vec<SvtItem>> {
        let corrupt = |e: crate::format::coding::DecodeError| {
            e.into_corruption(path, self.footer.index_offset)
        };
        // The footer's count is checked below; it only sizes the allocation up to a bound.
        let mut out = Vec::with_capacity(self.footer.entry_count.min(1 << 20) as usize);
        let mut it = BlockIter::new(&self.index);
        it.seek_to_first().map_err(corrupt)?;
        while it.valid() {
            let p = ParsedKey::parse(it.key());
            let (offset, len) = decode_index_value(it.value()).map_err(corrupt)?;
            let record = match p.entry_kind() {
                Some(EntryKind::Handle) => Some((offset, len)),
                Some(EntryKind::Delete) if len == 0 && self.footer.segment => None,
                _ => {
                    return Err(Error::corruption(
                        path,
                        self.footer.index_offset,
                        format!("index entry of kind {} with length {len}", p.kind),
                    ));
                }
            };
            out.push(SvtItem {
                key: p.user_key.to_vec(),
                seq: p.seq,
                record,
            });
            it.next().map_err(corrupt)?;
        }
        if out.len() as u64 != self.footer.entry_count {
            return Err(Error::corruption(
                path,
                self.footer.index_offset,
                "index entry count differs from the footer",
            ));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::vlog::decode_separated;
    use crate::fs::{Fs, MemFs};

    #[test]
    fn written_entries_are_found_by_offset_and_by_key() {
        let fs = MemFs::new();
        fs.create_dir_all(Path::new("/d")).unwrap();
        let path = PathBuf::from("/d/000009-1.svt");
        let mut w = SvTableWriter::new(fs.create(&path).unwrap(), path.clone(), 9, 1);
        let mut placed = Vec::new();
        for (k, s) in [("a", 9u64), ("a", 3), ("b", 5), ("c", 1)] {
            placed.push(
                w.add(k.as_bytes(), s, format!("{k}{s}").as_bytes())
                    .unwrap(),
            );
        }
        assert!(w.add(b"b", 7, b"x").is_err(), "out of order");
        let summary = w.finish().unwrap();
        assert_eq!(summary.entry_count, 4);
        let file = fs.open_read(&path).unwrap();
        assert_eq!(file.len().unwrap(), summary.file_size);
        let idx = SvTableIndex::open(file.as_ref(), &path, 9, 1).unwrap();
        assert_eq!(idx.find(&path, b"a", 3).unwrap(), Some(placed[1]));
        assert_eq!(idx.find(&path, b"a", 4).unwrap(), None);
        assert_eq!(idx.find(&path, b"d", 1).unwrap(), None);
        let (off, len) = idx.find(&path, b"b", 5).unwrap().unwrap();
        let entry = file.read_vec(off, len as usize).unwrap();
        let r = decode_separated(&entry, b"b", 5).unwrap().range;
        assert_eq!(&entry[r], b"b5");
        let all = idx.entries(&path).unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!((all[0].0.as_slice(), all[0].1), (&b"a"[..], 9));
        assert!(
            SvTableIndex::open(file.as_ref(), &path, 9, 2).is_err(),
            "wrong epoch"
        );
        assert!(
            SvTableIndex::open(file.as_ref(), &path, 8, 1).is_err(),
            "wrong number"
        );
    }

    #[test]
    fn tombstones_sit_in_the_index_only() {
        let fs = MemFs::new();
        fs.create_dir_all(Path::new("/d")).unwrap();
        let path = PathBuf::from("/d/000004-1.svt");
        let mut w = SvTableWriter::with_chunk(fs.create(&path).unwrap(), path.clone(), 4, 1, 64)
            .into_segment();
        w.add_tombstone(b"a", 9).unwrap();
        let a3 = w.add(b"a", 3, b"old").unwrap();
        w.add_tombstone(b"b", 5).unwrap();
        assert!(w.add_tombstone(b"b", 5).is_err(), "out of order");
        let s = w.finish().unwrap();
        assert_eq!(
            (s.entry_count, s.tombstone_count, s.entry_bytes),
            (1, 2, 11)
        );
        let file = fs.open_read(&path).unwrap();
        let idx = SvTableIndex::open(file.as_ref(), &path, 4, 1).unwrap();
        assert_eq!(idx.footer().entry_count, 3);
        assert_eq!(idx.find(&path, b"a", 3).unwrap(), Some(a3));
        assert_eq!(
            idx.find(&path, b"a", 9).unwrap(),
            None,
            "a tombstone is no record"
        );
        assert_eq!(
            idx.entries(&path).unwrap(),
            vec![(b"a".to_vec(), 3, a3.0, a3.1)]
        );
        let items = idx.items(&path).unwrap();
        let shape: Vec<_> = items
            .iter()
            .map(|i| (i.key.as_slice(), i.seq, i.record.is_some()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (&b"a"[..], 9, false),
                (&b"a"[..], 3, true),
                (&b"b"[..], 5, false)
            ]
        );
    }

    #[test]
    fn damaged_index_or_footer_is_corruption() {
        let fs = MemFs::new();
        fs.create_dir_all(Path::new("/d")).unwrap();
        let path = PathBuf::from("/d/000002-1.svt");
        let mut w = SvTableWriter::new(fs.create(&path).unwrap(), path.clone(), 2, 1);
        for i in 0..50u32 {
            w.add(format!("k{i:03}").as_bytes(), 1, &[7u8; 100])
                .unwrap();
        }
        let s = w.finish().unwrap();
        for at in [s.file_size - 10, s.file_size - SVT_FOOTER_LEN as u64 - 20] {
            let copy = MemFs::new();
            copy.create_dir_all(Path::new("/d")).unwrap();
            copy.write_file(&path, &fs.read_file(&path).unwrap())
                .unwrap();
            copy.corrupt(&path, at, 0x10).unwrap();
            let f = copy.open_read(&path).unwrap();
            let err = SvTableIndex::open(f.as_ref(), &path, 2, 1).unwrap_err();
            assert!(err.is_corruption(), "{err}");
        }
    }
}

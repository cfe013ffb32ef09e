//! Table block compression (`compression`, `compression_per_level`): compressed tables read
//! back what was written, in every codec and mixed with plain ones; a compressed block whose
//! bytes pass the checksum but do not decode is corruption naming the table and the block;
//! incompressible blocks are stored plain.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use twain::format::block::{BLOCK_TRAILER_LEN, Block, BlockIter, BlockType, block_trailer};
use twain::format::table::{BlockHandle, FOOTER_LEN, Footer};
use twain::fs::{Fs, MemFs};
use twain::table::TableOptions;
use twain::{Compression, Db, Error, Options};

/// Values that compress well: words from a small vocabulary.
fn text_value(i: u32) -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "alpha ", "bravo ", "charlie ", "delta ", "echo ", "foxtrot ", "golf ", "hotel ",
    ];
    (0..20)
        .map(|j| WORDS[((i + j * 7) % 8) as usize])
        .collect::<String>()
        .into_bytes()
}

fn entries() -> Vec<common::Entry> {
    (0..2000u32)
        .map(|i| common::inline(format!("key{i:06}").as_bytes(), 5, &text_value(i)))
        .collect()
}

/// The data block handles and their type bytes, read from the index.
fn data_blocks(bytes: &[u8]) -> Vec<(BlockHandle, u8)> {
    let f = Footer::decode(&bytes[bytes.len() - FOOTER_LEN..]).unwrap();
    let at = f.index.offset as usize;
    let block = Block::parse(bytes[at..at + f.index.size as usize].to_vec()).unwrap();
    let mut it = BlockIter::new(&block);
    let mut out = Vec::new();
    it.seek_to_first().unwrap();
    while it.valid() {
        let h = BlockHandle::decode(it.value()).unwrap();
        out.push((h, bytes[(h.offset + h.size) as usize]));
        it.next().unwrap();
    }
    out
}

#[test]
fn compressed_tables_read_back_in_every_codec() {
    let e = entries();
    let mut sizes = Vec::new();
    for (codec, block_type) in [
        (Compression::None, BlockType::Plain),
        (Compression::Lz4, BlockType::Lz4),
        (Compression::Zstd, BlockType::Zstd),
    ] {
        let t = common::TempTable::new(
            &e,
            &TableOptions {
                compression: codec,
                ..TableOptions::default()
            },
        );
        let bytes = std::fs::read(&t.path).unwrap();
        let blocks = data_blocks(&bytes);
        assert!(blocks.len() > 5);
        assert!(
            blocks.iter().all(|&(_, t)| t == block_type as u8),
            "{codec:?}: {blocks:?}"
        );
        let table = t.open();
        let mut it = table.iter(true);
        let mut n = 0;
        use twain::iter::InternalIterator;
        it.seek_to_first().unwrap();
        while it.valid() {
            assert_eq!(it.key(), e[n].0.as_slice());
            assert_eq!(it.value(), e[n].1.as_slice());
            n += 1;
            it.next().unwrap();
        }
        assert_eq!(n, e.len());
        let lookup = twain::key::lookup_key(b"key001234", twain::key::MAX_SEQNO);
        assert_eq!(table.get(&lookup).unwrap().unwrap().1, text_value(1234));
        sizes.push(bytes.len());
    }
    assert!(
        sizes[1] * 2 < sizes[0] && sizes[2] < sizes[1],
        "none, lz4, zstd: {sizes:?}"
    );
}

#[test]
fn a_compressed_block_that_does_not_decode_is_corruption_at_the_block() {
    let t = common::TempTable::new(
        &entries(),
        &TableOptions {
            compression: Compression::Lz4,
            ..TableOptions::default()
        },
    );
    let mut bytes = std::fs::read(&t.path).unwrap();
    let (h, _) = data_blocks(&bytes)[3];
    // Damage the codec output, then make the checksum agree: only decoding can tell.
    let (start, end) = (h.offset as usize, (h.offset + h.size) as usize);
    for b in &mut bytes[start + 2..end] {
        *b = 0xff;
    }
    let trailer = block_trailer(&bytes[start..end], BlockType::Lz4);
    bytes[end..end + BLOCK_TRAILER_LEN].copy_from_slice(&trailer);
    std::fs::write(&t.path, &bytes).unwrap();
    let table = t.open();
    let mut it = table.iter(false);
    use twain::iter::InternalIterator;
    let err = (|| {
        it.seek_to_first()?;
        while it.valid() {
            it.next()?;
        }
        Ok::<(), Error>(())
    })()
    .unwrap_err();
    match err {
        Error::Corruption { file, offset, what } => {
            assert_eq!(file, t.path);
            assert!(
                (h.offset..h.offset + h.size).contains(&offset),
                "{offset} outside the block at {}: {what}",
                h.offset
            );
            assert!(what.contains("LZ4"), "{what}");
        }
        other => panic!("expected corruption, got {other}"),
    }
}

/// A database whose options change between opens reads every table, whatever it holds.
#[test]
fn a_database_mixes_codecs_across_opens_and_levels() {
    let fs = MemFs::new();
    let dir = Path::new("/db");
    let opts = |codec: Compression, per: Vec<Compression>| {
        Options::default()
            .fs(Arc::new(fs.clone()) as Arc<dyn Fs>)
            .memtable_size(64 << 10)
            .inline_threshold(4096)
            .compression(codec)
            .compression_per_level(per)
    };
    let mut model = std::collections::BTreeMap::new();
    let rounds = [
        (Compression::None, vec![]),
        (Compression::Lz4, vec![]),
        (
            Compression::None,
            vec![Compression::None, Compression::Lz4, Compression::Zstd],
        ),
        (Compression::Zstd, vec![]),
    ];
    for (round, (codec, per)) in rounds.into_iter().enumerate() {
        let db = Db::open(dir, opts(codec, per)).unwrap();
        for i in 0..1500u32 {
            let k = format!("key{:06}", (i * 7 + round as u32 * 13) % 3000);
            let v = text_value(i + round as u32);
            db.put(&k, &v).unwrap();
            model.insert(k.into_bytes(), v);
        }
        db.flush().unwrap();
        if round % 2 == 1 {
            db.compact_range(None, None).unwrap();
        }
        let got: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
        let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        assert_eq!(got, want, "round {round}");
        db.close().unwrap();
    }
    assert!(Options::default().set("compression", "snappy").is_err());
    let mut o = Options::default();
    o.set("compression_per_level", "none,lz4,zstd").unwrap();
    assert_eq!(o.compression_at(5), Compression::Zstd);
    assert_eq!(o.compression_at(1), Compression::Lz4);
    o.compression_per_level = vec![Compression::Lz4; 20];
    assert!(o.validate().is_err(), "more entries than levels");
}

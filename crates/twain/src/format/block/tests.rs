//! Unit tests of `block`.

use super::*;
use crate::key::{EntryKind, internal_key};
use std::sync::Arc;

fn ikey(user: &[u8], seq: u64) -> Vec<u8> {
    internal_key(user, seq, EntryKind::Inline as u8)
}

/// `n` distinct sorted keys sharing long prefixes, each with a value naming it.
fn entries(n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let user = format!("user-key-{:05}", i / 2);
            // Two versions per user key: the newer (higher seq) sorts first.
            let seq = 1000 - (i % 2) as u64;
            (ikey(user.as_bytes(), seq), format!("value{i}").into_bytes())
        })
        .collect()
}

fn build(entries: &[(Vec<u8>, Vec<u8>)], interval: usize) -> Arc<Block> {
    let mut b = BlockBuilder::new(interval);
    for (k, v) in entries {
        b.add(k, v);
    }
    Arc::new(Block::parse(b.finish().to_vec()).unwrap())
}

fn collect_forward(block: &Arc<Block>) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = BlockIter::new(block.clone());
    let mut out = Vec::new();
    it.seek_to_first().unwrap();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next().unwrap();
    }
    out
}

#[test]
fn round_trip_forward_and_backward() {
    let es = entries(100);
    let block = build(&es, 16);
    assert_eq!(collect_forward(&block), es);
    let mut it = BlockIter::new(block.clone());
    it.seek_to_last().unwrap();
    let mut back = Vec::new();
    while it.valid() {
        back.push((it.key().to_vec(), it.value().to_vec()));
        it.prev().unwrap();
    }
    back.reverse();
    assert_eq!(back, es);
}

#[test]
fn keys_are_prefix_compressed_except_at_restarts() {
    let es = entries(40);
    let block = build(&es, 16);
    assert_eq!(block.num_restarts(), 3);
    let full: usize = es.iter().map(|(k, v)| k.len() + v.len() + 3).sum();
    assert!(block.size() < full, "{} !< {full}", block.size());
    for i in 0..block.num_restarts() {
        let e = block.entry_at(block.restart_point(i)).unwrap();
        assert_eq!(e.shared, 0);
    }
    // The second entry is an older version of the same user key: it shares the user key
    // and the trailer's first byte (the kind, as the trailer is little-endian).
    let first = block.entry_at(0).unwrap();
    let second = block.entry_at(first.end).unwrap();
    assert_eq!(second.shared, es[0].0.len() - 8 + 1);
}

#[test]
fn exact_encoding_of_a_two_entry_block() {
    let mut b = BlockBuilder::new(16);
    b.add(b"ab", b"x");
    b.add(b"ac", b"yz");
    let expected: &[u8] = &[
        0, 2, 1, b'a', b'b', b'x', // restart entry: whole key
        1, 1, 2, b'c', b'y', b'z', // shares "a"
        0, 0, 0, 0, // restart offset 0
        1, 0, 0, 0, // one restart point
    ];
    assert_eq!(b.finish(), expected);
}

#[test]
fn seek_finds_every_key_and_the_gaps_between() {
    let es = entries(61);
    let block = build(&es, 4);
    let mut it = BlockIter::new(&*block);
    for (i, (k, v)) in es.iter().enumerate() {
        it.seek(k).unwrap();
        assert!(it.valid());
        assert_eq!((it.key(), it.value()), (&k[..], &v[..]), "entry {i}");
        // A key just after k (a lower sequence of the same user key) seeks to i + 1.
        let p = crate::key::ParsedKey::parse(k);
        it.seek(&ikey(p.user_key, p.seq - 1)).unwrap();
        match es.get(i + 1) {
            Some((next, _)) if crate::key::user_key(next) == p.user_key => {
                assert_eq!(it.key(), &next[..]);
            }
            Some((next, _)) => assert_eq!(it.key(), &next[..]),
            None => assert!(!it.valid()),
        }
    }
    it.seek(&ikey(b"a", 5)).unwrap();
    assert_eq!(it.key(), &es[0].0[..]);
    it.seek(&ikey(b"zzz", 5)).unwrap();
    assert!(!it.valid());
}

#[test]
fn seek_near_lands_where_seek_does_from_any_hint() {
    let es = entries(97);
    for interval in [1, 4, 16] {
        let block = build(&es, interval);
        let n = block.num_restarts();
        let mut targets: Vec<Vec<u8>> = es.iter().map(|(k, _)| k.clone()).collect();
        targets.push(ikey(b"a", 1));
        targets.push(ikey(b"zzz", 1));
        targets.push(ikey(b"user-key-00010x", 7));
        let mut plain = BlockIter::new(&*block);
        let mut near = BlockIter::new(&*block);
        for t in &targets {
            plain.seek(t).unwrap();
            let expected = plain.valid().then(|| plain.key().to_vec());
            for hint in (0..n + 2).map(Some).chain([None]) {
                near.seek_near(t, hint).unwrap();
                let got = near.valid().then(|| near.key().to_vec());
                assert_eq!(got, expected, "interval {interval}, hint {hint:?}");
                if near.valid() {
                    assert_eq!(near.restart_index(), plain.restart_index());
                }
            }
        }
    }
}

#[test]
fn seek_for_prev_finds_last_key_at_or_before() {
    let es = entries(33);
    let block = build(&es, 4);
    let mut it = BlockIter::new(&*block);
    for (i, (k, _)) in es.iter().enumerate() {
        it.seek_for_prev(k).unwrap();
        assert_eq!(it.key(), &k[..], "exact {i}");
        let p = crate::key::ParsedKey::parse(k);
        // A key just before k (a higher sequence of the same user key).
        it.seek_for_prev(&ikey(p.user_key, p.seq + 1)).unwrap();
        if i == 0 {
            assert!(!it.valid());
        } else {
            assert_eq!(it.key(), &es[i - 1].0[..], "before {i}");
        }
    }
    it.seek_for_prev(&ikey(b"zzz", 1)).unwrap();
    assert_eq!(it.key(), &es[32].0[..]);
}

#[test]
fn prev_and_next_cross_restart_boundaries() {
    let es = entries(20);
    let block = build(&es, 4);
    let mut it = BlockIter::new(&*block);
    // Walk: to entry 8 (a restart point), back to 3, forward to 12.
    it.seek(&es[8].0).unwrap();
    for i in (3..8).rev() {
        it.prev().unwrap();
        assert_eq!(it.key(), &es[i].0[..]);
    }
    for (k, _) in &es[4..=12] {
        it.next().unwrap();
        assert_eq!(it.key(), &k[..]);
    }
    it.seek_to_first().unwrap();
    it.prev().unwrap();
    assert!(!it.valid());
    it.seek_to_last().unwrap();
    it.next().unwrap();
    assert!(!it.valid());
}

#[test]
fn restart_interval_one_makes_every_entry_a_restart() {
    let es = entries(10);
    let block = build(&es, 1);
    assert_eq!(block.num_restarts(), 10);
    assert_eq!(collect_forward(&block), es);
}

#[test]
fn empty_block_iterates_nothing() {
    let mut b = BlockBuilder::new(16);
    let bytes = b.finish().to_vec();
    assert_eq!(bytes, [0, 0, 0, 0]);
    let block = Block::parse(bytes).unwrap();
    assert!(block.is_empty());
    let mut it = BlockIter::new(&block);
    it.seek_to_first().unwrap();
    assert!(!it.valid());
    it.seek_to_last().unwrap();
    assert!(!it.valid());
    it.seek(b"anything").unwrap();
    assert!(!it.valid());
    it.seek_for_prev(b"anything").unwrap();
    assert!(!it.valid());
}

#[test]
fn reset_builder_builds_an_identical_block() {
    let es = entries(30);
    let mut b = BlockBuilder::new(4);
    for (k, v) in &es {
        b.add(k, v);
    }
    let first = b.finish().to_vec();
    b.reset();
    assert!(b.is_empty());
    for (k, v) in &es {
        b.add(k, v);
    }
    assert_eq!(b.finish(), &first[..]);
}

#[test]
fn short_or_oversized_restart_arrays_are_errors() {
    assert!(Block::parse(vec![]).is_err());
    assert!(Block::parse(vec![1, 0, 0]).is_err());
    // Claims 1000 restarts in an 8-byte block.
    assert!(Block::parse(vec![0, 0, 0, 0, 0xe8, 0x03, 0, 0]).is_err());
    // Entries but zero restarts.
    assert!(Block::parse(vec![0, 1, 0, b'a', 0, 0, 0, 0]).is_err());
}

#[test]
fn bad_restart_offsets_are_errors() {
    let es = entries(8);
    let mut b = BlockBuilder::new(2);
    for (k, v) in &es {
        b.add(k, v);
    }
    let good = b.finish().to_vec();
    let n = 4;
    let restarts_at = good.len() - 4 - 4 * n;
    // First restart not 0.
    let mut bad = good.clone();
    bad[restarts_at] = 1;
    let err = Block::parse(bad).unwrap_err();
    assert_eq!(err.offset, restarts_at);
    // Out of order.
    let mut bad = good.clone();
    bad.copy_within(restarts_at + 4..restarts_at + 8, restarts_at + 8);
    assert!(Block::parse(bad).is_err());
    // Past the entry area.
    let mut bad = good;
    bad[restarts_at + 12..restarts_at + 16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Block::parse(bad).is_err());
}

#[test]
fn entry_running_past_the_block_is_an_error_and_invalidates() {
    // One entry claiming a 200-byte value in a 10-byte entry area.
    let mut data = vec![0, 2, 200, 1, b'a', b'b', b'c', b'd', b'e', b'f'];
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&1u32.to_le_bytes());
    let block = Block::parse(data).unwrap();
    let mut it = BlockIter::new(&block);
    let err = it.seek_to_first().unwrap_err();
    assert_eq!(err.offset, 0);
    assert!(!it.valid());
    assert!(it.seek(b"x").is_err());
    assert!(it.seek_to_last().is_err());
}

#[test]
fn shared_prefix_longer_than_previous_key_is_an_error() {
    let mut data = vec![0, 1, 0, b'a', 5, 1, 0, b'b'];
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&1u32.to_le_bytes());
    let block = Block::parse(data).unwrap();
    let mut it = BlockIter::new(&block);
    it.seek_to_first().unwrap();
    assert_eq!(it.key(), b"a");
    let err = it.next().unwrap_err();
    assert_eq!(err.offset, 4);
    assert!(!it.valid());
}

#[test]
fn trailer_round_trips_and_detects_damage() {
    let contents = b"some block contents".to_vec();
    let mut raw = contents.clone();
    raw.extend_from_slice(&block_trailer(&contents, BlockType::Plain));
    assert_eq!(raw.len(), contents.len() + BLOCK_TRAILER_LEN);
    assert_eq!(
        check_block_trailer(&raw),
        Ok((contents.len(), BlockType::Plain))
    );
    for i in 0..raw.len() {
        let mut bad = raw.clone();
        bad[i] ^= 0x01;
        let err = check_block_trailer(&bad).unwrap_err();
        assert_eq!(err.offset, 0, "byte {i}");
    }
    assert!(check_block_trailer(&raw[..3]).is_err());
}

#[test]
fn unknown_block_type_with_a_good_checksum_is_an_error_at_the_type_byte() {
    let contents = b"abc";
    let mut raw = contents.to_vec();
    raw.push(7);
    let crc = mask_crc(crc32c::crc32c_append(crc32c::crc32c(contents), &[7]));
    raw.extend_from_slice(&crc.to_le_bytes());
    let err = check_block_trailer(&raw).unwrap_err();
    assert_eq!(err.offset, 3);
    assert!(err.what.contains("unknown block type 7"));
}

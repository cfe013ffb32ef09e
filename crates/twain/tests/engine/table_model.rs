//! Model test: a table built from random sorted entries answers every iteration, seek and
//! point lookup exactly as a `BTreeMap` of the same entries does.

use crate::common;

use std::collections::BTreeMap;
use std::ops::Bound;

use proptest::prelude::*;
use twain::format::handle::ValueHandle;
use twain::iter::InternalIterator;
use twain::key::{EntryKind, InternalKey, InternalKeyRef, LOOKUP_KIND, internal_key, lookup_key};
use twain::table::{TableIter, TableOptions};

type Model = BTreeMap<InternalKey, Vec<u8>>;

/// User keys from a tiny alphabet: many shared prefixes, many versions of each key, and the
/// bytes 0x00 and 0xff that stress separator shortening.
fn arb_user_key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(vec![0u8, 1, b'a', b'b', 0xfe, 0xff]),
        0..5,
    )
}

fn arb_seq() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..40, Just(twain::key::MAX_SEQNO), 0u64..(1 << 40)]
}

fn arb_entry() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
    (
        arb_user_key(),
        arb_seq(),
        0u8..3,
        prop::collection::vec(any::<u8>(), 0..40),
        any::<u32>(),
    )
        .prop_map(|(user, seq, kind, bytes, n)| {
            let value = match kind {
                0 => Vec::new(),
                1 => bytes,
                _ => ValueHandle {
                    file: u64::from(n % 100),
                    epoch: n % 3,
                    offset: u64::from(n),
                    len: n / 7,
                }
                .encode(),
            };
            (internal_key(&user, seq, kind), value)
        })
}

fn arb_options() -> impl Strategy<Value = TableOptions> {
    (
        1usize..400,
        1usize..10,
        prop::sample::select(vec![0u32, 1, 10]),
        prop::sample::select(vec![
            twain::Compression::None,
            twain::Compression::Lz4,
            twain::Compression::Zstd,
        ]),
    )
        .prop_map(
            |(block_size, restart_interval, bloom_bits_per_key, compression)| TableOptions {
                block_size,
                restart_interval,
                bloom_bits_per_key,
                compression,
            },
        )
}

fn arb_model() -> impl Strategy<Value = Model> {
    prop::collection::vec(arb_entry(), 1..300).prop_map(|entries| {
        entries
            .into_iter()
            .map(|(k, v)| (InternalKey(k.into_boxed_slice()), v))
            .collect()
    })
}

/// A seek target: any internal key, including lookup keys (kind 0xff).
fn arb_target() -> impl Strategy<Value = Vec<u8>> {
    (
        arb_user_key(),
        arb_seq(),
        prop::sample::select(vec![0u8, 1, 2, LOOKUP_KIND]),
    )
        .prop_map(|(u, s, k)| internal_key(&u, s, k))
}

fn entries(model: &Model) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .iter()
        .map(|(k, v)| (k.0.to_vec(), v.clone()))
        .collect()
}

fn build(model: &Model, opts: &TableOptions) -> (common::TempTable, TableIter) {
    let t = common::TempTable::new(&entries(model), opts);
    let table = t.open();
    let it = table.iter(true);
    (t, it)
}

fn current(it: &TableIter) -> Option<(Vec<u8>, Vec<u8>)> {
    it.valid().then(|| (it.key().to_vec(), it.value().to_vec()))
}

fn model_ge(model: &Model, target: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    model
        .range::<InternalKeyRef, _>((
            Bound::Included(InternalKeyRef::new(target)),
            Bound::Unbounded,
        ))
        .next()
        .map(|(k, v)| (k.0.to_vec(), v.clone()))
}

fn model_le(model: &Model, target: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    model
        .range::<InternalKeyRef, _>((
            Bound::Unbounded,
            Bound::Included(InternalKeyRef::new(target)),
        ))
        .next_back()
        .map(|(k, v)| (k.0.to_vec(), v.clone()))
}

/// A step of a random walk over the iterator.
#[derive(Debug, Clone)]
enum Step {
    First,
    Last,
    Seek(Vec<u8>),
    SeekForPrev(Vec<u8>),
    Next,
    Prev,
}

fn arb_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::First),
        1 => Just(Step::Last),
        2 => arb_target().prop_map(Step::Seek),
        2 => arb_target().prop_map(Step::SeekForPrev),
        4 => Just(Step::Next),
        4 => Just(Step::Prev),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn forward_iteration_matches_model(model in arb_model(), opts in arb_options()) {
        let (_t, mut it) = build(&model, &opts);
        let mut got = Vec::new();
        it.seek_to_first().unwrap();
        while let Some(e) = current(&it) {
            got.push(e);
            it.next().unwrap();
        }
        prop_assert_eq!(got, entries(&model));
    }

    #[test]
    fn reverse_iteration_matches_model(model in arb_model(), opts in arb_options()) {
        let (_t, mut it) = build(&model, &opts);
        let mut got = Vec::new();
        it.seek_to_last().unwrap();
        while let Some(e) = current(&it) {
            got.push(e);
            it.prev().unwrap();
        }
        got.reverse();
        prop_assert_eq!(got, entries(&model));
    }

    #[test]
    fn seek_finds_first_entry_at_or_after(
        model in arb_model(),
        opts in arb_options(),
        targets in prop::collection::vec(arb_target(), 1..40),
    ) {
        let (_t, mut it) = build(&model, &opts);
        for t in &targets {
            it.seek(t).unwrap();
            prop_assert_eq!(current(&it), model_ge(&model, t));
        }
        // Every stored key finds itself.
        for k in model.keys() {
            it.seek(&k.0).unwrap();
            prop_assert_eq!(it.key(), &k.0[..]);
        }
    }

    #[test]
    fn seek_for_prev_finds_last_entry_at_or_before(
        model in arb_model(),
        opts in arb_options(),
        targets in prop::collection::vec(arb_target(), 1..40),
    ) {
        let (_t, mut it) = build(&model, &opts);
        for t in &targets {
            it.seek_for_prev(t).unwrap();
            prop_assert_eq!(current(&it), model_le(&model, t));
        }
    }

    #[test]
    fn get_returns_newest_visible_version(
        model in arb_model(),
        opts in arb_options(),
        probes in prop::collection::vec((arb_user_key(), arb_seq()), 1..60),
    ) {
        let t = common::TempTable::new(&entries(&model), &opts);
        let table = t.open();
        // Probe random keys and every stored (user key, seq).
        let stored = model.keys().map(|k| {
            let p = twain::key::ParsedKey::parse(&k.0);
            (p.user_key.to_vec(), p.seq)
        });
        for (user, seq) in probes.into_iter().chain(stored) {
            let lookup = lookup_key(&user, seq);
            let expected = model_ge(&model, &lookup)
                .filter(|(k, _)| twain::key::user_key(k) == &user[..]);
            prop_assert_eq!(table.get(&lookup).unwrap(), expected);
        }
    }

    #[test]
    fn random_walk_matches_model(
        model in arb_model(),
        opts in arb_options(),
        steps in prop::collection::vec(arb_step(), 1..80),
    ) {
        let (_t, mut it) = build(&model, &opts);
        let all = entries(&model);
        let mut pos: Option<usize> = None;
        let index_of = |e: Option<(Vec<u8>, Vec<u8>)>| {
            e.and_then(|(k, _)| all.iter().position(|(ak, _)| *ak == k))
        };
        for step in steps {
            match step {
                Step::First => {
                    it.seek_to_first().unwrap();
                    pos = Some(0);
                }
                Step::Last => {
                    it.seek_to_last().unwrap();
                    pos = Some(all.len() - 1);
                }
                Step::Seek(t) => {
                    it.seek(&t).unwrap();
                    pos = index_of(model_ge(&model, &t));
                }
                Step::SeekForPrev(t) => {
                    it.seek_for_prev(&t).unwrap();
                    pos = index_of(model_le(&model, &t));
                }
                // Moving requires a valid cursor.
                Step::Next if pos.is_some() => {
                    it.next().unwrap();
                    pos = pos.map(|p| p + 1).filter(|&p| p < all.len());
                }
                Step::Prev if pos.is_some() => {
                    it.prev().unwrap();
                    pos = pos.and_then(|p| p.checked_sub(1));
                }
                Step::Next | Step::Prev => {}
            }
            prop_assert_eq!(current(&it), pos.map(|p| all[p].clone()));
        }
    }
}

#[test]
fn kinds_survive_the_round_trip() {
    let h = ValueHandle {
        file: 3,
        epoch: 1,
        offset: 99,
        len: 4000,
    };
    let es = vec![
        common::inline(b"a", 5, b"v"),
        common::tombstone(b"a", 4),
        common::handle(b"a", 3, h),
    ];
    let t = common::TempTable::new(&es, &TableOptions::default());
    let table = t.open();
    let got = table.get(&lookup_key(b"a", 4)).unwrap().unwrap();
    assert_eq!(
        got,
        (internal_key(b"a", 4, EntryKind::Delete as u8), Vec::new())
    );
    let got = table.get(&lookup_key(b"a", 3)).unwrap().unwrap();
    assert_eq!(ValueHandle::decode(&got.1), Ok(h));
    assert_eq!(table.get(&lookup_key(b"a", 2)).unwrap(), None);
}

/// Guards the index separator rule: a separator must never carry the user key of a stored
/// entry, or a lookup at `MAX_SEQNO` lands one block early and misses the entry.
#[test]
fn get_at_max_seqno_right_after_a_block_boundary() {
    let es = vec![
        common::inline(b"a", 5, b"first"),
        common::inline(b"b", twain::key::MAX_SEQNO, b"second"),
    ];
    let opts = TableOptions {
        block_size: 1,
        ..TableOptions::default()
    };
    let t = common::TempTable::new(&es, &opts);
    let table = t.open();
    assert_eq!(table.properties().num_data_blocks, 2);
    let got = table.get(&lookup_key(b"b", twain::key::MAX_SEQNO)).unwrap();
    assert_eq!(got, Some(es[1].clone()));
}

//! Block parsing and block iteration on arbitrary bytes end in a decode error or in valid
//! entries, never in a panic or an endless loop.

use proptest::prelude::*;
use twain::format::block::{Block, BlockBuilder, BlockIter};
use twain::format::bloom::BloomFilter;
use twain::format::table::{Footer, TableProperties};
use twain::key::{EntryKind, internal_key};

/// Drives every cursor operation over `bytes` if they parse as a block. Asserts that scans
/// end within one step per 3 bytes (the smallest entry), and that a failed step leaves the
/// cursor invalid.
fn exercise(bytes: Vec<u8>, targets: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let max_steps = bytes.len() / 3 + 1;
    let Ok(block) = Block::parse(bytes) else {
        return Ok(());
    };
    let mut it = BlockIter::new(&block);
    let check = |it: &BlockIter<&Block>, r: Result<(), _>| -> Result<bool, TestCaseError> {
        if r.is_err() {
            prop_assert!(!it.valid());
        }
        Ok(r.is_ok() && it.valid())
    };

    let r = it.seek_to_first();
    let mut ok = check(&it, r)?;
    let mut steps = 0;
    while ok {
        steps += 1;
        prop_assert!(steps <= max_steps);
        let r = it.next();
        ok = check(&it, r)?;
    }
    let r = it.seek_to_last();
    let mut ok = check(&it, r)?;
    let mut steps = 0;
    while ok {
        steps += 1;
        prop_assert!(steps <= max_steps);
        let r = it.prev();
        ok = check(&it, r)?;
    }
    for t in targets {
        let r = it.seek(t);
        check(&it, r)?;
        let r = it.seek_for_prev(t);
        check(&it, r)?;
    }
    Ok(())
}

/// A well-formed block with a few entries, to be damaged.
fn good_block() -> Vec<u8> {
    let mut b = BlockBuilder::new(3);
    for i in 0..12u64 {
        let user = format!("key{:02}", i / 2);
        b.add(
            &internal_key(user.as_bytes(), 100 - i, EntryKind::Inline as u8),
            b"val",
        );
    }
    b.finish().to_vec()
}

/// Random entry bytes behind a restart array that passes parsing (sorted offsets starting
/// at 0), so that the garbage reaches the cursor.
fn arb_plausible_block() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 1..200),
        prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    )
        .prop_map(|(mut body, picks)| {
            let mut restarts: Vec<u32> = picks.iter().map(|p| p.index(body.len()) as u32).collect();
            restarts.push(0);
            restarts.sort_unstable();
            restarts.dedup();
            for r in &restarts {
                body.extend_from_slice(&r.to_le_bytes());
            }
            body.extend_from_slice(&(restarts.len() as u32).to_le_bytes());
            body
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn plausible_blocks_of_random_entries_never_panic(
        bytes in arb_plausible_block(),
        targets in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 0..4),
    ) {
        prop_assert!(Block::parse(bytes.clone()).is_ok());
        exercise(bytes, &targets)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        targets in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..20), 0..4),
    ) {
        exercise(bytes, &targets)?;
    }

    #[test]
    fn damaged_good_blocks_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = good_block();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if truncate {
            let keep = cut.index(bytes.len());
            // Keep the restart count readable so parsing gets past the first check.
            let tail = bytes[bytes.len() - 4..].to_vec();
            bytes.truncate(keep);
            bytes.extend_from_slice(&tail);
        }
        let targets = vec![internal_key(b"key03", 50, 1), internal_key(b"", 0, 0)];
        exercise(bytes, &targets)?;
    }

    #[test]
    fn other_decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..100)) {
        // The outcome is an error or a value; the assertion is that each returns.
        let footer = Footer::decode(&bytes);
        prop_assert!(bytes.len() == 64 || footer.is_err());
        let _ = TableProperties::decode(&bytes);
        if let Ok(f) = BloomFilter::decode(bytes) {
            let _ = f.may_contain(b"key");
        }
    }
}

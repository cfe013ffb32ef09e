//! Opening and reading a file of arbitrary bytes behind a valid footer fails with
//! corruption (or reads consistent entries), and never panics.

use crate::common;

use std::sync::Arc;

use proptest::prelude::*;
use twain::cache::BlockCache;
use twain::format::table::{BlockHandle, Footer};
use twain::iter::InternalIterator;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn garbage_behind_a_valid_footer_is_corruption(
        body in prop::collection::vec(any::<u8>(), 0..200),
        handles in prop::collection::vec((0u64..220, 0u64..220), 3),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("000009.sst");
        let h = |i: usize| BlockHandle::new(handles[i].0, handles[i].1);
        let mut bytes = body;
        bytes.extend_from_slice(&Footer::new(h(0), h(1), h(2)).encode());
        std::fs::write(&path, &bytes).unwrap();
        match common::open_table(&path, 9, Arc::new(BlockCache::new(1 << 16))) {
            Err(e) => prop_assert!(e.is_corruption(), "{}", e),
            Ok(table) => {
                let mut it = table.iter(true);
                let mut r = it.seek_to_first();
                let mut n = 0;
                while r.is_ok() && it.valid() {
                    n += 1;
                    prop_assert!(n <= bytes.len());
                    r = it.next();
                }
                if let Err(e) = r {
                    prop_assert!(e.is_corruption(), "{}", e);
                }
            }
        }
    }
}

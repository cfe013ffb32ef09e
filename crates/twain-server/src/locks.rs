//! [`KeyLocks`]: striped locks keyed by a hash of the key, so that commands touching the
//! same key run one after another. The engine has no compare-and-set, so a
//! read-modify-write command (`INCR`, `APPEND`, `SET NX`, ...) holds its key's stripe from
//! the read to the end of the write. Blind writes (`SET`, `MSET`, `DEL`) take their stripes
//! too, so none of them can land between another command's read and write. Reads take none:
//! the engine makes every write visible atomically.
//!
//! A command takes all its stripes at once, in ascending order, and releases them together
//! when its [`KeyGuard`] drops: no two guards can wait for each other. `FLUSHDB` takes every
//! stripe. Thread-safe.

use std::sync::{Mutex, MutexGuard};

/// Number of stripes: a power of two, large enough that unrelated keys rarely share one.
pub const STRIPES: usize = 1024;

/// The stripes. Thread-safe; shared by every connection.
#[derive(Debug)]
pub struct KeyLocks {
    stripes: Box<[Mutex<()>]>,
}

/// Proof that the stripes of some keys are held; they are released when it drops.
#[derive(Debug)]
pub struct KeyGuard<'a> {
    _held: Vec<MutexGuard<'a, ()>>,
}

impl Default for KeyLocks {
    fn default() -> KeyLocks {
        KeyLocks {
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }
}

/// The stripe of `key`.
pub fn stripe_of(key: &[u8]) -> usize {
    // Masking keeps the value below STRIPES, so the cast cannot truncate it.
    (xxhash_rust::xxh3::xxh3_64(key) as usize) & (STRIPES - 1)
}

impl KeyLocks {
    /// Locks the stripes of every key in `keys` (duplicates allowed), waiting as needed.
    pub fn lock<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) -> KeyGuard<'_> {
        let mut stripes: Vec<usize> = keys.into_iter().map(stripe_of).collect();
        stripes.sort_unstable();
        stripes.dedup();
        self.lock_stripes(stripes)
    }

    /// Locks every stripe: no other writer runs until the guard drops.
    pub fn lock_all(&self) -> KeyGuard<'_> {
        self.lock_stripes(0..STRIPES)
    }

    /// REQUIRES: `stripes` ascending, without duplicates, each below [`STRIPES`].
    fn lock_stripes(&self, stripes: impl IntoIterator<Item = usize>) -> KeyGuard<'_> {
        let held = stripes
            .into_iter()
            .filter_map(|s| self.stripes.get(s))
            // A command that panicked while holding a stripe left no partial write behind
            // (the engine applies a batch whole or not at all), so the lock is still good.
            .map(|m| m.lock().unwrap_or_else(|e| e.into_inner()))
            .collect();
        KeyGuard { _held: held }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn a_held_stripe_excludes_other_holders() {
        let locks = Arc::new(KeyLocks::default());
        let counter = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (locks, counter) = (Arc::clone(&locks), Arc::clone(&counter));
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        let _g = locks.lock([&b"k"[..], b"other"]);
                        // A non-atomic read-modify-write: correct only under the lock.
                        let v = counter.load(Ordering::Relaxed);
                        std::hint::spin_loop();
                        counter.store(v + 1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(counter.load(Ordering::Relaxed), 8000);
    }

    #[test]
    fn duplicate_keys_and_lock_all_do_not_deadlock() {
        let locks = KeyLocks::default();
        drop(locks.lock([&b"a"[..], b"a", b"b"]));
        let all = locks.lock_all();
        drop(all);
        let _again = locks.lock([&b"a"[..]]);
    }
}

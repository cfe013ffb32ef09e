//! [`WriteBatch`]: several puts and deletes applied atomically.

use crate::memtable::MAX_RANGE_DELETIONS;
use crate::options::{MAX_BATCH_SIZE, MAX_KEY_SIZE, MAX_VALUE_SIZE};
use crate::{Error, Result};

/// One operation of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchOp<'a> {
    /// Set `key` to `value`.
    Put {
        /// The key.
        key: &'a [u8],
        /// The value.
        value: &'a [u8],
        /// When the pair expires, in milliseconds since the Unix epoch by the database's
        /// clock; `None` for a pair that never does.
        expires_at: Option<u64>,
    },
    /// Delete `key`.
    Delete {
        /// The key.
        key: &'a [u8],
    },
    /// Delete every key from `start` (included) to `end` (excluded).
    DeleteRange {
        /// The first key deleted.
        start: &'a [u8],
        /// The first key after the range.
        end: &'a [u8],
    },
}

impl<'a> BatchOp<'a> {
    /// The operation's key (a range deletion's start).
    pub fn key(&self) -> &'a [u8] {
        match self {
            BatchOp::Put { key, .. } | BatchOp::Delete { key } => key,
            BatchOp::DeleteRange { start, .. } => start,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpKind {
    Put,
    Delete,
    /// The key is the range's start, the value its end.
    DeleteRange,
}

#[derive(Debug, Clone, Copy)]
struct OpRange {
    kind: OpKind,
    expires_at: Option<u64>,
    key_start: usize,
    key_len: usize,
    value_len: usize,
}

/// Puts, deletes and range deletions applied atomically, in order, by
/// [`Db::write`](crate::Db::write).
/// Every operation gets its own sequence number; a later operation on the same key wins.
/// Not thread-safe to mutate; cheap to build (one byte buffer).
#[derive(Debug, Clone, Default)]
pub struct WriteBatch {
    data: Vec<u8>,
    ops: Vec<OpRange>,
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> WriteBatch {
        WriteBatch::default()
    }

    /// Adds a put.
    pub fn put(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> &mut Self {
        self.push_put(key.as_ref(), value.as_ref(), None)
    }

    /// Adds a put that expires at `expires_at`, in milliseconds since the Unix epoch by the
    /// database's clock ([`Options::clock`](crate::Options::clock)). From that moment on,
    /// reads no longer see the pair (nor any older version of the key), and compaction
    /// drops it and its value. A time already past makes the put act as a delete.
    pub fn put_with_expiry(
        &mut self,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
        expires_at: u64,
    ) -> &mut Self {
        self.push_put(key.as_ref(), value.as_ref(), Some(expires_at))
    }

    fn push_put(&mut self, key: &[u8], value: &[u8], expires_at: Option<u64>) -> &mut Self {
        let key_start = self.data.len();
        self.data.extend_from_slice(key);
        self.data.extend_from_slice(value);
        self.ops.push(OpRange {
            kind: OpKind::Put,
            expires_at,
            key_start,
            key_len: key.len(),
            value_len: value.len(),
        });
        self
    }

    /// Adds a delete.
    pub fn delete(&mut self, key: impl AsRef<[u8]>) -> &mut Self {
        let key = key.as_ref();
        let key_start = self.data.len();
        self.data.extend_from_slice(key);
        self.ops.push(OpRange {
            kind: OpKind::Delete,
            expires_at: None,
            key_start,
            key_len: key.len(),
            value_len: 0,
        });
        self
    }

    /// Adds a range deletion: every key from `start` (included) to `end` (excluded), as
    /// it stands when the batch is applied, is deleted. Keys written later in the batch or
    /// after it are not. An empty range (`start == end`) deletes nothing; `start > end`
    /// makes [`Db::write`](crate::Db::write) refuse the batch.
    ///
    /// Writing one costs as much as a delete, whatever the range holds; the flush that
    /// writes its memtable out writes a tombstone for each key it deletes (see
    /// [`Db::delete_range`](crate::Db::delete_range)).
    pub fn delete_range(&mut self, start: impl AsRef<[u8]>, end: impl AsRef<[u8]>) -> &mut Self {
        let (start, end) = (start.as_ref(), end.as_ref());
        let key_start = self.data.len();
        self.data.extend_from_slice(start);
        self.data.extend_from_slice(end);
        self.ops.push(OpRange {
            kind: OpKind::DeleteRange,
            expires_at: None,
            key_start,
            key_len: start.len(),
            value_len: end.len(),
        });
        self
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Removes every operation.
    pub fn clear(&mut self) {
        self.data.clear();
        self.ops.clear();
    }

    /// Bytes of keys and values held.
    pub fn payload_bytes(&self) -> usize {
        self.data.len()
    }

    /// The operations in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = BatchOp<'_>> + '_ {
        self.ops.iter().map(|op| {
            let key_end = op.key_start + op.key_len;
            let key = self.data.get(op.key_start..key_end).unwrap_or_default();
            let value = self
                .data
                .get(key_end..key_end + op.value_len)
                .unwrap_or_default();
            match op.kind {
                OpKind::Put => BatchOp::Put {
                    key,
                    value,
                    expires_at: op.expires_at,
                },
                OpKind::Delete => BatchOp::Delete { key },
                OpKind::DeleteRange => BatchOp::DeleteRange {
                    start: key,
                    end: value,
                },
            }
        })
    }

    /// Checks the documented limits: keys up to 64 KiB, values up to 64 MiB, batches up to
    /// 512 MiB and up to [`MAX_RANGE_DELETIONS`] range deletions.
    pub(crate) fn validate(&self) -> Result<()> {
        let ranges = self
            .ops
            .iter()
            .filter(|op| op.kind == OpKind::DeleteRange)
            .count();
        if ranges > MAX_RANGE_DELETIONS {
            return Err(Error::InvalidArgument(format!(
                "batch of {ranges} range deletions exceeds the limit of {MAX_RANGE_DELETIONS}"
            )));
        }
        for op in &self.ops {
            if op.key_len > MAX_KEY_SIZE {
                return Err(Error::InvalidArgument(format!(
                    "key of {} bytes exceeds the limit of {MAX_KEY_SIZE}",
                    op.key_len
                )));
            }
            if op.kind == OpKind::DeleteRange {
                let start = self.data.get(op.key_start..op.key_start + op.key_len);
                let end_at = op.key_start + op.key_len;
                let end = self.data.get(end_at..end_at + op.value_len);
                if op.value_len > MAX_KEY_SIZE {
                    return Err(Error::InvalidArgument(format!(
                        "range end key of {} bytes exceeds the limit of {MAX_KEY_SIZE}",
                        op.value_len
                    )));
                }
                if start > end {
                    return Err(Error::InvalidArgument(
                        "range deletion whose start is after its end".into(),
                    ));
                }
            }
            if op.value_len > MAX_VALUE_SIZE {
                return Err(Error::InvalidArgument(format!(
                    "value of {} bytes exceeds the limit of {MAX_VALUE_SIZE}",
                    op.value_len
                )));
            }
        }
        // Per-entry framing is at most 1 kind byte, two 10-byte varints, a 4-byte CRC and a
        // 9-byte expiry prefix.
        let encoded = self.data.len() + self.ops.len() * 34;
        if encoded > MAX_BATCH_SIZE {
            return Err(Error::InvalidArgument(format!(
                "batch of about {encoded} bytes exceeds the limit of {MAX_BATCH_SIZE}"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_contents() {
        let mut b = WriteBatch::new();
        b.put("a", "1").delete("b").put_with_expiry("", "", 7);
        let ops: Vec<_> = b.iter().collect();
        assert_eq!(
            ops,
            vec![
                BatchOp::Put {
                    key: b"a",
                    value: b"1",
                    expires_at: None,
                },
                BatchOp::Delete { key: b"b" },
                BatchOp::Put {
                    key: b"",
                    value: b"",
                    expires_at: Some(7),
                },
            ]
        );
        assert_eq!(b.len(), 3);
        b.clear();
        assert!(b.is_empty());
    }

    #[test]
    fn limits_are_enforced() {
        let mut b = WriteBatch::new();
        b.put(vec![0u8; MAX_KEY_SIZE + 1], "v");
        assert!(matches!(b.validate(), Err(Error::InvalidArgument(_))));
        let mut ok = WriteBatch::new();
        ok.put(vec![0u8; MAX_KEY_SIZE], "v");
        ok.validate().unwrap();
    }
}

//! Holes in a value log that no manifest names, as repair meets them.
//!
//! Value GC punches a run of dead records out of a sealed file (`gc::punch`): the run spans
//! whole records `[start, end)`, and only the whole blocks ([`ALLOCATION_BLOCK`]) inside
//! it are freed, reading back as zeros. The manifest names the run, and every scanner skips
//! it. Repair has lost the manifest, so a scan meets, at `start`, a record whose checksum
//! fails; past it, from a block boundary inside that record, zero blocks; then the tail of
//! the run's last record; then, at `end`, an intact record. [`past_hole`] recognises
//! exactly that shape and says where the intact record is. Anything else (damage with
//! intact records before the next zero block, zeros with no intact record after them) is
//! not a hole, and stays damage.
//!
//! Zeros left by a lost block look the same as a hole. Skipping them costs nothing more than
//! cutting the file there would: a live record inside is unreadable either way, and repair's
//! check of every value handle reports it.

use super::scan::ChunkReader;
use crate::Result;
use crate::format::record::{FRAME_HEADER_LEN, Frame, decode_frame};
use crate::format::vlog::{RecordType, peek_header, peek_record};
use crate::fs::ALLOCATION_BLOCK;
use crate::key::SeqNo;

/// How far the search goes for the zeros, and past them for the next intact record: a
/// record longer than this straddling a hole's edge is taken for damage.
const MAX_REACH: u64 = 64 << 20;

/// A hole a scan can step over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hole {
    /// Where the first intact record after the zeros starts: the end of the run.
    pub resume: u64,
    /// Bytes of the zero blocks.
    pub zeroed: u64,
}

/// The hole that starts with the damaged record at `at`, if the bytes there have a
/// punched run's shape; `max_seq` is the newest batch sequence before it (a batch after
/// the hole must be newer).
pub(super) fn past_hole(
    chunks: &mut ChunkReader<'_>,
    at: u64,
    max_seq: Option<SeqNo>,
) -> Result<Option<Hole>> {
    let file_len = chunks.file_len();
    // The zeros start at a block boundary inside the damaged record: before the end its
    // header claims, or inside the header itself when its length bytes were zeroed.
    let head = chunks.window(at, FRAME_HEADER_LEN)?.to_vec();
    let Some(len_bytes) = head.get(4..8).and_then(|b| <[u8; 4]>::try_from(b).ok()) else {
        return Ok(None);
    };
    let claimed_end = at + FRAME_HEADER_LEN as u64 + u64::from(u32::from_le_bytes(len_bytes));
    let limit = claimed_end
        .min(at + MAX_REACH)
        .max(at + FRAME_HEADER_LEN as u64)
        .min(file_len);
    let mut zeros = at.div_ceil(ALLOCATION_BLOCK) * ALLOCATION_BLOCK;
    loop {
        if zeros >= limit {
            return Ok(None);
        }
        if is_zero_block(chunks, zeros)? {
            break;
        }
        zeros += ALLOCATION_BLOCK;
    }
    // No intact record may start between the damage and the zeros: that would be damage
    // followed by records, not one record cut by a hole.
    for o in at + 1..zeros {
        if intact_record_at(chunks, o, max_seq)? {
            return Ok(None);
        }
    }
    let mut end = zeros;
    while end < file_len && is_zero_block(chunks, end)? {
        end += ALLOCATION_BLOCK;
    }
    let reach = (end + MAX_REACH).min(file_len);
    let mut resume = end;
    while resume + FRAME_HEADER_LEN as u64 <= reach {
        if intact_record_at(chunks, resume, max_seq)? {
            return Ok(Some(Hole {
                resume,
                zeroed: end - zeros,
            }));
        }
        resume += 1;
    }
    Ok(None)
}

/// Whether the whole block at `offset` is in the file and reads as zeros.
fn is_zero_block(chunks: &mut ChunkReader<'_>, offset: u64) -> Result<bool> {
    let block = chunks.window(offset, ALLOCATION_BLOCK as usize)?;
    Ok(block.len() == ALLOCATION_BLOCK as usize && block.iter().all(|&b| b == 0))
}

/// Whether an intact record starts at `offset`: its frame's checksum holds, its record
/// type is known, and a batch is newer than `max_seq`.
fn intact_record_at(
    chunks: &mut ChunkReader<'_>,
    offset: u64,
    max_seq: Option<SeqNo>,
) -> Result<bool> {
    let file_len = chunks.file_len();
    let head = chunks.window(offset, FRAME_HEADER_LEN)?;
    let needed = match decode_frame(head) {
        Frame::Truncated { needed } if needed > 0 && offset + needed as u64 <= file_len => needed,
        _ => return Ok(false),
    };
    let window = chunks.window(offset, needed)?;
    let Frame::Good { payload, .. } = decode_frame(window) else {
        return Ok(false);
    };
    let Ok((kind, _)) = peek_record(payload) else {
        return Ok(false);
    };
    Ok(kind != RecordType::Batch
        || peek_header(payload).is_some_and(|h| max_seq.is_none_or(|m| h.first_seq > m)))
}

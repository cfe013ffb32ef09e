//! Whether value GC punches holes in a file or rewrites it: a pure choice by cost.
//!
//! A scan of a value file lays it out as [`Span`]s — a value log's frames, an SVTable's
//! entries — each live (it holds a record still referenced, or a seal, or damage) or dead.
//! Consecutive dead spans form a dead run; punching a run frees the whole file-system
//! blocks inside it and copies nothing, while a rewrite frees every dead byte but copies
//! the live rest. So ([`choose`]):
//!
//! - punch when the blocks punching frees are at least [`PUNCH_SHARE`] of the dead bytes:
//!   the garbage is clustered and a rewrite would gain little more for its copying;
//! - also punch when the live rest is at least as large as the dead bytes (a rewrite would
//!   copy more than it frees) and punching frees at least [`PUNCH_SHARE_LARGE_LIVE`] of them;
//! - otherwise rewrite (scattered garbage: dead records between live ones in the same
//!   blocks, which only copying reclaims).
//!
//! Runs too short to hold a whole block are left alone (punching frees nothing there).

/// A frame of a value log, or an entry of an SVTable, as a scan laid it out, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// Where it starts.
    pub start: u64,
    /// Where it ends (in a value log, the next frame's start).
    pub end: u64,
    /// Whether it must stay: it holds a live record, a seal, or damage.
    pub live: bool,
    /// Dead separated records in it.
    pub dead_records: u64,
    /// Their bytes.
    pub dead_bytes: u64,
}

/// A dead run to punch: consecutive dead spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeadRun {
    /// The first span's start.
    pub start: u64,
    /// The last span's end.
    pub end: u64,
    /// Dead separated records inside.
    pub records: u64,
    /// Their bytes.
    pub record_bytes: u64,
}

impl DeadRun {
    /// The whole blocks of `block` bytes inside the run: what punching it frees.
    pub fn interior(&self, block: u64) -> Option<(u64, u64)> {
        let from = self.start.div_ceil(block) * block;
        let to = self.end / block * block;
        (to > from).then_some((from, to))
    }

    /// Bytes punching the run frees.
    pub fn freeable(&self, block: u64) -> u64 {
        self.interior(block).map_or(0, |(a, b)| b - a)
    }
}

/// Punch when the blocks punching frees are at least this share of the dead bytes.
pub(crate) const PUNCH_SHARE: f64 = 0.8;

/// ... or at least this share, when the live rest is at least as large as the dead bytes.
pub(crate) const PUNCH_SHARE_LARGE_LIVE: f64 = 0.5;

/// What to do with a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Choice {
    /// Punch these runs (each frees at least one block).
    Punch(Vec<DeadRun>),
    /// Copy the live rest.
    Rewrite,
}

/// The dead runs of `spans` that hold at least one whole block.
pub(crate) fn dead_runs(spans: &[Span], block: u64) -> Vec<DeadRun> {
    let mut runs: Vec<DeadRun> = Vec::new();
    let mut open = false;
    for s in spans {
        if s.live {
            open = false;
            continue;
        }
        match runs.last_mut() {
            Some(r) if open && r.end == s.start => {
                r.end = s.end;
                r.records += s.dead_records;
                r.record_bytes += s.dead_bytes;
            }
            _ => runs.push(DeadRun {
                start: s.start,
                end: s.end,
                records: s.dead_records,
                record_bytes: s.dead_bytes,
            }),
        }
        open = true;
    }
    runs.retain(|r| r.freeable(block) > 0);
    runs
}

/// Punch or rewrite a file laid out as `spans` whose live records hold `live_bytes`.
/// Spans out of file order (a layout that cannot be trusted) are always rewritten.
pub(crate) fn choose(spans: &[Span], live_bytes: u64, block: u64) -> Choice {
    if spans
        .windows(2)
        .any(|w| w[1].start < w[0].end || w[0].start >= w[0].end)
    {
        return Choice::Rewrite;
    }
    let dead: u64 = spans.iter().map(|s| s.dead_bytes).sum();
    let runs = dead_runs(spans, block);
    let freeable: u64 = runs.iter().map(|r| r.freeable(block)).sum();
    if dead == 0 || freeable == 0 {
        return Choice::Rewrite;
    }
    let share = freeable as f64 / dead as f64;
    if share >= PUNCH_SHARE || (live_bytes >= dead && share >= PUNCH_SHARE_LARGE_LIVE) {
        Choice::Punch(runs)
    } else {
        Choice::Rewrite
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: u64 = 4096;

    /// Frames of `len` bytes each from offset 16, dead where `pattern` has a `d`.
    fn spans(pattern: &str, len: u64) -> Vec<Span> {
        pattern
            .chars()
            .enumerate()
            .map(|(i, c)| {
                let start = 16 + i as u64 * len;
                let dead = c == 'd';
                Span {
                    start,
                    end: start + len,
                    live: !dead,
                    dead_records: u64::from(dead),
                    dead_bytes: if dead { len - 20 } else { 0 },
                }
            })
            .collect()
    }

    #[test]
    fn consecutive_dead_frames_form_runs_of_whole_blocks() {
        let s = spans("lddddddddlddl", 1100);
        let runs = dead_runs(&s, B);
        // The first run (8800 bytes from 1116) holds the block at 4096; the second (2200
        // bytes) holds none and is left alone.
        assert_eq!(runs.len(), 1);
        assert_eq!((runs[0].start, runs[0].end), (16 + 1100, 16 + 9 * 1100));
        assert_eq!(runs[0].records, 8);
        assert_eq!(runs[0].interior(B), Some((4096, 8192)));
        assert_eq!(runs[0].freeable(B), 4096);
    }

    #[test]
    fn clustered_garbage_is_punched() {
        // Half the file dead, in one long run.
        let s = spans(&format!("{}{}", "d".repeat(100), "l".repeat(100)), 1100);
        match choose(&s, 100 * 1080, B) {
            Choice::Punch(runs) => assert_eq!(runs.len(), 1),
            Choice::Rewrite => panic!("clustered garbage must be punched"),
        }
    }

    #[test]
    fn scattered_garbage_is_rewritten() {
        let s = spans(&"dl".repeat(100), 1100);
        assert_eq!(choose(&s, 100 * 1080, B), Choice::Rewrite);
        // Short runs of three frames each free a block at best now and then.
        let s = spans(&"dddl".repeat(50), 1100);
        assert_eq!(choose(&s, 50 * 1080, B), Choice::Rewrite);
    }

    #[test]
    fn a_large_live_rest_lowers_the_share_needed() {
        // Runs of twelve dead frames (13,200 bytes): about 70% of the dead bytes in whole
        // blocks. Worth punching when the live rest is larger than the garbage, not when
        // it is small.
        let pattern = format!("{}{}", "ddddddddddddl".repeat(20), "l".repeat(300));
        let s = spans(&pattern, 1100);
        let dead: u64 = s.iter().map(|x| x.dead_bytes).sum();
        let freeable: u64 = dead_runs(&s, B).iter().map(|r| r.freeable(B)).sum();
        let share = freeable as f64 / dead as f64;
        assert!(
            (PUNCH_SHARE_LARGE_LIVE..PUNCH_SHARE).contains(&share),
            "{share}"
        );
        assert!(matches!(choose(&s, 320 * 1080, B), Choice::Punch(_)));
        assert_eq!(choose(&s, dead / 2, B), Choice::Rewrite);
    }

    #[test]
    fn spans_out_of_order_are_rewritten() {
        let mut s = spans(&"d".repeat(40), 1100);
        assert!(matches!(choose(&s, 0, B), Choice::Punch(_)));
        s.swap(3, 30);
        assert_eq!(choose(&s, 0, B), Choice::Rewrite);
    }

    #[test]
    fn nothing_dead_or_nothing_freeable_is_a_rewrite() {
        assert_eq!(choose(&spans("llll", 1100), 4000, B), Choice::Rewrite);
        assert_eq!(choose(&spans("ldl", 1100), 2000, B), Choice::Rewrite);
        assert_eq!(choose(&[], 0, B), Choice::Rewrite);
    }
}

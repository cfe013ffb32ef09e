//! What a complete value GC (`Db::gc_report`) did, and why each value file left stays.

use std::fmt;

/// Why a value file stays after a complete GC.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StayReason {
    /// Not sealed yet: the value file being written, the spare the log thread keeps ready,
    /// or an empty log file of an earlier open that no flush has passed yet. GC seals the
    /// written one only when its garbage is worth collecting.
    Active,
    /// No record in it is known to be dead.
    Live,
    /// Its dead fraction is below what the threshold asks: copying its live records would
    /// gain too little.
    BelowThreshold,
    /// A live snapshot still sees records in it (lsm-lookup mode).
    PinnedBySnapshot,
    /// Damaged where a live record may lie: GC leaves it alone (`Db::gc_set_aside`).
    SetAside,
    /// A flush's transient file of medium values: freed whole once compaction has merged
    /// or dropped every value in it, never copied by GC.
    Transient,
    /// Vlog mode: the space amplification came within the target before GC reached this
    /// part of the log (it collects the oldest file first, whatever its garbage).
    WithinTarget,
}

impl StayReason {
    /// The word `twain gc` prints.
    pub fn as_str(&self) -> &'static str {
        match self {
            StayReason::Active => "active",
            StayReason::Live => "live",
            StayReason::BelowThreshold => "below threshold",
            StayReason::PinnedBySnapshot => "pinned by a snapshot",
            StayReason::SetAside => "set aside",
            StayReason::Transient => "transient",
            StayReason::WithinTarget => "within target",
        }
    }
}

/// One value file left after a complete GC.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileVerdict {
    /// The file number.
    pub number: u64,
    /// Its size in bytes (the written length for the active file).
    pub total_bytes: u64,
    /// Fraction of its separated bytes still referenced (1.0 when unknown or active).
    pub live_fraction: f64,
    /// Why it stays.
    pub reason: StayReason,
}

/// What `Db::gc_report` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GcReport {
    /// Value files collected while it ran (the background worker's runs included: it may
    /// collect a file this GC made collectable first).
    pub collected: u64,
    /// How many of those were punched (their dead runs freed in place) rather than
    /// rewritten.
    pub punched: u64,
    /// Times the active value file was sealed because it held the garbage.
    pub logs_sealed: u64,
    /// Garbage compactions run to make dead versions visible.
    pub garbage_compactions: u64,
    /// The live fraction under which files were collected.
    pub threshold: f64,
    /// Every value file left, in file order, with why it stays.
    pub files: Vec<FileVerdict>,
}

impl fmt::Display for GcReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "collected {} value files ({} log seals, {} garbage compactions, threshold {:.2}; {} punched)",
            self.collected,
            self.logs_sealed,
            self.garbage_compactions,
            self.threshold,
            self.punched
        )?;
        for v in &self.files {
            writeln!(
                f,
                "  {:06}.vlog  {:>12} bytes  live {:5.1}%  stays: {}",
                v.number,
                v.total_bytes,
                v.live_fraction * 100.0,
                v.reason.as_str()
            )?;
        }
        Ok(())
    }
}

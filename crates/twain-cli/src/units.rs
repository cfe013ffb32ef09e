//! How the command line writes sizes and counts.
//!
//! A size is written in IEC units with one decimal (`117.0 MiB`; under 1 KiB, `512 B`),
//! or with `--bytes` as the exact count (`122683392 B`), which a script can read back.
//! JSON output always carries exact numbers. A count is followed by its noun in the
//! singular or the plural ("1 value file", "2 value files").

/// How sizes are written: chosen by the global `--bytes` flag.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Exact byte counts instead of units.
    pub exact: bool,
}

impl Sizes {
    /// `bytes` as `117.0 MiB`, or `122683392 B` with `--bytes`.
    pub fn show(self, bytes: u64) -> String {
        if self.exact {
            format!("{bytes} B")
        } else {
            bytesize::ByteSize(bytes).display().iec().to_string()
        }
    }

    /// A rate in bytes per second, as [`Sizes::show`] writes sizes, with `/s`.
    pub fn rate(self, bytes_per_sec: f64) -> String {
        // `as` saturates: a negative or NaN rate is 0, an infinite one u64::MAX.
        format!("{}/s", self.show(bytes_per_sec as u64))
    }
}

/// `n` and `noun`, plural unless `n` is 1: `counted(1, "value file")` is "1 value file",
/// `counted(2, "entry")` "2 entries". The plural adds `s`; `es` after `s`, `x`, `ch` or
/// `sh`; and turns a final consonant and `y` into `ies`.
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        return format!("1 {noun}");
    }
    let mut last = noun.chars().rev();
    let consonant_y = last.next() == Some('y') && last.next().is_some_and(|c| !"aeiou".contains(c));
    match noun.strip_suffix('y') {
        Some(stem) if consonant_y => format!("{n} {stem}ies"),
        _ if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) => {
            format!("{n} {noun}es")
        }
        _ => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_in_iec_units_or_exact() {
        let human = Sizes { exact: false };
        assert_eq!(human.show(0), "0 B");
        assert_eq!(human.show(1023), "1023 B");
        assert_eq!(human.show(1024), "1.0 KiB");
        assert_eq!(human.show(117 << 20), "117.0 MiB");
        assert_eq!(human.show(3 << 30), "3.0 GiB");
        assert_eq!(human.rate(1536.0), "1.5 KiB/s");
        let exact = Sizes { exact: true };
        assert_eq!(exact.show(117 << 20), "122683392 B");
        assert_eq!(exact.rate(f64::NAN), "0 B/s");
    }

    #[test]
    fn counts_take_the_singular_only_for_one() {
        assert_eq!(counted(0, "value file"), "0 value files");
        assert_eq!(counted(1, "value file"), "1 value file");
        assert_eq!(counted(2, "entry"), "2 entries");
        assert_eq!(counted(1, "entry"), "1 entry");
        assert_eq!(counted(3, "key"), "3 keys");
        assert_eq!(counted(3, "y"), "3 ys");
        assert_eq!(counted(2, "miss"), "2 misses");
    }
}

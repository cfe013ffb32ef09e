//! A backup's description (`meta/NNNNNN` in a backup directory; specified in
//! `docs/format/backup.md`): which files the backed-up database had, with their sizes and
//! CRC-32C checksums, which also name their copies in the shared store.
//!
//! ```text
//! meta     := "twain backup 1\n" field* file* "checksum " hex8 "\n"
//! field    := ("id " | "created " | "sequence ") decimal "\n"
//! file     := "file " name " " decimal-size " " hex8-crc32c "\n"
//! ```
//! The final checksum is the CRC-32C of every byte before its line. Names are the
//! database's own file names (`format::names`), never a path.

use crate::format::names::{FileType, parse_file_name_with_epoch};

/// The first line.
const MAGIC: &str = "twain backup 1";
/// The largest description read: far above the ~60 bytes per file of any real database.
pub const MAX_META_BYTES: u64 = 64 << 20;

/// One file of a backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupFile {
    /// Its name in the database directory.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// The CRC-32C of its bytes.
    pub crc32c: u32,
}

impl BackupFile {
    /// The name of its copy in the shared store: equal contents share one copy.
    pub fn store_name(&self) -> String {
        format!("{}.{}.{:08x}", self.name, self.size, self.crc32c)
    }
}

/// A backup's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupMeta {
    /// The backup's number: 1 for the first in a directory, then one more each time.
    pub id: u64,
    /// When it was made, in seconds since the Unix epoch.
    pub created: u64,
    /// The database's sequence number it holds (every write up to it).
    pub sequence: u64,
    /// Its files, by name.
    pub files: Vec<BackupFile>,
}

/// Whether `name` may name a file of a backed-up database: one of the engine's names,
/// which has no path separator and is never `.` or `..`.
fn valid_name(name: &str) -> bool {
    match parse_file_name_with_epoch(name) {
        Some((FileType::Lock | FileType::Temp, ..)) | None => false,
        Some(_) => !name.contains('/'),
    }
}

/// Parses exactly eight lowercase hex digits, as [`BackupMeta::encode`] writes them.
fn hex8(s: &str) -> Option<u32> {
    let lower = s
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (s.len() == 8 && lower).then(|| u32::from_str_radix(s, 16).ok())?
}

impl BackupMeta {
    /// The encoded description.
    pub fn encode(&self) -> Vec<u8> {
        let mut s = format!(
            "{MAGIC}\nid {}\ncreated {}\nsequence {}\n",
            self.id, self.created, self.sequence
        );
        for f in &self.files {
            s.push_str(&format!("file {} {} {:08x}\n", f.name, f.size, f.crc32c));
        }
        let crc = crc32c::crc32c(s.as_bytes());
        s.push_str(&format!("checksum {crc:08x}\n"));
        s.into_bytes()
    }

    /// Decodes a description; the error says what is wrong and at which byte offset.
    pub fn decode(bytes: &[u8]) -> Result<BackupMeta, (u64, String)> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            (
                e.valid_up_to() as u64,
                "a backup description is UTF-8 text".to_string(),
            )
        })?;
        let mut meta = BackupMeta {
            id: 0,
            created: 0,
            sequence: 0,
            files: Vec::new(),
        };
        let (mut seen, mut offset) = ((false, false, false), 0u64);
        let mut lines = text.split_inclusive('\n');
        match lines.next() {
            Some(l) if l == format!("{MAGIC}\n") => offset += l.len() as u64,
            _ => return Err((0, format!("not a backup description (no {MAGIC:?})"))),
        }
        for line in lines {
            let at = offset;
            let bad = |what: &str| (at, format!("{what}: {:?}", line.trim_end()));
            let Some(body) = line.strip_suffix('\n') else {
                return Err(bad("the description ends inside a line"));
            };
            let mut words = body.split(' ');
            let (tag, rest) = (words.next().unwrap_or(""), words.collect::<Vec<_>>());
            match (tag, rest.as_slice()) {
                ("checksum", [hex]) => {
                    let want = hex8(hex).ok_or_else(|| bad("bad checksum"))?;
                    let have = crc32c::crc32c(bytes.get(..at as usize).unwrap_or_default());
                    if want != have {
                        return Err(bad("checksum mismatch"));
                    }
                    if at + line.len() as u64 != bytes.len() as u64 {
                        return Err((at + line.len() as u64, "bytes after the checksum".into()));
                    }
                    if seen != (true, true, true) {
                        return Err(bad("a field is missing before the checksum"));
                    }
                    return Ok(meta);
                }
                ("id" | "created" | "sequence", [n]) => {
                    let n: u64 = n.parse().map_err(|_| bad("not a number"))?;
                    let (slot, field) = match tag {
                        "id" => (&mut seen.0, &mut meta.id),
                        "created" => (&mut seen.1, &mut meta.created),
                        _ => (&mut seen.2, &mut meta.sequence),
                    };
                    if *slot {
                        return Err(bad("a field given twice"));
                    }
                    (*slot, *field) = (true, n);
                }
                ("file", [name, size, crc]) => {
                    if !valid_name(name) {
                        return Err(bad("not a database file name"));
                    }
                    if meta.files.iter().any(|f| f.name == *name) {
                        return Err(bad("a file listed twice"));
                    }
                    let size: u64 = size.parse().map_err(|_| bad("bad size"))?;
                    let crc32c = hex8(crc).ok_or_else(|| bad("bad checksum"))?;
                    meta.files.push(BackupFile {
                        name: (*name).to_string(),
                        size,
                        crc32c,
                    });
                }
                _ => return Err(bad("unknown line")),
            }
            offset += line.len() as u64;
        }
        Err((offset, "the description ends before its checksum".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> BackupMeta {
        BackupMeta {
            id: 3,
            created: 1_764_212_345,
            sequence: 12_345,
            files: vec![
                BackupFile {
                    name: "000012.sst".into(),
                    size: 40_961,
                    crc32c: 0x1a2b_3c4d,
                },
                BackupFile {
                    name: "CURRENT".into(),
                    size: 16,
                    crc32c: 7,
                },
            ],
        }
    }

    #[test]
    fn a_description_round_trips() {
        let m = meta();
        assert_eq!(BackupMeta::decode(&m.encode()).unwrap(), m);
        assert_eq!(m.files[0].store_name(), "000012.sst.40961.1a2b3c4d");
    }

    #[test]
    fn every_damage_is_an_error_with_an_offset() {
        let good = meta().encode();
        for cut in 0..good.len() {
            assert!(BackupMeta::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x20;
            assert!(BackupMeta::decode(&bad).is_err(), "flip at {i}");
        }
    }

    /// The worked example of `docs/format/backup.md` is what this module reads and writes.
    #[test]
    fn the_documented_example_round_trips() {
        let doc = include_str!("../../../../docs/format/backup.md");
        let after = doc.split("<!-- example: backup-meta -->\n```text\n").nth(1);
        let example = after.and_then(|a| a.split("```").next()).unwrap();
        let meta = BackupMeta::decode(example.as_bytes()).unwrap();
        assert_eq!(meta.id, 2);
        assert_eq!(meta.files.len(), 6);
        assert_eq!(meta.encode(), example.as_bytes());
    }

    #[test]
    fn names_that_leave_the_directory_are_refused() {
        for name in ["../x", "/etc/passwd", "LOCK", "a/000001.sst", "x.tmp", ""] {
            let mut m = meta();
            m.files[0].name = name.into();
            let e = BackupMeta::decode(&m.encode()).unwrap_err();
            assert!(e.1.contains("not a database file name"), "{name}: {e:?}");
        }
    }
}

//! The database's identity (`IDENTITY`, `docs/format/README.md`): a random 128-bit id
//! made when a writable open first finds none, so that a compaction worker can tell the
//! database it serves from any other (`compaction::worker`).
//!
//! ```text
//! IDENTITY := "twain-db " | 32 lowercase hex digits | "\n"
//! ```
//! It is written like `CURRENT`: a temporary file, synced, renamed, the directory synced.

use crate::error::IoContext;
use crate::fs::Fs;
use crate::{Error, Result};
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};

/// The file's first bytes.
const PREFIX: &str = "twain-db ";
/// Hex digits of an id.
const ID_DIGITS: usize = 32;

/// The path of the identity file.
pub fn identity_path(dir: &Path) -> PathBuf {
    dir.join("IDENTITY")
}

/// The file's contents for `id`.
pub fn encode(id: &str) -> String {
    format!("{PREFIX}{id}\n")
}

/// The id in `contents`, or what is wrong with them.
pub fn decode(contents: &[u8]) -> std::result::Result<String, String> {
    let text = std::str::from_utf8(contents).map_err(|_| "not UTF-8".to_string())?;
    let id = text
        .strip_prefix(PREFIX)
        .and_then(|t| t.strip_suffix('\n'))
        .ok_or_else(|| format!("not \"{PREFIX}<id>\\n\""))?;
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if id.len() != ID_DIGITS || !id.bytes().all(hex) {
        return Err(format!("the id is not {ID_DIGITS} lowercase hex digits"));
    }
    Ok(id.to_string())
}

/// The identity of the database in `dir`, if it has one.
pub fn read_identity(fs: &dyn Fs, dir: &Path) -> Result<Option<String>> {
    let path = identity_path(dir);
    if !fs.exists(&path).ctx("stat", &path)? {
        return Ok(None);
    }
    let file = fs.open_read(&path).ctx("open", &path)?;
    let len = file.len().ctx("stat", &path)?;
    let max = (PREFIX.len() + ID_DIGITS + 1) as u64;
    if len != max {
        return Err(Error::corruption(
            &path,
            len.min(max),
            format!("identity file has {len} bytes, not {max}"),
        ));
    }
    let bytes = file.read_vec(0, len as usize).ctx("read", &path)?;
    decode(&bytes)
        .map(Some)
        .map_err(|what| Error::corruption(&path, 0, format!("identity file: {what}")))
}

/// The identity of the database in `dir`, made (durably) if it has none. A damaged
/// identity is replaced by a new one: it holds no data, and the only cost is that a
/// worker started for the old one refuses the database until it is restarted.
pub fn ensure_identity(fs: &dyn Fs, dir: &Path) -> Result<String> {
    match read_identity(fs, dir) {
        Ok(Some(id)) => return Ok(id),
        Ok(None) | Err(Error::Corruption { .. }) => {}
        Err(e) => return Err(e),
    }
    let id = new_id();
    let tmp = dir.join("IDENTITY.tmp");
    let mut t = fs.create(&tmp).ctx("create", &tmp)?;
    t.append(encode(&id).as_bytes()).ctx("append", &tmp)?;
    t.sync_data().ctx("sync", &tmp)?;
    drop(t);
    let path = identity_path(dir);
    fs.rename(&tmp, &path).ctx("rename", &tmp)?;
    fs.sync_dir(dir).ctx("sync directory", dir)?;
    Ok(id)
}

/// A fresh random id: two hashers with the process's random keys, over the time and the
/// process id.
fn new_id() -> String {
    let word = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u32(std::process::id());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        h.write_u128(now);
        h.finish()
    };
    format!("{:016x}{:016x}", word(1), word(2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;

    #[test]
    fn an_identity_is_made_once_and_read_back() {
        let fs = MemFs::new();
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        assert_eq!(read_identity(&fs, dir).unwrap(), None);
        let id = ensure_identity(&fs, dir).unwrap();
        assert_eq!(id.len(), ID_DIGITS);
        assert_eq!(ensure_identity(&fs, dir).unwrap(), id);
        assert_eq!(read_identity(&fs, dir).unwrap(), Some(id.clone()));
        assert_ne!(new_id(), new_id());
        assert_eq!(decode(encode(&id).as_bytes()), Ok(id));
    }

    #[test]
    fn a_damaged_identity_is_corruption_and_a_writable_open_replaces_it() {
        let fs = MemFs::new();
        let dir = Path::new("/db");
        fs.create_dir_all(dir).unwrap();
        let good = ensure_identity(&fs, dir).unwrap();
        for bad in [
            "twain-db 0123\n",
            "twain-db 0123456789ABCDEF0123456789abcdef\n",
            "twain-xx 0123456789abcdef0123456789abcdef\n",
            "twain-db 0123456789abcdef0123456789abcdef ",
        ] {
            let mut f = fs.create(&identity_path(dir)).unwrap();
            f.append(bad.as_bytes()).unwrap();
            drop(f);
            let err = read_identity(&fs, dir).unwrap_err();
            assert!(
                matches!(err, Error::Corruption { .. }) && err.to_string().contains("IDENTITY"),
                "{bad:?}: {err}"
            );
            // A writable open replaces it.
            let new = ensure_identity(&fs, dir).unwrap();
            assert_ne!(new, good);
            assert_eq!(read_identity(&fs, dir).unwrap(), Some(new));
        }
    }
}

//! The committed header `include/twain.h` is what cbindgen generates from `src/` now (the
//! build script writes it to `$OUT_DIR`): a change to the C API that forgot the header
//! fails here. `TWAIN_C_BLESS=1` rewrites the committed header instead of failing.

use std::path::Path;

#[test]
fn committed_header_matches_the_generated_one() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/twain.h"));
    let committed_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/twain.h");
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if std::env::var_os("TWAIN_C_BLESS").is_some() {
        std::fs::write(&committed_path, generated).unwrap();
        eprintln!("rewrote {}", committed_path.display());
        return;
    }
    let first_difference = committed
        .lines()
        .zip(generated.lines())
        .position(|(c, g)| c != g)
        .map_or_else(
            || "in its length".to_string(),
            |i| format!("at line {}", i + 1),
        );
    panic!(
        "{} is stale: it differs from what cbindgen generates from src/ {first_difference}. \
         Run `TWAIN_C_BLESS=1 cargo test -p twain-c --test header` and commit the result.",
        committed_path.display()
    );
}

//! Generates the C header from the `extern "C"` functions of `src/` into `$OUT_DIR/twain.h`.
//! The committed `include/twain.h` is what C programs include; the `header` test fails when
//! it differs from this generated one (and rewrites it with `TWAIN_C_BLESS=1`).
//!
//! cbindgen reads the sources directly (`with_src`), not through `cargo metadata`: no
//! cargo run inside the build, and the crate's own files are all it needs.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src");
    let crate_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env("OUT_DIR")).join("twain.h");
    let config = match cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")) {
        Ok(config) => config,
        Err(e) => fail(&format!("cbindgen.toml: {e}")),
    };
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/lib.rs"))
        .generate();
    match bindings {
        Ok(bindings) => {
            bindings.write_to_file(&out);
        }
        Err(e) => fail(&format!("cbindgen: {e}")),
    }
}

/// An environment variable cargo sets for every build script.
fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| fail(&format!("{name} is not set")))
}

/// Stops the build with `why`.
fn fail(why: &str) -> ! {
    eprintln!("twain-c build script: {why}");
    std::process::exit(1)
}

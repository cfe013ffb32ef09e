//! Compiles the C test suite (`tests/c/test_api.c`) and the C example
//! (`examples/example.c`) with the system C compiler against the libraries cargo built for
//! this crate, runs them and checks their exit status; and runs the suite again under
//! AddressSanitizer where the compiler supports it.
//!
//! Where the libraries are: cargo builds this package's library, in all its crate types
//! (rlib, staticlib, cdylib), before the integration tests that link it, and into the
//! `deps` directory this test executable runs from. So `current_exe()`'s directory holds
//! the `libtwain_c.a` and `libtwain_c.so` of this very build, whatever the target
//! directory, profile or `--target`. (The copies one level up are refreshed by
//! `cargo build`, not by `cargo test`, and `CARGO_TARGET_TMPDIR/..` misses the triple
//! directory of a `--target` build.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate's directory.
fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding the libraries of this build (see the module doc).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .expect("the test executable's directory")
        .to_path_buf();
    for lib in ["libtwain_c.a", "libtwain_c.so"] {
        assert!(
            dir.join(lib).is_file(),
            "{lib} is not in {} beside the test executable",
            dir.display()
        );
    }
    dir
}

/// The C compiler: `$CC`, or `cc`.
fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Runs `cmd`, failing the test with its output if it fails.
fn run(mut cmd: Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Compiles `source` into `exe` with `flags`, linked against the static library.
fn compile_static(source: &Path, exe: &Path, flags: &[&str]) {
    let mut cmd = Command::new(cc());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g"])
        .args(flags)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg(source)
        .arg(lib_dir().join("libtwain_c.a"))
        // What a Rust staticlib needs from the C library on Linux.
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(exe);
    run(cmd, "compiling");
}

/// Runs a built C program on a fresh directory; returns its standard output.
fn run_program(exe: &Path, envs: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(exe);
    cmd.arg(dir.path()).envs(envs.iter().copied());
    String::from_utf8_lossy(&run(cmd, "the C program").stdout).into_owned()
}

#[test]
fn c_test_suite_passes() {
    let build = tempfile::tempdir().unwrap();
    let exe = build.path().join("test_api");
    compile_static(&crate_dir().join("tests/c/test_api.c"), &exe, &[]);
    let out = run_program(&exe, &[]);
    assert!(out.contains("twain C API tests passed"), "{out}");
}

#[test]
fn c_example_runs_against_the_shared_library() {
    let build = tempfile::tempdir().unwrap();
    let exe = build.path().join("example");
    let lib_dir = lib_dir();
    let mut cmd = Command::new(cc());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("examples/example.c"))
        .arg("-L")
        .arg(&lib_dir)
        .arg("-l:libtwain_c.so")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .arg("-o")
        .arg(&exe);
    run(cmd, "compiling the example");
    let out = run_program(&exe, &[]);
    for line in [
        "apple = red",
        "kiwi is missing",
        "banana = yellow",
        "cherry = dark red",
    ] {
        assert!(out.contains(line), "{line:?} missing from:\n{out}");
    }
    assert!(
        !out.contains("date ="),
        "the snapshot saw a later write:\n{out}"
    );
}

#[test]
fn c_test_suite_passes_under_address_sanitizer() {
    // Leak detection on: the suite frees every object and buffer it gets.
    let envs = [("ASAN_OPTIONS", "detect_leaks=1")];
    let build = tempfile::tempdir().unwrap();
    let probe_src = build.path().join("probe.c");
    std::fs::write(&probe_src, "int main(void) { return 0; }\n").unwrap();
    let probe = build.path().join("probe");
    let supported = Command::new(cc())
        .args(["-fsanitize=address", "-o"])
        .arg(&probe)
        .arg(&probe_src)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(&probe)
            .envs(envs)
            .status()
            .is_ok_and(|s| s.success());
    if !supported {
        eprintln!(
            "note: {} cannot build or run a program with -fsanitize=address here; \
             the AddressSanitizer run of the C suite is skipped",
            cc()
        );
        return;
    }
    let exe = build.path().join("test_api_asan");
    compile_static(
        &crate_dir().join("tests/c/test_api.c"),
        &exe,
        &["-fsanitize=address", "-fno-omit-frame-pointer"],
    );
    let out = run_program(&exe, &envs);
    assert!(out.contains("twain C API tests passed"), "{out}");
}

/// Every function the header declares is called by the C suite, so a new function cannot
/// go untested from C.
#[test]
fn c_test_suite_calls_every_function_of_the_header() {
    let header = std::fs::read_to_string(crate_dir().join("include/twain.h")).unwrap();
    let suite = std::fs::read_to_string(crate_dir().join("tests/c/test_api.c")).unwrap();
    let declared: Vec<&str> = header
        .lines()
        .filter(|l| !l.starts_with([' ', '*', '/', '#']))
        .filter_map(|l| l.split_once('(').map(|(head, _)| head))
        .filter_map(|head| head.rsplit([' ', '*']).next())
        .filter(|name| name.starts_with("twain_"))
        .collect();
    assert!(declared.len() >= 30, "found only {declared:?}");
    let uncalled: Vec<&&str> = declared
        .iter()
        .filter(|name| !suite.contains(&format!("{name}(")))
        .collect();
    assert!(uncalled.is_empty(), "the C suite never calls {uncalled:?}");
}

/// The header works from C++ too (`tests/c/smoke.cpp`); skipped without a C++ compiler
/// (`$CXX`, or `c++`), which a machine with only `gcc` lacks.
#[test]
fn cpp_smoke_program_runs() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if !Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("note: no C++ compiler ({cxx}); the C++ smoke program is skipped");
        return;
    }
    let build = tempfile::tempdir().unwrap();
    let exe = build.path().join("smoke");
    let mut cmd = Command::new(&cxx);
    cmd.args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c/smoke.cpp"))
        .arg(lib_dir().join("libtwain_c.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
    run(cmd, "compiling the C++ smoke program");
    let out = run_program(&exe, &[]);
    assert!(out.contains("C++ smoke passed"), "{out}");
}

/// The README's example compiles and prints the value it wrote.
#[test]
fn readme_example_runs() {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    let section = readme
        .split_once("## Example")
        .expect("the README has an Example section")
        .1;
    let code = section
        .split_once("```c\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("a C block in the Example section")
        .0;
    let build = tempfile::tempdir().unwrap();
    let db = build.path().join("db");
    let source = build.path().join("readme.c");
    std::fs::write(&source, code.replace("/tmp/my-db", db.to_str().unwrap())).unwrap();
    let exe = build.path().join("readme");
    compile_static(&source, &exe, &[]);
    let out = run(Command::new(&exe), "the README example");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "red\n");
}

//! Issue 16, item 4: `twain --version` names the git commit of the build (build.rs asks
//! git; "unknown" without git or a repository, which never fails the build).

use crate::cliutil;

use cliutil::ok;
use std::process::Command;

#[test]
fn version_names_the_commit_of_the_build() {
    let shown = ok(&["--version"]);
    let rest = shown
        .strip_prefix(&format!("twain {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("unexpected --version: {shown:?}"));
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match head {
        // Built from this repository: its HEAD (build.rs reruns when HEAD moves).
        Some(head) => assert_eq!(rest, head),
        None => assert_eq!(rest, "unknown"),
    }
}

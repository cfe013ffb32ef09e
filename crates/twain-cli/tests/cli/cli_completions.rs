//! Issue 16, item 4: `twain completions SHELL` prints a completion script generated from
//! the command-line definition (clap_complete), naming the subcommands and their options.

use crate::cliutil;

use cliutil::{ok, twain};

#[test]
fn completions_for_bash_zsh_and_fish_name_the_commands() {
    let bash = ok(&["completions", "bash"]);
    assert!(bash.contains("complete -F _twain"), "{bash}");
    let zsh = ok(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef twain"), "{zsh}");
    let fish = ok(&["completions", "fish"]);
    assert!(fish.contains("complete -c twain"), "{fish}");
    for script in [&bash, &zsh, &fish] {
        // Fish names long options without their dashes (`-l skip-bad`).
        for word in ["scan", "import", "prefix", "skip-bad"] {
            assert!(script.contains(word), "{word} missing from {script}");
        }
    }
    assert!(fish.contains("-l skip-bad"), "{fish}");
    let out = twain(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn the_bash_script_is_valid_bash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twain.bash");
    std::fs::write(&path, ok(&["completions", "bash"])).unwrap();
    let Ok(out) = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .output()
    else {
        // No bash on this machine: the other test checks the script's content.
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

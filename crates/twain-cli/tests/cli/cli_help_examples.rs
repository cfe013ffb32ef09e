//! Issue 16, item 4: the help of every everyday command ends with examples, and `put` /
//! `get` / `delete` describe their arguments (their descriptions were empty).

use crate::cliutil;

use cliutil::ok;

#[test]
fn everyday_commands_show_examples() {
    for command in [
        "put", "get", "delete", "scan", "import", "stats", "gc", "check", "dump",
    ] {
        let help = ok(&[command, "--help"]);
        let examples = help
            .split_once("\nExample")
            .map(|(_, e)| e)
            .unwrap_or_else(|| panic!("no examples in `twain {command} --help`:\n{help}"));
        assert!(
            examples.contains(&format!(" {command}")),
            "the examples of {command} do not run it:\n{help}"
        );
    }
    for command in ["put", "get", "delete"] {
        let help = ok(&[command, "--help"]);
        assert!(
            help.contains("<KEY>") && help.contains("The key ("),
            "{help}"
        );
    }
}

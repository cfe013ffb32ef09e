//! Issue 19, finding 9: `--threads 100000` aborted the server at its first connection.
//! Every numeric option of `twain serve` now has a documented range (docs/server.md), and a
//! value outside it is refused at start with an error naming the option and the range, both
//! from the command line and from a `Config` given to `Server::bind`.

use clap::Parser;
use twain_server::{Config, ServeArgs, Server, ServerError};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn parse(args: &[&str]) -> Result<Config, String> {
    let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    cli.serve.to_config().map_err(|e| e.to_string())
}

#[test]
fn every_numeric_option_is_checked_against_its_range() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("threads", &["0", "1025", "100000"], "1 to 1024"),
        ("max-clients", &["0", "1000001"], "1 to 1000000"),
        ("timeout", &["604801"], "0 to 604800"),
        ("request-timeout", &["86401"], "0 to 86400"),
        ("max-bulk", &["0", "65M"], "1 to 67108864"),
        ("max-args", &["0", "1048577"], "1 to 1048576"),
        ("max-request", &["512", "5G"], "1024 to 4294967296"),
        ("max-output", &["1K", "5G"], "1048576 to 4294967296"),
    ];
    for (flag, bad, range) in cases {
        for value in *bad {
            let err = parse(&[&format!("--{flag}"), value]).unwrap_err();
            assert!(
                err.contains(&format!("--{flag}")) && err.contains(range),
                "--{flag} {value}: {err}"
            );
        }
    }
    let good = parse(&[
        "--threads",
        "1024",
        "--max-clients",
        "1",
        "--timeout",
        "0",
        "--request-timeout",
        "86400",
        "--max-bulk",
        "64M",
        "--max-args",
        "1",
        "--max-request",
        "1K",
        "--max-output",
        "1M",
    ])
    .unwrap();
    assert_eq!(good.threads, Some(1024));
    assert_eq!(good.request_timeout.map(|d| d.as_secs()), Some(86_400));
    assert!(
        parse(&["--max-request", "lots"])
            .unwrap_err()
            .contains("not a size")
    );
    assert!(parse(&["--threads", "99999999999999999999999"]).is_err());
}

#[test]
fn a_config_out_of_range_is_refused_by_bind() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::new(dir.path());
    config.threads = Some(100_000);
    match Server::bind(config) {
        Err(ServerError::InvalidOption(msg)) => assert!(msg.contains("--threads"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

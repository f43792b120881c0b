//! Command-line parsing: global flags, `--version`, `--help`, and `rpc`.

use crate::log::{Level, Logger};

pub const NAME: &str = "duet-rpc";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

const HELP: &str = "\
duet-rpc: a JSON-RPC 2.0 daemon over stdio

Usage: duet-rpc [OPTIONS] <COMMAND>

Commands:
  rpc    Serve JSON-RPC 2.0 on stdin/stdout (Content-Length framing)

Options:
  --log-level <LEVEL>  debug, info, warn or error (default: info)
  --no-color           Plain log lines, without colours
  -h, --help           Print this help
  -V, --version        Print the version

Environment:
  DUET_RPC_LOG=<path>  Write logs to this file instead of stderr
";

/// Runs the command line; returns the process's exit code.
pub fn run(args: Vec<String>) -> i32 {
    let mut level = Level::Info;
    let mut color = true;
    let mut command = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return 0;
            }
            "-V" | "--version" => {
                println!("{NAME} {VERSION}");
                return 0;
            }
            "--no-color" => color = false,
            "--log-level" => match args.next().as_deref().and_then(Level::parse) {
                Some(parsed) => level = parsed,
                None => return usage("--log-level takes debug, info, warn or error"),
            },
            flag if flag.starts_with("--log-level=") => match Level::parse(&flag["--log-level=".len()..]) {
                Some(parsed) => level = parsed,
                None => return usage("--log-level takes debug, info, warn or error"),
            },
            "rpc" if command.is_none() => command = Some("rpc"),
            other => return usage(&format!("unexpected argument '{other}'")),
        }
    }
    match command {
        Some("rpc") => {
            let logger = match Logger::open(level, color, std::env::var_os("DUET_RPC_LOG")) {
                Ok(logger) => logger,
                Err(error) => {
                    eprintln!("{NAME}: cannot open the log file: {error}");
                    return 1;
                }
            };
            crate::daemon::serve(logger)
        }
        _ => usage("a command is required"),
    }
}

fn usage(problem: &str) -> i32 {
    eprintln!("{NAME}: {problem}\n\n{HELP}");
    2
}

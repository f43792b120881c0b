//! The `duet-rpc rpc` daemon, driven over real pipes: every acceptance
//! criterion of its story (methods, framing, protocol behaviour, lifecycle,
//! signals, flags).
#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value as Json};
use wiggum_rpc::core::framing::{encode, Decoder, Frame};

const BINARY: &str = env!("CARGO_BIN_EXE_duet-rpc");

struct Daemon {
    child: Child,
    stdin: Option<ChildStdin>,
    responses: Receiver<Json>,
    stderr: Receiver<String>,
}

impl Daemon {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Daemon {
        let mut command = Command::new(BINARY);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("the daemon starts");
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (to_test, responses) = mpsc::channel();
        thread::spawn(move || {
            let mut decoder = Decoder::new();
            let mut buffer = [0; 4096];
            while let Ok(read) = stdout.read(&mut buffer) {
                if read == 0 {
                    return;
                }
                for frame in decoder.push(&buffer[..read]) {
                    let Frame::Message(text) = frame else { panic!("stdout carries only well-formed frames") };
                    let value = serde_json::from_str(&text).expect("stdout carries only JSON");
                    if to_test.send(value).is_err() {
                        return;
                    }
                }
            }
        });
        let (log_lines, stderr_lines) = mpsc::channel();
        thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            let _ = log_lines.send(text);
        });
        Daemon { stdin: child.stdin.take(), child, responses, stderr: stderr_lines }
    }

    fn rpc() -> Daemon {
        Daemon::start(&["rpc"], &[])
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Json) {
        self.send_raw(&encode(&message.to_string()));
    }

    fn response(&self) -> Json {
        self.responses.recv_timeout(Duration::from_secs(5)).expect("a response within 5 s")
    }

    fn call(&mut self, message: Json) -> Json {
        self.send(&message);
        self.response()
    }

    fn no_response(&self, within: Duration) {
        if let Ok(unexpected) = self.responses.recv_timeout(within) {
            panic!("unexpected response {unexpected}");
        }
    }

    fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the exit; returns its status and everything logged.
    fn exit(mut self, within: Duration) -> (ExitStatus, String) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let log = self.stderr.recv_timeout(Duration::from_secs(5)).unwrap_or_default();
                return (status, log);
            }
            if started.elapsed() > within {
                let _ = self.child.kill();
                panic!("the daemon did not exit within {within:?}");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill").arg(format!("-{name}")).arg(self.child.id().to_string()).status().unwrap();
        assert!(status.success());
    }
}

fn request(id: Json, method: &str, params: Option<Json>) -> Json {
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    message
}

fn error_code(response: &Json) -> i64 {
    response["error"]["code"].as_i64().unwrap_or_else(|| panic!("an error response: {response}"))
}

#[test]
fn initialize_and_version_report_the_crate_version() {
    let mut daemon = Daemon::rpc();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        daemon.call(request(json!(1), "initialize", None)),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"serverInfo": {"name": "duet-rpc", "version": version}, "protocolVersion": "2.0"}})
    );
    assert_eq!(daemon.call(request(json!(2), "version", None))["result"], json!({"version": version}));
    assert!(version.split('.').count() == 3 && !version.contains('+'), "strict SemVer without build metadata");
}

#[test]
fn list_and_describe_methods_cover_all_six() {
    let mut daemon = Daemon::rpc();
    let names = ["initialize", "listMethods", "describeMethods", "version", "setLogLevel", "shutdown"];
    let listed = daemon.call(request(json!(1), "listMethods", None))["result"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 6);
    for (entry, name) in listed.as_array().unwrap().iter().zip(names) {
        assert_eq!(entry["name"], json!(name));
        assert!(entry["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
    let described = daemon.call(request(json!(2), "describeMethods", None))["result"].clone();
    assert_eq!(described.as_array().unwrap().len(), 6);
    for (entry, name) in described.as_array().unwrap().iter().zip(names) {
        assert_eq!(entry["name"], json!(name));
        assert!(entry["params"].is_array());
        assert!(entry["returns"].as_str().is_some_and(|r| !r.is_empty()));
    }
    assert_eq!(described[4]["params"], json!(["level: string"]));
}

#[test]
fn set_log_level_normalises_case_and_refuses_unknown_levels() {
    let mut daemon = Daemon::rpc();
    for (given, normalised) in
        [("debug", "debug"), ("DEBUG", "debug"), ("Info", "info"), ("WARN", "warn"), ("error", "error")]
    {
        let response = daemon.call(request(json!(given), "setLogLevel", Some(json!({"level": given}))));
        assert_eq!(response["result"], json!({"level": normalised, "success": true}), "{given}");
    }
    let response = daemon.call(request(json!(9), "setLogLevel", Some(json!({"level": "verbose"}))));
    assert_eq!(error_code(&response), -32602);
    assert_eq!(response["error"]["data"]["expected"], json!(["debug", "info", "warn", "error"]));
    assert_eq!(response["error"]["data"]["param"], json!("level"));
    assert_eq!(response["error"]["data"]["received"], json!("verbose"));
    let missing = daemon.call(request(json!(10), "setLogLevel", None));
    assert_eq!(error_code(&missing), -32602, "missing params");
    assert_eq!(missing["error"]["data"]["param"], json!("level"));
}

#[test]
fn set_log_level_debug_turns_on_debug_logs() {
    let mut daemon = Daemon::rpc();
    daemon.call(request(json!(1), "version", None));
    daemon.call(request(json!(2), "setLogLevel", Some(json!({"level": "debug"}))));
    daemon.call(request(json!(3), "version", None));
    daemon.close_stdin();
    let (_, log) = daemon.exit(Duration::from_secs(2));
    assert_eq!(log.matches("DEBUG <- ").count(), 1, "only the request after setLogLevel is logged: {log}");
}

#[test]
fn shutdown_answers_then_exits_zero_within_two_seconds() {
    let mut daemon = Daemon::rpc();
    let response = daemon.call(request(json!("bye"), "shutdown", None));
    assert_eq!(response, json!({"jsonrpc": "2.0", "id": "bye", "result": {"message": "Shutting down gracefully"}}));
    let (status, _) = daemon.exit(Duration::from_secs(2));
    assert!(status.success(), "{status}");
}

#[test]
fn stdin_eof_exits_zero_and_says_so() {
    let mut daemon = Daemon::rpc();
    daemon.call(request(json!(1), "version", None));
    daemon.close_stdin();
    let (status, log) = daemon.exit(Duration::from_secs(2));
    assert!(status.success());
    assert!(log.contains("INFO  stdin closed, shutting down gracefully"), "{log}");
}

#[test]
fn signals_exit_zero_within_two_seconds() {
    for signal in ["INT", "TERM", "HUP"] {
        let mut daemon = Daemon::rpc();
        daemon.call(request(json!(1), "version", None));
        daemon.signal(signal);
        let (status, log) = daemon.exit(Duration::from_secs(2));
        assert!(status.success(), "SIG{signal}: {status}");
        assert!(log.contains(&format!("INFO  received SIG{signal}, shutting down gracefully")), "{log}");
    }
}

#[test]
fn the_five_error_codes() {
    let mut daemon = Daemon::rpc();
    daemon.send_raw(&encode(r#"{"jsonrpc": "2.0", "method": "version", "id": 1"#));
    assert_eq!(
        daemon.response(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})
    );
    assert_eq!(error_code(&daemon.call(json!({"method": "version", "id": 2}))), -32600, "missing jsonrpc");
    assert_eq!(error_code(&daemon.call(request(json!(3), "nope", None))), -32601);
    assert_eq!(error_code(&daemon.call(request(json!(4), "setLogLevel", Some(json!({}))))), -32602);
    assert_eq!(daemon.call(request(json!(5), "version", None))["result"]["version"], json!(env!("CARGO_PKG_VERSION")));
}

#[test]
fn null_params_are_read_as_none_as_jsonrpc_el_sends_them() {
    let mut daemon = Daemon::rpc();
    let response = daemon.call(json!({"jsonrpc": "2.0", "id": 1, "method": "version", "params": null}));
    assert_eq!(response["result"]["version"], json!(env!("CARGO_PKG_VERSION")));
    let response = daemon.call(json!({"jsonrpc": "2.0", "id": 2, "method": "version", "params": 3}));
    assert_eq!(error_code(&response), -32600, "other non-structured params are still refused");
}

#[test]
fn batches_are_refused_as_the_story_asks() {
    let mut daemon = Daemon::rpc();
    let response = daemon.call(json!([request(json!(1), "version", None), request(json!(2), "version", None)]));
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Batch requests not supported"}})
    );
    assert_eq!(error_code(&daemon.call(json!([]))), -32600);
}

#[test]
fn notifications_get_no_response_and_unknown_ones_are_logged() {
    let mut daemon = Daemon::rpc();
    daemon.send(&json!({"jsonrpc": "2.0", "method": "setLogLevel", "params": {"level": "warn"}}));
    daemon.send(&json!({"jsonrpc": "2.0", "method": "somethingElse", "params": [1]}));
    daemon.no_response(Duration::from_millis(300));
    assert_eq!(daemon.call(request(json!(1), "version", None))["id"], json!(1), "still serving");
    daemon.close_stdin();
    let (_, log) = daemon.exit(Duration::from_secs(2));
    assert!(log.contains("WARN  notification of unknown method 'somethingElse' ignored"), "{log}");
    assert!(!log.contains("stdin closed"), "the setLogLevel notification raised the level to warn: {log}");
}

#[test]
fn ids_are_echoed_exactly_and_bad_ids_refused() {
    let mut daemon = Daemon::rpc();
    for id in [json!("abc"), json!(7), json!(-1.5), json!(null), json!("7"), json!(9007199254740993u64)] {
        assert_eq!(daemon.call(request(id.clone(), "version", None))["id"], id);
    }
    for id in [json!({"a": 1}), json!([1]), json!(true)] {
        let response = daemon.call(request(id.clone(), "version", None));
        assert_eq!((error_code(&response), response["id"].clone()), (-32600, Json::Null), "{id}");
    }
}

#[test]
fn responses_keep_request_order() {
    let mut daemon = Daemon::rpc();
    let mut burst = Vec::new();
    for id in 0..50 {
        let method = ["version", "initialize", "nope", "listMethods"][id % 4];
        burst.extend(encode(&request(json!(id), method, None).to_string()));
    }
    daemon.send_raw(&burst);
    for id in 0..50 {
        assert_eq!(daemon.response()["id"], json!(id));
    }
}

#[test]
fn framing_rules() {
    let mut daemon = Daemon::rpc();
    let body = request(json!(1), "version", None).to_string();
    for content_type in [
        "application/vscode-jsonrpc; charset=utf-8",
        "application/vscode-jsonrpc; charset=UTF-8",
        "application/vscode-jsonrpc; charset=utf8",
    ] {
        let frame =
            format!("Content-Length: {}\r\nContent-Type: {content_type}\r\nX-Unknown: yes\r\n\r\n{body}", body.len());
        daemon.send_raw(frame.as_bytes());
        assert_eq!(daemon.response()["id"], json!(1), "{content_type}");
    }
    for content_type in ["application/json", "application/vscode-jsonrpc; charset=iso-8859-1"] {
        let frame = format!("Content-Length: {}\r\nContent-Type: {content_type}\r\n\r\n{body}", body.len());
        daemon.send_raw(frame.as_bytes());
        assert_eq!(error_code(&daemon.response()), -32600, "{content_type}");
    }
    // Content-Length one byte short: the body is cut, so it is not JSON.
    daemon.send_raw(format!("Content-Length: {}\r\n\r\n{body} ", body.len() - 1).as_bytes());
    assert_eq!(error_code(&daemon.response()), -32700, "length mismatch");
    // Over 10 MB: refused without being read into memory, then back in step.
    let huge = 10 * 1024 * 1024 + 1;
    daemon.send_raw(format!("Content-Length: {huge}\r\n\r\n").as_bytes());
    assert_eq!(error_code(&daemon.response()), -32600, "over 10 MB, answered before its body");
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..10 {
        daemon.send_raw(&chunk);
    }
    daemon.send_raw(b" ");
    // A non-ASCII payload: the length counts bytes, not characters.
    let unicode = request(json!("é✓"), "setLogLevel", Some(json!({"level": "ÍNFO✓"})));
    let response = daemon.call(unicode);
    assert_eq!((response["id"].clone(), error_code(&response)), (json!("é✓"), -32602));
    assert_eq!(response["error"]["data"]["received"], json!("ÍNFO✓"));
}

#[test]
fn a_partial_message_is_discarded_after_the_read_timeout() {
    let mut daemon = Daemon::start(&["rpc"], &[("DUET_RPC_READ_TIMEOUT_MS", "300")]);
    daemon.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":");
    thread::sleep(Duration::from_millis(800));
    assert_eq!(daemon.call(request(json!(1), "version", None))["id"], json!(1), "serving again");
    daemon.close_stdin();
    let (status, log) = daemon.exit(Duration::from_secs(2));
    assert!(status.success());
    assert!(log.contains("incomplete message discarded"), "{log}");
}

#[test]
fn cli_flags_version_help_and_log_file() {
    let version = Command::new(BINARY).arg("--version").output().unwrap();
    assert!(version.status.success());
    assert_eq!(String::from_utf8_lossy(&version.stdout), format!("duet-rpc {}\n", env!("CARGO_PKG_VERSION")));
    let help = Command::new(BINARY).arg("--help").output().unwrap();
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("rpc"));
    assert_eq!(Command::new(BINARY).arg("--bogus").output().unwrap().status.code(), Some(2));

    let mut daemon = Daemon::start(&["--log-level", "debug", "--no-color", "rpc"], &[]);
    daemon.call(request(json!(1), "version", None));
    daemon.close_stdin();
    let (_, log) = daemon.exit(Duration::from_secs(2));
    assert!(log.contains("DEBUG <- ") && !log.contains('\x1b'), "debug logs on stderr, no colour: {log}");

    let file = std::env::temp_dir().join(format!("duet-rpc-test-{}.log", std::process::id()));
    let mut daemon = Daemon::start(&["rpc"], &[("DUET_RPC_LOG", file.to_str().unwrap())]);
    daemon.call(request(json!(1), "version", None));
    daemon.close_stdin();
    let (status, stderr) = daemon.exit(Duration::from_secs(2));
    assert!(status.success());
    assert_eq!(stderr, "", "logs go to the file, not stderr");
    let logged = std::fs::read_to_string(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    assert!(logged.contains("stdin closed, shutting down gracefully"), "{logged}");
}

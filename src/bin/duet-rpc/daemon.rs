//! The stdio daemon: a reader thread and a signal thread feed one loop, which
//! decodes frames, hands each to the core's [`Endpoint`] (the same one the
//! browser runs), runs each request to completion in arrival order, and
//! writes framed responses to stdout (and nothing else there).

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use serde_json::Value as Json;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use wiggum_rpc::core::framing::{encode, refusal_body, Decoder, Frame};
use wiggum_rpc::core::{
    code, json, BatchPolicy, Batching, Cancellation, Config, Dialect, Endpoint, ErrorObject, Event, Framing, Handshake,
    Limits, Roles, TextRefusal,
};

use crate::log::Logger;
use crate::methods::{self, Method};

/// How long a partly received message may wait for the rest of its bytes.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

enum Input {
    Bytes(Vec<u8>),
    Eof,
    Failed(io::Error),
    Signal(i32),
}

/// Serves until shutdown, end of input or a signal; returns the exit code.
pub fn serve(logger: Logger) -> i32 {
    let (sender, inputs) = mpsc::channel();
    let mut signals = match Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(signals) => signals,
        Err(error) => {
            logger.error(&format!("cannot install signal handlers: {error}"));
            return 1;
        }
    };
    let to_loop = sender.clone();
    thread::spawn(move || {
        for signal in signals.forever() {
            if to_loop.send(Input::Signal(signal)).is_err() {
                return;
            }
        }
    });
    thread::spawn(move || read_stdin(sender));

    let shutdown = Rc::new(Cell::new(false));
    // A server toward peers that never say hello: spec behaviour, no
    // batches (refused, as LSP-style peers expect), `"params": null` as none.
    let mut endpoint = Endpoint::new(Config {
        roles: Roles::SERVER,
        handshake: Handshake::Off,
        batching: Batching::Never,
        batch_policy: BatchPolicy::Reject,
        null_params_absent: true,
        cancellation: Cancellation::Lsp,
        // Seed 004's 10 MB rule is the framing decoder's, before any text is parsed.
        limits: Limits::DEFAULT,
        dialect: Dialect::Plain,
        packed: false,
        meta: false,
        #[cfg(feature = "references")]
        references: false,
    });
    methods::register(&mut endpoint, &logger, shutdown.clone());
    let mut decoder = Decoder::new();
    let read_timeout = std::env::var("DUET_RPC_READ_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(READ_TIMEOUT, Duration::from_millis);
    logger.info(&format!("serving JSON-RPC 2.0 on stdio (duet-rpc {})", crate::cli::VERSION));

    loop {
        let input = if decoder.is_partial() {
            match inputs.recv_timeout(read_timeout) {
                Ok(input) => input,
                Err(RecvTimeoutError::Timeout) => {
                    logger.warn(&format!(
                        "incomplete message discarded after {} s without more input",
                        read_timeout.as_secs_f64()
                    ));
                    decoder.reset();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => Input::Eof,
            }
        } else {
            inputs.recv().unwrap_or(Input::Eof)
        };
        match input {
            Input::Bytes(bytes) => {
                for frame in decoder.push(&bytes) {
                    handle(frame, &mut endpoint, &logger);
                    if shutdown.get() {
                        logger.info("shutdown requested, shutting down gracefully");
                        return 0;
                    }
                }
            }
            Input::Eof => {
                logger.info("stdin closed, shutting down gracefully");
                return 0;
            }
            Input::Signal(signal) => {
                let name = match signal {
                    SIGINT => "SIGINT",
                    SIGTERM => "SIGTERM",
                    _ => "SIGHUP",
                };
                logger.info(&format!("received {name}, shutting down gracefully"));
                return 0;
            }
            Input::Failed(error) => {
                logger.error(&format!("cannot read stdin: {error}"));
                return 1;
            }
        }
    }
}

fn read_stdin(sender: mpsc::Sender<Input>) {
    let mut stdin = io::stdin().lock();
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let input = match stdin.read(&mut buffer) {
            Ok(0) => Input::Eof,
            Ok(read) => Input::Bytes(buffer[..read].to_vec()),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => Input::Failed(error),
        };
        let last = !matches!(input, Input::Bytes(_));
        if sender.send(input).is_err() || last {
            return;
        }
    }
}

/// Answers one frame: requests run to completion before the next frame, so
/// responses leave in the order requests arrived.
fn handle(frame: Frame, endpoint: &mut Endpoint<Json, Method, ()>, logger: &Logger) {
    match frame {
        Frame::Message(text) => {
            logger.debug(&format!("<- {text}"));
            match json::parse(&text) {
                Some(value) => endpoint.receive(&value, Framing::Text),
                None => endpoint.receive_refused(TextRefusal::NotJson),
            }
        }
        Frame::Error(error) => {
            // The framing refused the bytes before any JSON-RPC was read.
            logger.warn(&format!("refused a frame: {}", error.message));
            write(&refusal_body(&error), logger);
        }
    }
    // One frame is one turn: what the endpoint queued for the end of it goes now.
    while let Some(event) = endpoint.poll() {
        match event {
            Event::Transmit(transmit) => write(&json::transmit(&transmit).to_string(), logger),
            Event::Invoke { call, handler, params, .. } => endpoint.complete(call, run(&handler, params, logger)),
            Event::Notify { handler, params } => {
                if let Err(error) = run(&handler, params, logger) {
                    logger.warn(&format!("a notification failed: {}", error.message));
                }
            }
            Event::Unhandled { method } => logger.warn(&format!("notification of unknown method '{method}' ignored")),
            Event::ScheduleFlush => endpoint.flush(),
            // A server that makes no calls and keeps no sessions: nothing settles, nothing streams to it.
            Event::Settled { .. }
            | Event::Progress { .. }
            | Event::Chunk { .. }
            | Event::Cancelled { .. }
            | Event::PeerReady(_)
            | Event::WatchPeer(_)
            | Event::MayStream { .. }
            | Event::CheckExpired { .. }
            | Event::DeadlinePassed { .. }
            | Event::SessionEnded => {}
            // It offers none: nothing is ever by reference here.
            #[cfg(feature = "references")]
            Event::References(_) => {}
        }
    }
}

/// Runs a handler; a panic becomes `-32603` and the daemon stays up.
fn run(handler: &Method, params: Option<Json>, logger: &Logger) -> Result<Json, ErrorObject<Json>> {
    catch_unwind(AssertUnwindSafe(|| handler.call(params))).unwrap_or_else(|_| {
        logger.error("a handler failed unexpectedly");
        Err(ErrorObject::standard(code::INTERNAL_ERROR))
    })
}

fn write(body: &str, logger: &Logger) {
    logger.debug(&format!("-> {body}"));
    let mut stdout = io::stdout().lock();
    if let Err(error) = stdout.write_all(&encode(body)).and_then(|()| stdout.flush()) {
        logger.error(&format!("cannot write to stdout: {error}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_handler_answers_internal_error_and_the_daemon_goes_on() {
        let logger = Logger::open(crate::log::Level::Error, false, None).unwrap();
        let panicking = Method::new(|_| panic!("handler bug"));
        let outcome = run(&panicking, None, &logger);
        assert_eq!(outcome.unwrap_err().code, code::INTERNAL_ERROR);
        let working = Method::new(|_| Ok(Json::Null));
        assert_eq!(run(&working, None, &logger).unwrap(), Json::Null);
    }
}

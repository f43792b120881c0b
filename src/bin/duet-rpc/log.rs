//! Logging to stderr or to the file named by `DUET_RPC_LOG`; never to stdout,
//! which carries only framed responses.

use std::cell::Cell;
use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{self, IsTerminal, Write};
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    pub const NAMES: [&'static str; 4] = ["debug", "info", "warn", "error"];

    /// Parses a level name, in any case.
    pub fn parse(name: &str) -> Option<Level> {
        match name.to_ascii_lowercase().as_str() {
            "debug" => Some(Level::Debug),
            "info" => Some(Level::Info),
            "warn" => Some(Level::Warn),
            "error" => Some(Level::Error),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A logger whose level can change while the daemon runs (`setLogLevel`).
#[derive(Clone)]
pub struct Logger {
    level: Rc<Cell<Level>>,
    sink: Rc<std::cell::RefCell<Box<dyn Write>>>,
    color: bool,
}

impl Logger {
    pub fn open(level: Level, color: bool, file: Option<OsString>) -> io::Result<Logger> {
        let (sink, color): (Box<dyn Write>, bool) = match file {
            Some(path) => (Box::new(OpenOptions::new().create(true).append(true).open(path)?), false),
            None => (Box::new(io::stderr()), color && io::stderr().is_terminal()),
        };
        Ok(Logger { level: Rc::new(Cell::new(level)), sink: Rc::new(std::cell::RefCell::new(sink)), color })
    }

    pub fn set_level(&self, level: Level) {
        self.level.set(level);
    }

    pub fn log(&self, level: Level, message: &str) {
        if level < self.level.get() {
            return;
        }
        let tag = level.name().to_ascii_uppercase();
        let line = if self.color {
            let paint = match level {
                Level::Debug => "2",
                Level::Info => "32",
                Level::Warn => "33",
                Level::Error => "31",
            };
            format!("\x1b[{paint}m{tag:5}\x1b[0m {message}\n")
        } else {
            format!("{tag:5} {message}\n")
        };
        let mut sink = self.sink.borrow_mut();
        // Logging must never take the daemon down.
        let _ = sink.write_all(line.as_bytes()).and_then(|()| sink.flush());
    }

    pub fn debug(&self, message: &str) {
        self.log(Level::Debug, message);
    }

    pub fn info(&self, message: &str) {
        self.log(Level::Info, message);
    }

    pub fn warn(&self, message: &str) {
        self.log(Level::Warn, message);
    }

    pub fn error(&self, message: &str) {
        self.log(Level::Error, message);
    }
}

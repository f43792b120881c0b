//! Content-Length framing (the LSP's base protocol), as a sans-IO codec: feed
//! bytes in any chunking, take whole messages out. Partial input is not an
//! error; it waits for more.
//!
//! A frame is `Content-Length: N\r\n` (required, the body's byte count),
//! optionally `Content-Type: application/vscode-jsonrpc; charset=utf-8`
//! (charset `utf-8` or `utf8`, any case), any other header (ignored), a blank
//! line, then N bytes of UTF-8 JSON.

use crate::prelude::*;

use alloc::borrow::Cow;

use super::error::{code, ErrorObject};

/// The largest body accepted: larger ones are refused without being buffered.
pub const MAX_BODY: usize = 10 * 1024 * 1024;
/// Headers longer than this cannot be a frame's: the stream is resynchronised.
const MAX_HEADERS: usize = 8 * 1024;

/// What one frame turned out to be.
#[derive(Clone, Debug, PartialEq)]
pub enum Frame {
    /// The body of a well-formed frame, as UTF-8 text (not yet parsed as JSON).
    Message(String),
    /// A frame that cannot be taken: answer with this error (id null) and go on.
    Error(ErrorObject<()>),
}

#[derive(Debug)]
enum State {
    /// Reading the header block.
    Headers,
    /// Reading a body of this many bytes.
    Body(usize),
    /// Skipping the body of a refused frame (already answered): this many bytes to go.
    Skip(usize),
}

/// The incremental decoder. Memory stays bounded: at most one header block
/// (8 KB) or one body (10 MB) is buffered, whatever the input.
#[derive(Debug)]
pub struct Decoder {
    buffer: Vec<u8>,
    state: State,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder { buffer: Vec::new(), state: State::Headers }
    }
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes and returns every frame they complete, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Frame> {
        let mut frames = Vec::new();
        // What is left to read: the input, or what followed a header block.
        let mut input = Cow::Borrowed(bytes);
        let mut at = 0;
        while at < input.len() || matches!(self.state, State::Body(0) | State::Skip(0)) {
            let bytes = &input[at..];
            match &mut self.state {
                State::Skip(remaining) => {
                    let skipped = (*remaining).min(bytes.len());
                    *remaining -= skipped;
                    at += skipped;
                    if *remaining == 0 {
                        self.state = State::Headers;
                    }
                }
                State::Body(length) => {
                    let taken = (*length - self.buffer.len()).min(bytes.len());
                    self.buffer.extend_from_slice(&bytes[..taken]);
                    at += taken;
                    if self.buffer.len() == *length {
                        self.state = State::Headers;
                        frames.push(match String::from_utf8(core::mem::take(&mut self.buffer)) {
                            Ok(text) => Frame::Message(text),
                            Err(_) => {
                                Frame::Error(ErrorObject::new(code::PARSE_ERROR, "Parse error: body is not UTF-8"))
                            }
                        });
                    }
                }
                State::Headers => {
                    // The blank line may straddle what was buffered and what came in.
                    let searched_from = self.buffer.len().saturating_sub(3);
                    self.buffer.extend_from_slice(bytes);
                    let Some(end) = find(&self.buffer[searched_from..], b"\r\n\r\n").map(|i| i + searched_from) else {
                        if self.buffer.len() > MAX_HEADERS {
                            self.buffer.clear();
                            frames.push(Frame::Error(ErrorObject::new(code::INVALID_REQUEST, "Header block too long")));
                        }
                        break;
                    };
                    let rest = self.buffer.split_off(end + 4);
                    self.buffer.truncate(end);
                    // A refused frame is answered as soon as its header says
                    // so, not after its body: the sender learns at once.
                    let refused = |length, error| (State::Skip(length), Some(Frame::Error(error)));
                    let (state, refusal) = match parse_headers(&self.buffer) {
                        Ok(length) if length > MAX_BODY => {
                            refused(length, ErrorObject::new(code::INVALID_REQUEST, "Message larger than 10 MB"))
                        }
                        Ok(length) => (State::Body(length), None),
                        Err((length, error)) => refused(length, error),
                    };
                    self.state = state;
                    frames.extend(refusal);
                    self.buffer.clear();
                    input = Cow::Owned(rest);
                    at = 0;
                }
            }
        }
        frames
    }

    /// Whether a frame is partly read (for a read timeout: see [`Decoder::reset`]).
    pub fn is_partial(&self) -> bool {
        !self.buffer.is_empty() || !matches!(self.state, State::Headers)
    }

    /// Bytes held for a frame not yet complete.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    /// Drops a partly read frame, so the stream starts again at a header.
    pub fn reset(&mut self) {
        self.buffer.clear();
        self.state = State::Headers;
    }
}

/// Reads a header block: `Ok(length)`, or the length to skip and the error
/// that refuses the frame.
fn parse_headers(block: &[u8]) -> Result<usize, (usize, ErrorObject<()>)> {
    let text = String::from_utf8_lossy(block);
    let mut length = None;
    let mut content_type_ok = true;
    for line in text.split("\r\n") {
        // After a wrong length, a header line may start with the tail of the
        // previous body: find Content-Length anywhere in it to resynchronise.
        let line = match line.to_ascii_lowercase().rfind("content-length:") {
            Some(at) => &line[at..],
            None => line,
        };
        let Some((name, value)) = line.split_once(':') else { continue };
        let value = value.trim();
        if name.trim().eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
            if length.is_none() {
                return Err((0, ErrorObject::new(code::INVALID_REQUEST, "Content-Length is not a number")));
            }
        } else if name.trim().eq_ignore_ascii_case("content-type") {
            content_type_ok = is_accepted_content_type(value);
        }
    }
    let Some(length) = length else {
        return Err((0, ErrorObject::new(code::INVALID_REQUEST, "Content-Length is required")));
    };
    if !content_type_ok {
        return Err((
            length,
            ErrorObject::new(
                code::INVALID_REQUEST,
                "Unsupported Content-Type: only application/vscode-jsonrpc; charset=utf-8",
            ),
        ));
    }
    Ok(length)
}

/// `application/vscode-jsonrpc`, with no charset or charset utf-8 / utf8 in any case.
fn is_accepted_content_type(value: &str) -> bool {
    let mut parts = value.split(';').map(str::trim);
    if !parts.next().is_some_and(|media| media.eq_ignore_ascii_case("application/vscode-jsonrpc")) {
        return false;
    }
    parts.all(|parameter| match parameter.split_once('=') {
        Some((name, value)) if name.trim().eq_ignore_ascii_case("charset") => {
            let charset = value.trim().trim_matches('"');
            charset.eq_ignore_ascii_case("utf-8") || charset.eq_ignore_ascii_case("utf8")
        }
        Some(_) => true,
        None => parameter.is_empty(),
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

/// The answer to a refused frame, as JSON text: an error response with id
/// null (no id could be read). Written here, without a JSON library, so that
/// every host of the framing (the daemon, the JS stream transport) sends the
/// same bytes.
pub fn refusal_body(error: &ErrorObject<()>) -> String {
    let mut body = format!("{{\"jsonrpc\":\"2.0\",\"error\":{{\"code\":{},\"message\":\"", error.code);
    for c in error.message.chars() {
        match c {
            '"' => body.push_str("\\\""),
            '\\' => body.push_str("\\\\"),
            c if (c as u32) < 0x20 => body.push_str(&format!("\\u{:04x}", c as u32)),
            c => body.push(c),
        }
    }
    body.push_str("\"},\"id\":null}");
    body
}

/// Frames a message body: `Content-Length: N\r\n\r\n` then the UTF-8 bytes.
pub fn encode(body: &str) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body.as_bytes());
    frame
}

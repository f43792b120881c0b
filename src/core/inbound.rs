//! Classification of one incoming value under the spec's rules: what it is,
//! and which error answers it when it is not a valid message.

use super::error::{code, ErrorObject};
use super::message::{exact_double, Id, Notification, Request, Response};
use super::value::{number_of, text_of, Kind, Value};
use super::wire::META;

/// How the transport frames messages, which decides what counts as ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// Structured clones on a channel other code may share (window, port,
    /// worker): only arrays and objects carrying `jsonrpc: "2.0"` are ours.
    Object,
    /// JSON text meant for us alone (WebSocket, Content-Length, strings):
    /// every value is ours and gets the spec's answer.
    Text,
}

/// What one incoming (non-batch) value is.
#[derive(Clone, Debug, PartialEq)]
pub enum Inbound<V> {
    Request(Request<V>),
    Notification(Notification<V>),
    Response(Response<V>),
    /// Claims to be JSON-RPC but is not a valid request: a server answers it
    /// with this error response. Never sent for response-shaped values.
    Invalid(Response<V>),
    /// Shaped like a response but breaking the rules; the call waiting on `id`
    /// (if any) must fail with `error` rather than hang.
    InvalidResponse {
        id: Option<Id<V>>,
        error: ErrorObject<V>,
    },
    /// Not JSON-RPC: ignored and left for other listeners on the channel.
    Foreign,
}

/// A message's `id` member, as classification needs it.
#[derive(Clone, Debug)]
pub enum IdMember<V> {
    Absent,
    Valid(Id<V>),
    /// Present, but not a value an id may be (an object, `NaN`, …).
    Invalid,
}

impl<V> From<Option<Id<V>>> for IdMember<V> {
    fn from(id: Option<Id<V>>) -> Self {
        match id {
            Some(id) => IdMember::Valid(id),
            None => IdMember::Invalid,
        }
    }
}

/// The members of one message object that classification looks at, each with
/// its kind. A host that can read them all at once (the wasm layer does, in one
/// call into JS) builds it directly; [`Envelope::read`] asks a [`Value`].
#[derive(Clone, Debug)]
pub struct Envelope<V> {
    /// Whether `jsonrpc` is exactly `"2.0"`.
    pub version_2: bool,
    pub id: IdMember<V>,
    pub method: Option<V>,
    pub params: Option<(V, Kind)>,
    pub result: Option<V>,
    pub error: Option<V>,
    /// The `meta` member, if it is an object (any other is no metadata).
    pub meta: Option<V>,
}

impl<V: Value> Envelope<V> {
    /// Reads the envelope of an object.
    pub fn read(object: &V) -> Self {
        let with_kind = |value: V| {
            let kind = value.kind();
            (value, kind)
        };
        Envelope {
            version_2: object.member("jsonrpc").is_some_and(|v| v.is_version_2()),
            id: object.member("id").map_or(IdMember::Absent, |id| {
                let kind = id.kind();
                Id::read(id, kind).into()
            }),
            method: object.member("method"),
            params: object.member("params").map(with_kind),
            result: object.member("result"),
            error: object.member("error"),
            meta: object.member(META).filter(|meta| meta.kind() == Kind::Object),
        }
    }
}

impl<V> Envelope<V> {
    /// Whether [`classify_envelope`] reads it, on a channel of this side's
    /// own, as a response (valid or not): a batch of them answers this
    /// side's own batch, and is never refused as a batch of calls. (A test
    /// holds the two to each other.)
    pub fn is_response(&self) -> bool {
        self.version_2 && self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }
}

/// Classifies a message object from its envelope.
pub fn classify_envelope<V: Value>(envelope: Envelope<V>, framing: Framing) -> Inbound<V> {
    let Envelope { version_2, id, method, params, result, error, meta } = envelope;
    let present = !matches!(id, IdMember::Absent);
    // An id we can read is echoed, so the caller gets its answer instead of a
    // timeout; one we cannot read becomes null, as the spec says.
    let echo = match id {
        IdMember::Valid(id) => Some(id),
        _ => None,
    };
    if !version_2 {
        return match framing {
            Framing::Object => Inbound::Foreign,
            Framing::Text => invalid(echo),
        };
    }

    // Each case is one arm of one match, so the values a case leaves are
    // dropped along one path, not along one per early return.
    if let Some(method) = method {
        let name = method.as_name();
        let structured = params.as_ref().is_none_or(|(_, kind)| matches!(kind, Kind::Array | Kind::Object));
        let params = params.map(|(params, _)| params);
        return match (name, structured, present, echo) {
            (Some(method), true, false, _) => Inbound::Notification(Notification { method, params }),
            (Some(method), true, true, Some(id)) => Inbound::Request(Request { id, method, params, meta }),
            (Some(_), true, true, None) => invalid(None),
            (_, _, _, echo) => invalid(echo),
        };
    }

    match (echo, result, error) {
        (echo, None, None) => invalid(echo),
        // A response without a readable id matches no call: nothing to fail.
        (None, _, _) => Inbound::InvalidResponse {
            id: None,
            error: ErrorObject::new(code::INVALID_RESPONSE, "Response has no valid id"),
        },
        (Some(id), Some(result), None) => Inbound::Response(Response {
            id: Some(id),
            payload: Ok(result),
            #[cfg(feature = "references")]
            refs: None,
        }),
        (Some(id), None, Some(error)) => match error_object(&error) {
            Some(error) => Inbound::Response(Response {
                id: Some(id),
                payload: Err(error),
                #[cfg(feature = "references")]
                refs: None,
            }),
            None => malformed(id, "Response has a malformed error object"),
        },
        (Some(id), Some(_), Some(_)) => malformed(id, "Response has both result and error"),
    }
}

/// A response that breaks the rules: the call waiting on `id` fails with why.
fn malformed<V>(id: Id<V>, reason: &'static str) -> Inbound<V> {
    Inbound::InvalidResponse { id: Some(id), error: ErrorObject::new(code::INVALID_RESPONSE, reason) }
}

/// Reads an error object: an integer `code` and a string `message` are required.
fn error_object<V: Value>(error: &V) -> Option<ErrorObject<V>> {
    if error.kind() != Kind::Object {
        return None;
    }
    let code = number_of(Some(error), "code")?;
    if !is_integer(code) {
        return None;
    }
    let message = text_of(Some(error), "message")?;
    Some(ErrorObject { code: code as i64, message, data: error.member("data") })
}

fn is_integer(n: f64) -> bool {
    exact_double(n) && n as i64 as f64 == n
}

/// What a handler's thrown value answers (seed 000's server: `err.code ??
/// -32603`). Anything with an integer `code` keeps it, with its `message`
/// and `data`: an `RPCError`, an `Error` with the fields set, a plain
/// object. Anything else is `-32603`: an `Error` with its message and, as
/// `data`, what `whole` makes of it (its name, cause chain and fields, read
/// by the host, which has the thrown value); a string as its message; any
/// other JSON value as `data`.
pub fn thrown_error<V: Value>(thrown: &V, whole: impl FnOnce() -> Option<V>) -> ErrorObject<V> {
    match thrown.kind() {
        Kind::Object => {
            // An `Error` always has a string `message` (maybe empty, inherited).
            let text = text_of(Some(thrown), "message");
            let code = number_of(Some(thrown), "code").filter(|&c| is_integer(c));
            if let Some(code) = code.map(|c| c as i64) {
                let text = text.filter(|t| !t.is_empty()).unwrap_or_else(|| code::message(code).into());
                return ErrorObject { code, message: text, data: thrown.member("data") };
            }
            // An error: its message, and the whole of it (name, cause chain,
            // fields) as plain data, in the shape the host documents.
            let error = match text {
                Some(text) if !text.is_empty() => ErrorObject::new(code::INTERNAL_ERROR, text),
                Some(_) => ErrorObject::standard(code::INTERNAL_ERROR),
                None => return ErrorObject::standard(code::INTERNAL_ERROR).with_data(thrown.clone()),
            };
            match whole() {
                Some(data) => error.with_data(data),
                None => error,
            }
        }
        Kind::String => ErrorObject::new(code::INTERNAL_ERROR, thrown.as_text().unwrap_or_default()),
        Kind::Other => ErrorObject::standard(code::INTERNAL_ERROR),
        _ => ErrorObject::standard(code::INTERNAL_ERROR).with_data(thrown.clone()),
    }
}

pub(crate) fn invalid<V>(id: Option<Id<V>>) -> Inbound<V> {
    Inbound::Invalid(Response::error(id, ErrorObject::standard(code::INVALID_REQUEST)))
}

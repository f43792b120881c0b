//! The receiving side of an endpoint: turns incoming values into the actions a
//! host must take (call a handler, notify, settle a response, send a reply),
//! and assembles batch replies as their calls complete.

use crate::prelude::*;

mod batch;
mod in_flight;

use batch::{member_of, Batch};
pub use batch::{BatchPolicy, BatchReplies};

use super::error::{code, ErrorObject};
use super::inbound::{classify_envelope, invalid, Envelope, Framing, Inbound};
use super::message::{Id, Notification, Response};
use super::table::Table;
use super::value::{number_of, Kind, Value};
use super::wire::{
    Cancellation, CANCEL_REQUEST, MAX_CREDIT, MCP_CANCELLED, MCP_PROGRESS, PROGRESS, READY, SESSION_ACK, STREAM_CHUNK,
    STREAM_CREDIT, STREAM_END,
};
#[cfg(feature = "references")]
use super::wire::{REFERENCE, RELEASE};

/// Which sides of the protocol an endpoint plays. A client never answers
/// requests (a server sharing its transport may); a server never reads
/// responses (a client sharing its transport may).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    pub client: bool,
    pub server: bool,
}

impl Roles {
    pub const CLIENT: Roles = Roles { client: true, server: false };
    pub const SERVER: Roles = Roles { client: false, server: true };
    pub const PEER: Roles = Roles { client: true, server: true };
}

/// Why text was not read as a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextRefusal {
    /// It is not JSON.
    NotJson,
    /// Larger than [`Limits::max_message_bytes`](crate::core::Limits).
    TooLarge,
    /// Nested deeper than [`Limits::max_depth`](crate::core::Limits).
    TooDeep,
    /// Not text at all, on a transport of JSON text (a WebSocket's binary frame).
    NotText,
}

impl TextRefusal {
    /// Its answer: `-32700` for what is not JSON text, `-32600` for a limit.
    pub fn error<V>(self) -> ErrorObject<V> {
        match self {
            TextRefusal::NotJson => ErrorObject::standard(code::PARSE_ERROR),
            TextRefusal::TooLarge => ErrorObject::new(code::INVALID_REQUEST, "Message too large"),
            TextRefusal::TooDeep => ErrorObject::new(code::INVALID_REQUEST, "Message nested too deeply"),
            TextRefusal::NotText => ErrorObject::new(code::PARSE_ERROR, "Parse error: not text (send JSON text)"),
        }
    }
}

/// Identifies one incoming request between [`Action::Call`] and
/// [`Dispatcher::complete`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallId(pub u32);

/// A reply to send: one response, or a batch's responses as one array.
#[derive(Clone, Debug, PartialEq)]
pub enum Outgoing<V> {
    Single(Response<V>),
    Batch(Vec<Response<V>>),
}

/// What the host must do about an incoming value.
#[derive(Clone, Debug, PartialEq)]
pub enum Action<V, H> {
    /// Send this reply now.
    Send(Outgoing<V>),
    /// Run a method handler, then report its outcome to [`Dispatcher::complete`].
    Call { call: CallId, handler: H, params: Option<V>, meta: Option<V> },
    /// Run a notification handler; nothing goes back.
    Notify { handler: H, params: Option<V> },
    /// Settle the caller's pending call `id` with this outcome.
    Settle { id: Id<V>, outcome: Result<V, ErrorObject<V>> },
    /// A notification nobody handles: dropped without a reply, as the spec
    /// says; reported so that a host may log it.
    Unhandled { method: String },
    /// The caller cancelled this call (`$/cancelRequest`): tell its handler.
    /// Its answer, whenever it comes, is still sent.
    Cancel { call: CallId },
    /// A chunk of the caller's pending call `id` (`stream.chunk`), ahead of
    /// its response.
    Chunk { id: V, chunk: Option<V> },
    /// The last chunk of the call `id` has come (`stream.end`).
    StreamEnd { id: V },
    /// The other side's `$/ready` handshake, with its params.
    Ready { params: Option<V> },
    /// Progress of the caller's pending call `id` (`$/progress`, or MCP's
    /// `notifications/progress` with `id` its token and `value` its params).
    /// `handler`: the application's own for MCP's, should the token be none
    /// of this side's calls.
    Progress { id: V, value: V, handler: Option<H> },
    /// The other side has received `received` of this session's messages (`$/ack`).
    SessionAck { received: u64 },
    /// The caller let the handler of `call` send more chunks (`stream.credit`);
    /// `resumed`: it had used up what it had.
    Credit { call: CallId, resumed: bool },
    /// The other side released references of this side's (`$/release`), with its params.
    #[cfg(feature = "references")]
    Release { params: Option<V> },
    /// The references a batch member brings (`Some`), before that member's
    /// actions; `None` after them: what they did not deliver is released.
    #[cfg(feature = "references")]
    Refs(Option<V>),
    /// A call to export `reference` (its `member`, if named) of this side's:
    /// `$/ref/<id>[.<member>]`, a name no handler has.
    #[cfg(feature = "references")]
    CallReference { call: CallId, reference: u32, member: Option<String>, params: Option<V> },
}

/// The notifications the protocol names (see [`super::wire`]), told apart
/// by one look at the name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Named {
    Ready,
    SessionAck,
    Progress,
    McpProgress,
    Chunk,
    StreamEnd,
    Credit,
    LspCancel,
    McpCancel,
    #[cfg(feature = "references")]
    Release,
    /// The application's.
    Other,
}

impl Named {
    fn of(method: &str) -> Named {
        match method {
            READY => Named::Ready,
            SESSION_ACK => Named::SessionAck,
            PROGRESS => Named::Progress,
            MCP_PROGRESS => Named::McpProgress,
            STREAM_CHUNK => Named::Chunk,
            STREAM_END => Named::StreamEnd,
            STREAM_CREDIT => Named::Credit,
            CANCEL_REQUEST => Named::LspCancel,
            MCP_CANCELLED => Named::McpCancel,
            #[cfg(feature = "references")]
            RELEASE => Named::Release,
            _ => Named::Other,
        }
    }
}

/// jrpc-oo's handshake method (see [`Dispatcher::set_lists_components`]).
pub const LIST_COMPONENTS: &str = "system.listComponents";

/// What is registered under one name: a method, a notification handler, or both.
struct Handlers<H> {
    method: Option<H>,
    notification: Option<H>,
}

struct InFlight<V> {
    id: Id<V>,
    batch: Option<(u32, usize)>,
    /// Its handler sent chunks: `stream.end` goes before the answer.
    streamed: bool,
    /// Chunks it may still send (`None`: no `stream.credit` came, so no bound).
    credit: Option<u32>,
}

/// Routes incoming values to handlers registered by name. Only names that were
/// registered are callable: `toString` or `__proto__` are not methods here.
pub struct Dispatcher<V, H> {
    roles: Roles,
    batch_policy: BatchPolicy,
    batch_replies: BatchReplies,
    null_params_absent: bool,
    cancellation: Cancellation,
    max_in_flight: usize,
    /// jrpc-oo's handshake: `system.listComponents` is answered here.
    lists_components: bool,
    /// This side offers references: `$/ref/…` and `$/release` are the protocol's.
    #[cfg(feature = "references")]
    references: bool,
    /// The references of the answer [`Dispatcher::complete`] makes next.
    #[cfg(feature = "references")]
    answer_refs: Option<V>,
    handlers: Table<String, Handlers<H>>,
    calls: Table<u32, InFlight<V>>,
    batches: Table<u32, Batch<V>>,
    next_call: u32,
    next_batch: u32,
}

impl<V: Value + PartialEq, H: Clone> Dispatcher<V, H> {
    pub fn new(roles: Roles) -> Self {
        Dispatcher {
            roles,
            batch_policy: BatchPolicy::Allow,
            batch_replies: BatchReplies::Whole,
            null_params_absent: false,
            cancellation: Cancellation::Lsp,
            max_in_flight: usize::MAX,
            lists_components: false,
            #[cfg(feature = "references")]
            references: false,
            #[cfg(feature = "references")]
            answer_refs: None,
            handlers: Table::default(),
            calls: Table::default(),
            batches: Table::default(),
            next_call: 0,
            next_batch: 0,
        }
    }

    pub fn set_batch_policy(&mut self, policy: BatchPolicy) {
        self.batch_policy = policy;
    }

    pub fn set_batch_replies(&mut self, replies: BatchReplies) {
        self.batch_replies = replies;
    }

    pub fn batch_policy(&self) -> BatchPolicy {
        self.batch_policy
    }

    /// Reads `"params": null` as no params instead of an invalid request.
    /// Off by default (the spec allows only an array or an object); on for
    /// clients such as Emacs's jsonrpc.el, which sends `null` for `nil`.
    pub fn set_null_params_absent(&mut self, absent: bool) {
        self.null_params_absent = absent;
    }

    /// The most calls served at once; past it a request is answered
    /// [`code::TOO_MANY_CALLS`] at once and its handler never runs.
    pub fn set_max_in_flight(&mut self, most: usize) {
        self.max_in_flight = most;
    }

    /// Which notification cancels a request (the LSP's by default).
    pub fn set_cancellation(&mut self, cancellation: Cancellation) {
        self.cancellation = cancellation;
    }

    pub fn cancellation(&self) -> Cancellation {
        self.cancellation
    }

    /// Answers jrpc-oo's `system.listComponents` (unless a handler is
    /// registered under that name) with the methods this side serves, each
    /// `true`: how each side of its handshake tells the other its methods.
    pub fn set_lists_components(&mut self, lists: bool) {
        self.lists_components = lists;
    }

    /// Reads `$/ref/<id>[.<member>]` as calls to references and `$/release`
    /// as the protocol's (see [`Action::CallReference`]).
    #[cfg(feature = "references")]
    pub fn set_references(&mut self, references: bool) {
        self.references = references;
    }

    /// The result [`Dispatcher::complete`] answers next holds references at
    /// `refs` (`None`: it holds none), written beside it.
    #[cfg(feature = "references")]
    pub fn answer_with_refs(&mut self, refs: Option<V>) {
        self.answer_refs = refs;
    }

    /// Classifies a message object, or answers what is not one.
    fn classify(&self, value: &V, kind: Kind, framing: Framing) -> Inbound<V> {
        match (kind, framing) {
            (Kind::Object, _) => self.classify_envelope(Envelope::read(value), framing),
            (_, Framing::Object) => Inbound::Foreign,
            (_, Framing::Text) => invalid(None),
        }
    }

    /// Classifies a member of a batch: every member is ours, whatever the framing.
    fn classify_member(&self, member: Option<Envelope<V>>) -> Inbound<V> {
        match member {
            Some(envelope) => self.classify_envelope(envelope, Framing::Text),
            None => invalid(None),
        }
    }

    fn classify_envelope(&self, mut envelope: Envelope<V>, framing: Framing) -> Inbound<V> {
        if self.null_params_absent && envelope.params.as_ref().is_some_and(|(_, kind)| *kind == Kind::Null) {
            envelope.params = None;
        }
        classify_envelope(envelope, framing)
    }

    /// Registers (or replaces) the handler of a method.
    pub fn set_method(&mut self, name: &str, handler: H) {
        self.entry(name).method = Some(handler);
    }

    /// Registers (or replaces) the handler of a notification.
    pub fn set_notification(&mut self, name: &str, handler: H) {
        self.entry(name).notification = Some(handler);
    }

    fn entry(&mut self, name: &str) -> &mut Handlers<H> {
        self.handlers.get_or_insert_with(name.to_owned(), || Handlers { method: None, notification: None })
    }

    /// The names of the registered methods (not notification handlers).
    pub fn method_names(&self) -> impl Iterator<Item = &str> {
        self.handlers.iter().filter(|(_, h)| h.method.is_some()).map(|(name, _)| name.as_str())
    }

    /// Forgets every call in flight (the endpoint is going away): their
    /// handlers may still finish, but nothing will be sent for them.
    pub fn clear(&mut self) {
        self.calls.clear();
        self.batches.clear();
        self.handlers.clear();
    }

    /// The answer to text that was not read (not JSON, or past a limit):
    /// an error with id null, since no id could be read.
    pub fn receive_refused(&mut self, refusal: TextRefusal) -> Vec<Action<V, H>> {
        if !self.roles.server {
            return Vec::new();
        }
        vec![Action::Send(Outgoing::Single(Response::error(None, refusal.error())))]
    }

    /// Classifies an incoming value and returns what to do about it.
    pub fn receive(&mut self, value: &V, framing: Framing) -> Vec<Action<V, H>> {
        self.receive_kind(value, value.kind(), framing)
    }

    /// [`Dispatcher::receive`] for a value whose kind the caller already read:
    /// each question asked of a JS value crosses the wasm boundary.
    pub fn receive_kind(&mut self, value: &V, kind: Kind, framing: Framing) -> Vec<Action<V, H>> {
        let mut actions = Vec::new();
        if kind == Kind::Array {
            let elements = value.elements();
            // A refused batch is read only as far as its first member that is not a response.
            let responses =
                elements.iter().map(|element| member_of(element).is_some_and(|member| member.is_response()));
            #[cfg(feature = "references")]
            let refs = self.members_refs(&elements);
            if !self.refused(elements.len(), responses, &mut actions) {
                // A loop, not `map` and `collect`: their specialised collecting is larger.
                let mut members = Vec::with_capacity(elements.len());
                for element in &elements {
                    members.push(member_of(element));
                }
                self.receive_batch(
                    members,
                    #[cfg(feature = "references")]
                    refs,
                    &mut actions,
                );
            } else {
                // Nothing of a batch refused whole is delivered: what its members brought goes back.
                #[cfg(feature = "references")]
                for refs in refs.into_iter().flatten() {
                    actions.push(Action::Refs(Some(refs)));
                    actions.push(Action::Refs(None));
                }
            }
        } else if let Some(reply) = self.answer(self.classify(value, kind, framing), None, &mut actions) {
            actions.push(Action::Send(Outgoing::Single(reply)));
        }
        actions
    }

    /// [`Dispatcher::receive`] for a message object whose envelope the caller
    /// has already read.
    pub fn receive_envelope(&mut self, envelope: Envelope<V>, framing: Framing) -> Vec<Action<V, H>> {
        let mut actions = Vec::new();
        if let Some(reply) = self.answer(self.classify_envelope(envelope, framing), None, &mut actions) {
            actions.push(Action::Send(Outgoing::Single(reply)));
        }
        actions
    }

    /// Turns one classified message into actions; returns the reply it gets
    /// straight away, if any (an error the host need not compute).
    fn answer(
        &mut self,
        inbound: Inbound<V>,
        batch: Option<(u32, usize)>,
        actions: &mut Vec<Action<V, H>>,
    ) -> Option<Response<V>> {
        match inbound {
            Inbound::Request(request) if self.roles.server => {
                let Some(handler) = self.handlers.get(&request.method).and_then(|h| h.method.clone()) else {
                    if self.lists_components && request.method == LIST_COMPONENTS {
                        return Some(Response {
                            id: Some(request.id),
                            payload: Ok(V::flags(self.method_names())),
                            #[cfg(feature = "references")]
                            refs: None,
                        });
                    }
                    // Only here, where no handler answered: a plain call pays nothing for references.
                    #[cfg(feature = "references")]
                    if let Some((reference, member)) =
                        self.references.then(|| reference_call(&request.method)).flatten()
                    {
                        if self.calls.len() >= self.max_in_flight {
                            let error = ErrorObject::new(code::TOO_MANY_CALLS, "Too many calls in flight");
                            return Some(Response::error(Some(request.id), error));
                        }
                        let call = self.next_call_id();
                        self.calls
                            .insert_new(call.0, InFlight { id: request.id, batch, streamed: false, credit: None });
                        actions.push(Action::CallReference { call, reference, member, params: request.params });
                        return None;
                    }
                    let error = ErrorObject::standard(code::METHOD_NOT_FOUND);
                    return Some(Response::error(Some(request.id), error));
                };
                if self.calls.len() >= self.max_in_flight {
                    let error = ErrorObject::new(code::TOO_MANY_CALLS, "Too many calls in flight");
                    return Some(Response::error(Some(request.id), error));
                }
                let call = self.next_call_id();
                self.calls.insert_new(call.0, InFlight { id: request.id, batch, streamed: false, credit: None });
                actions.push(Action::Call { call, handler, params: request.params, meta: request.meta });
                None
            }
            Inbound::Notification(notification) => {
                self.notification(notification, actions);
                None
            }
            Inbound::Invalid(reply) if self.roles.server => Some(reply),
            Inbound::Response(Response { id: Some(id), payload, .. }) if self.roles.client => {
                actions.push(Action::Settle { id, outcome: payload });
                None
            }
            Inbound::InvalidResponse { id: Some(id), error } if self.roles.client => {
                actions.push(Action::Settle { id, outcome: Err(error) });
                None
            }
            _ => None,
        }
    }

    /// Turns a notification into actions: the protocol's own (the handshake,
    /// acknowledgements, progress, chunks and credit of calls), a
    /// cancellation, or the application's.
    fn notification(&mut self, notification: Notification<V>, actions: &mut Vec<Action<V, H>>) -> Option<()> {
        let named = Named::of(&notification.method);
        match named {
            // The handshake belongs to the endpoint, whatever its roles.
            Named::Ready => actions.push(Action::Ready { params: notification.params }),
            #[cfg(feature = "references")]
            Named::Release if self.references => actions.push(Action::Release { params: notification.params }),
            Named::SessionAck => {
                let received = number_of(notification.params.as_ref(), "received")?;
                if (0.0..=9.0e15).contains(&received) {
                    actions.push(Action::SessionAck { received: received as u64 });
                }
            }
            // Progress is part of the caller's call too (MCP's, in MCP's dialect only:
            // elsewhere the name is the application's).
            Named::Progress | Named::McpProgress
                if self.roles.client && (named == Named::Progress || self.cancellation == Cancellation::Mcp) =>
            {
                let params = notification.params?;
                let (id, value, handler) = match named == Named::Progress {
                    true => (params.member("id")?, params.member("value").unwrap_or_else(V::empty_array), None),
                    false => {
                        let handler = self.handlers.get(&notification.method).and_then(|h| h.notification.clone());
                        (params.member("progressToken")?, params, handler)
                    }
                };
                actions.push(Action::Progress { id, value, handler });
            }
            // Chunks are part of the caller's call, whatever else is registered.
            Named::Chunk | Named::StreamEnd if self.roles.client => {
                let params = notification.params?;
                let id = params.member("id")?;
                actions.push(match named == Named::StreamEnd {
                    true => Action::StreamEnd { id },
                    false => Action::Chunk { id, chunk: params.member("chunk") },
                });
            }
            // Flow control of a stream this side serves: a whole number of chunks, at least one.
            Named::Credit if self.roles.server => {
                let params = notification.params?;
                let id = params.member("id")?;
                // A whole number of chunks (no float library here: `as` truncates), at least one; past the most, the most.
                let whole =
                    |count: &f64| *count >= 1.0 && (*count >= MAX_CREDIT as f64 || (*count as u64) as f64 == *count);
                let grant = number_of(Some(&params), "credit").filter(whole)?;
                let grant = grant.min(MAX_CREDIT as f64) as u32;
                let key = self.calls.iter().find(|(_, c)| *c.id.value() == id).map(|(&key, _)| key)?;
                let in_flight = self.calls.get_mut(&key)?;
                let before = in_flight.credit;
                in_flight.credit = Some(before.unwrap_or(0).saturating_add(grant).min(MAX_CREDIT));
                actions.push(Action::Credit { call: CallId(key), resumed: before == Some(0) });
            }
            _ if self.roles.server => {
                let cancels = match self.cancellation {
                    Cancellation::Lsp => named == Named::LspCancel,
                    Cancellation::Mcp => named == Named::McpCancel,
                };
                if cancels {
                    let id =
                        notification.params.as_ref().and_then(|params| params.member(self.cancellation.id_member()));
                    let call = id.and_then(|id| self.calls.iter().find(|(_, c)| *c.id.value() == id).map(|(&k, _)| k));
                    if let Some(call) = call {
                        actions.push(Action::Cancel { call: CallId(call) });
                    }
                }
                match self.handlers.get(&notification.method).and_then(|h| h.notification.clone()) {
                    Some(handler) => actions.push(Action::Notify { handler, params: notification.params }),
                    None if !cancels => actions.push(Action::Unhandled { method: notification.method }),
                    None => {}
                }
            }
            _ => {}
        }
        None
    }

    /// Each batch member's `refs`, where this side reads them (none elsewhere).
    #[cfg(feature = "references")]
    fn members_refs(&self, elements: &[V]) -> Vec<Option<V>> {
        match self.references {
            true => elements.iter().map(|element| element.member("refs")).collect(),
            false => Vec::new(),
        }
    }

    fn next_call_id(&mut self) -> CallId {
        loop {
            let id = self.next_call;
            self.next_call = self.next_call.wrapping_add(1);
            if !self.calls.contains_key(&id) {
                return CallId(id);
            }
        }
    }
}

/// The export and member a call to a reference names: `$/ref/<id>` or
/// `$/ref/<id>.<member>`, `id` a whole number from 1 in decimal digits.
#[cfg(feature = "references")]
fn reference_call(method: &str) -> Option<(u32, Option<String>)> {
    // Byte by byte: slicing a `str` (or `split_once` on a char) links the
    // panic path's formatting into the module.
    let rest = method.as_bytes().strip_prefix(REFERENCE.as_bytes())?;
    let mut id: u32 = 0;
    let mut digits = 0;
    for &byte in rest {
        if byte == b'.' {
            break;
        }
        if !byte.is_ascii_digit() || (digits == 0 && byte == b'0') {
            return None;
        }
        id = id.checked_mul(10)?.checked_add(u32::from(byte - b'0'))?;
        digits += 1;
    }
    let member = match rest.get(digits + 1..) {
        _ if digits == 0 => return None,
        None => None,
        Some([]) => return None,
        Some(member) => Some(String::from(core::str::from_utf8(member).ok()?)),
    };
    Some((id, member))
}

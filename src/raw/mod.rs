//! SPIKE (measurement only, not product code): the core behind a narrow
//! plain ABI, without wasm-bindgen or js-sys. Exports take and return
//! numbers; JS values cross as `u32` handles into one JS table (`value`);
//! strings cross as (ptr, len) in linear memory; what an endpoint asks its
//! host to do leaves in one drain per export call: events written as `f64`
//! words into `OUT`, read by JS after the export returns (`spike/driver.js`).
//!
//! The header (`hdr()`, eight `u32`s) says where: 0 `OUT`'s address, 1 its
//! length in words, 2 `FREED`'s address, 3 its length, 4 how many words of
//! `OUT` JS has carried out (JS writes it), 5 how many freed handles JS has
//! taken back (JS writes it), 6 `STR`'s address (the bytes of the events'
//! strings), 7 the scratch buffer's address (`scratch`).
//!
//! JS carries out the events after the export returns; a handler it runs may
//! call an export again (nested): its events are appended, and the buffers
//! are emptied only once JS says it has carried out all of them.

mod value;

use crate::prelude::*;

use core::cell::UnsafeCell;

use crate::core::{
    thrown_error, BatchPolicy, Batching, CallId, CallOptions, Config, Deadline, Dialect, Endpoint, Envelope, Event,
    Failure, Framing, Handshake, Id, IdMember, Limits, Message, Outcome, Response, Roles, SessionSetup, TextRefusal,
    Transmit, Undelivered, Value, DEFAULT_GRACE_MS, TICK_MS,
};
pub use value::Handle;
use value::{kind_of_index, raw, text_of, FREED, NAME};

/// A global of the single-threaded module.
pub(crate) struct Global<T>(UnsafeCell<T>);

unsafe impl<T> Sync for Global<T> {}

impl<T> Global<T> {
    pub const fn new(value: T) -> Self {
        Global(UnsafeCell::new(value))
    }

    /// Never held across a call that could reach the same global again.
    #[allow(clippy::mut_from_ref)]
    pub fn get(&self) -> &mut T {
        unsafe { &mut *self.0.get() }
    }
}

#[link(wasm_import_module = "w")]
extern "C" {
    /// `performance.now()`.
    fn now() -> f64;
    /// describeError(thrown): a new handle, or 0.
    fn describe(h: u32, stack: u32) -> u32;
    /// Whether `h` survives the transport (a structured clone).
    fn encodable(h: u32) -> u32;
}

#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: crate::heap::Wasm = crate::heap::Wasm::new();

type Core = Endpoint<Handle, u32, u32>;

#[derive(Clone, Copy, Default)]
struct Timers {
    tick: bool,
    deadline: Option<Deadline>,
}

struct Slot {
    core: Core,
    timers: Timers,
    default_timeout: f64,
    expose_stack: bool,
    /// The members of the batch being read.
    batch: Option<Vec<Option<Envelope<Handle>>>>,
}

static SLOTS: Global<Vec<Option<Slot>>> = Global::new(Vec::new());
static OUT: Global<Vec<f64>> = Global::new(Vec::new());
static STR: Global<Vec<u8>> = Global::new(Vec::new());
/// What went out this turn, by index (its endpoint and itself), for `transmit_failed`.
type Sent = Option<(u32, Transmit<Handle>)>;
static SENT: Global<Vec<Sent>> = Global::new(Vec::new());
static SCRATCH: Global<Vec<u8>> = Global::new(Vec::new());
static HDR: Global<[u32; 8]> = Global::new([0; 8]);

// Events (the first word of each; the second is the endpoint's number).
const E_SEND: f64 = 1.0;
const E_INVOKE: f64 = 2.0;
const E_NOTIFY: f64 = 3.0;
const E_SETTLED: f64 = 4.0;
const E_PROGRESS: f64 = 5.0;
const E_CHUNK: f64 = 6.0;
const E_CANCELLED: f64 = 7.0;
const E_CHECK_EXPIRED: f64 = 8.0;
const E_MAY_STREAM: f64 = 9.0;
const E_WATCH: f64 = 10.0;
const E_SESSION_ENDED: f64 = 11.0;
const E_FLUSH: f64 = 12.0;
const E_UNHANDLED: f64 = 13.0;
const E_ARM: f64 = 15.0;

// Messages of an E_SEND.
const M_REQUEST: f64 = 1.0;
const M_NOTIFICATION: f64 = 2.0;
const M_RESULT: f64 = 3.0;
const M_ERROR: f64 = 4.0;
const M_CANCEL: f64 = 5.0;
const M_CHUNK: f64 = 6.0;
const M_END: f64 = 7.0;
const M_CREDIT: f64 = 8.0;
const M_PROGRESS: f64 = 9.0;
const M_READY: f64 = 10.0;
const M_ACK: f64 = 11.0;

// Envelope flags (glue.js's layout): the kind in bits 0-2, VERSION_2, the
// id's kind + 1 from bit 4, METHOD, the params' kind + 1 from bit 8, RESULT,
// ERROR, TEXT.
const KIND: u32 = 7;
const OBJECT: u32 = 5;
const VERSION_2: u32 = 1 << 3;
const ID_SHIFT: u32 = 4;
const METHOD: u32 = 1 << 7;
const PARAMS_SHIFT: u32 = 8;
const RESULT: u32 = 1 << 11;
const ERROR: u32 = 1 << 12;
const TEXT: u32 = 1 << 13;

// `open` flags (glue.js's `openOptions` bits).
const JRPC_OO: u32 = 1;
const MCP: u32 = 2;
const HOLD: u32 = 4;
const ANNOUNCE: u32 = 8;
const EXPOSE_STACK: u32 = 32;
const CONNECTING: u32 = 64;

const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;
const DEFAULT_MAX_KEPT: usize = 1_000;

fn words(w: &[f64]) {
    OUT.get().extend_from_slice(w);
}

/// A string for an event: its offset and length in `STR`.
fn string(text: &str) -> [f64; 2] {
    let s = STR.get();
    let at = s.len();
    s.extend_from_slice(text.as_bytes());
    [at as f64, text.len() as f64]
}

/// Empties the buffers JS has carried out (at the start of every export).
fn enter() {
    let hdr = HDR.get();
    if hdr[5] as usize == FREED.get().len() {
        FREED.get().clear();
        hdr[5] = 0;
    }
    if hdr[4] as usize == OUT.get().len() {
        OUT.get().clear();
        STR.get().clear();
        SENT.get().clear();
        hdr[4] = 0;
    }
}

/// Where the buffers are now (at the end of every export).
fn leave() {
    let hdr = HDR.get();
    hdr[0] = OUT.get().as_ptr() as u32;
    hdr[1] = OUT.get().len() as u32;
    hdr[2] = FREED.get().as_ptr() as u32;
    hdr[3] = FREED.get().len() as u32;
    hdr[6] = STR.get().as_ptr() as u32;
    hdr[7] = SCRATCH.get().as_ptr() as u32;
}

fn slot(ep: u32) -> Option<&'static mut Slot> {
    SLOTS.get().get_mut(ep as usize)?.as_mut()
}

/// Feeds endpoint `ep` one input, then drains what it asks for.
fn with(ep: u32, input: impl FnOnce(&mut Slot)) {
    enter();
    if let Some(slot) = slot(ep) {
        input(slot);
        drain(ep, slot);
    }
    leave();
}

fn drain(ep: u32, slot: &mut Slot) {
    let e = ep as f64;
    while let Some(event) = slot.core.poll() {
        match event {
            Event::Transmit(transmit) => {
                let sent = SENT.get();
                words(&[E_SEND, e, sent.len() as f64, transmit.messages().len() as f64]);
                for message in transmit.messages() {
                    encode(message);
                }
                sent.push(Some((ep, transmit)));
            }
            Event::Invoke { call, handler, params } => {
                words(&[E_INVOKE, e, call.0 as f64, handler as f64, raw(&params)])
            }
            Event::Notify { handler, params } => words(&[E_NOTIFY, e, handler as f64, raw(&params)]),
            Event::Unhandled { method } => {
                let [at, len] = string(&method);
                words(&[E_UNHANDLED, e, at, len]);
            }
            Event::Settled { id, waiter, outcome } => {
                let (kind, a, b, c, d) = match &outcome {
                    Outcome::Result(result) => (0.0, result.raw() as f64, 0.0, 0.0, 0.0),
                    Outcome::Error(error) => {
                        let [at, len] = string(&error.message);
                        (1.0, error.code as f64, at, len, raw(&error.data))
                    }
                    Outcome::Failed(Failure::Timeout { sent: true }) => (2.0, 0.0, 0.0, 0.0, 0.0),
                    Outcome::Failed(Failure::Timeout { sent: false }) => (3.0, 0.0, 0.0, 0.0, 0.0),
                    Outcome::Failed(Failure::Cancelled) => (4.0, 0.0, 0.0, 0.0, 0.0),
                    Outcome::Failed(Failure::Destroyed) => (5.0, 0.0, 0.0, 0.0, 0.0),
                    Outcome::Failed(Failure::ConnectionClosed) => (6.0, 0.0, 0.0, 0.0, 0.0),
                };
                words(&[E_SETTLED, e, id as f64, waiter as f64, kind, a, b, c, d]);
            }
            Event::Progress { id, waiter, value } => {
                words(&[E_PROGRESS, e, id as f64, waiter as f64, value.raw() as f64])
            }
            Event::Chunk { id, waiter, chunk } => words(&[E_CHUNK, e, id as f64, waiter as f64, raw(&chunk)]),
            Event::Cancelled { call } => words(&[E_CANCELLED, e, call.0 as f64]),
            Event::CheckExpired { call } => words(&[E_CHECK_EXPIRED, e, call.0 as f64]),
            Event::MayStream { call } => words(&[E_MAY_STREAM, e, call.0 as f64]),
            Event::WatchPeer(presence) => {
                let [at, len] = string(&presence);
                words(&[E_WATCH, e, at, len]);
            }
            Event::SessionEnded => words(&[E_SESSION_ENDED, e]),
            Event::ScheduleFlush => words(&[E_FLUSH, e]),
            Event::PeerReady(_) => {}
        }
    }
    // The timers it needs: the tick while calls wait for a reading, one
    // timer for the earliest deadline.
    let wanted = slot.core.poll_timeout();
    let timers = &mut slot.timers;
    if wanted.reading && !timers.tick {
        timers.tick = true;
        words(&[E_ARM, e, 0.0, TICK_MS as f64]);
    }
    if let Some(at) = wanted.deadline.filter(|at| timers.deadline.is_none_or(|armed| *at < armed)) {
        timers.deadline = Some(at);
        words(&[E_ARM, e, 1.0, (at as f64 - unsafe { now() }).max(0.0)]);
    }
}

fn id_raw(id: &Option<Id<Handle>>) -> f64 {
    id.as_ref().map_or(0.0, |id| id.value().raw() as f64)
}

fn encode(message: &Message<Handle>) {
    match message {
        Message::Request { id, method, params } => words(&[M_REQUEST, *id as f64, method.raw() as f64, raw(params)]),
        Message::Notification { method, params } => words(&[M_NOTIFICATION, method.raw() as f64, raw(params)]),
        Message::Response(Response { id, payload: Ok(result) }) => words(&[M_RESULT, id_raw(id), result.raw() as f64]),
        Message::Response(Response { id, payload: Err(error) }) => {
            let [at, len] = string(&error.message);
            words(&[M_ERROR, id_raw(id), error.code as f64, at, len, raw(&error.data)]);
        }
        Message::Cancel { id, convention } => {
            words(&[M_CANCEL, *id as f64, f64::from(u8::from(*convention == crate::core::Cancellation::Mcp))])
        }
        Message::Chunk { id, chunk } => words(&[M_CHUNK, id.value().raw() as f64, chunk.raw() as f64]),
        Message::StreamEnd { id } => words(&[M_END, id.value().raw() as f64]),
        Message::Credit { id, credit } => words(&[M_CREDIT, *id as f64, *credit as f64]),
        Message::Progress { params, mcp } => words(&[M_PROGRESS, params.raw() as f64, f64::from(u8::from(*mcp))]),
        Message::Ready { ack, capabilities: c, presence, session } => {
            let flag = |b: bool| f64::from(u8::from(b));
            let [p_at, p_len] = presence.as_deref().map_or([0.0, -1.0], string);
            let (has, [s_at, s_len], received, resumed, grace) = match session {
                None => (0.0, [0.0, -1.0], 0.0, -1.0, -1.0),
                Some(s) => (
                    1.0,
                    s.id.as_deref().map_or([0.0, -1.0], string),
                    s.received as f64,
                    s.resumed.map_or(-1.0, flag),
                    s.grace_ms.map_or(-1.0, |ms| ms as f64),
                ),
            };
            words(&[
                M_READY,
                flag(*ack),
                flag(c.batches),
                flag(c.split_batch_answers),
                c.max_batch as f64,
                flag(c.stream_credit),
                flag(c.progress),
                p_at,
                p_len,
                has,
                s_at,
                s_len,
                received,
                resumed,
                grace,
            ]);
        }
        Message::Ack { received } => words(&[M_ACK, *received as f64]),
    }
}

// ---- exports ---------------------------------------------------------------

#[no_mangle]
pub extern "C" fn hdr() -> *const u32 {
    leave();
    HDR.get().as_ptr()
}

/// A buffer of at least `n` bytes JS may write a string into (its address
/// is also in the header, until the next call).
#[no_mangle]
pub extern "C" fn scratch(n: usize) -> *mut u8 {
    let s = SCRATCH.get();
    if s.capacity() < n {
        s.reserve(n - s.len());
    }
    leave();
    s.as_mut_ptr()
}

fn scratch_str(len: usize) -> &'static str {
    let s = SCRATCH.get();
    unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(s.as_ptr(), len)) }
}

/// Opens an endpoint: its number (the events name it). `roles`: 1 calls, 2
/// serves. `flags`: `openOptions`' bits. `session`: 0 none, 1 client, 2
/// server (its id in the scratch buffer, `sid_len` bytes); `presence_len`
/// bytes after it, the presence name (-1: none).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn open(
    roles: u32,
    flags: u32,
    timeout: f64,
    batching: u32,
    batches: f64,
    max_in_flight: f64,
    max_bytes: f64,
    max_depth: f64,
    session: u32,
    sid_len: i32,
    grace: f64,
    max_kept: f64,
    presence_len: i32,
) -> u32 {
    enter();
    let roles = Roles { client: roles & 1 != 0, server: roles & 2 != 0 };
    let at_least_one =
        |slot: f64, default: usize| if slot >= 1.0 { slot.min(u32::MAX as f64) as usize } else { default };
    let limits = Limits {
        max_in_flight: at_least_one(max_in_flight, Limits::DEFAULT.max_in_flight),
        max_message_bytes: at_least_one(max_bytes, Limits::DEFAULT.max_message_bytes),
        max_depth: at_least_one(max_depth, Limits::DEFAULT.max_depth),
    };
    let dialect = match flags {
        _ if flags & MCP != 0 => Dialect::Mcp,
        _ if flags & JRPC_OO != 0 => Dialect::JrpcOo,
        _ => Dialect::Plain,
    };
    let config = Config {
        roles,
        handshake: match flags {
            _ if flags & HOLD != 0 => Handshake::Hold,
            _ if flags & ANNOUNCE != 0 => Handshake::Announce,
            _ => Handshake::Off,
        },
        batching: match batching {
            1 => Batching::Always,
            2 => Batching::Never,
            _ => Batching::Negotiated,
        },
        batch_policy: match batches {
            limit if limit >= 0.0 => BatchPolicy::Limit(limit as usize),
            -2.0 => BatchPolicy::Reject,
            -3.0 => BatchPolicy::Allow,
            _ => BatchPolicy::Limit(Limits::MAX_BATCH),
        },
        limits,
        ..Config::new(roles)
    }
    .with_dialect(dialect);
    let sid_len = sid_len.max(0) as usize;
    let text = scratch_str(sid_len + presence_len.max(0) as usize).as_bytes();
    // Slices of bytes: a `str` slice links the char-boundary panic's formatting.
    let owned = |bytes: &[u8]| String::from(unsafe { core::str::from_utf8_unchecked(bytes) });
    let session = match session {
        1 => Some(SessionSetup::Client { max_kept: DEFAULT_MAX_KEPT }),
        2 => Some(SessionSetup::Server {
            id: owned(text.get(..sid_len).unwrap_or_default()),
            grace_ms: if grace >= 0.0 { grace as u64 } else { DEFAULT_GRACE_MS },
            max_kept: if max_kept >= 1.0 { max_kept as usize } else { DEFAULT_MAX_KEPT },
        }),
        _ => None,
    };
    let presence = (presence_len >= 0).then(|| owned(text.get(sid_len..).unwrap_or_default()));
    let mut core = Endpoint::with_session(config, presence, session);
    if flags & CONNECTING != 0 {
        core.connecting();
    }
    let slot = Slot {
        core,
        timers: Timers::default(),
        default_timeout: if timeout.is_nan() { DEFAULT_TIMEOUT_MS } else { timeout },
        expose_stack: flags & EXPOSE_STACK != 0,
        batch: None,
    };
    let slots = SLOTS.get();
    let ep = match slots.iter().position(Option::is_none) {
        Some(free) => {
            slots[free] = Some(slot);
            free
        }
        None => {
            slots.push(Some(slot));
            slots.len() - 1
        }
    } as u32;
    if let Some(slot) = self::slot(ep) {
        drain(ep, slot);
    }
    leave();
    ep
}

/// The envelope of a message object, as the reader read it (glue.js's flags).
fn envelope(flags: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) -> Envelope<Handle> {
    let id = match (flags >> ID_SHIFT) & 7 {
        0 => {
            drop(Handle::adopt(id));
            IdMember::Absent
        }
        kind => match Handle::adopt(id) {
            // A numeric id with the number the reader read along with it.
            Some(id) if kind == 3 => Id::number(id, number).into(),
            Some(id) => Id::read(id, kind_of_index(kind - 1)).into(),
            None => IdMember::Invalid,
        },
    };
    let params_kind = (flags >> PARAMS_SHIFT) & 7;
    Envelope {
        version_2: flags & VERSION_2 != 0,
        id,
        method: Handle::adopt(method).filter(|_| flags & METHOD != 0),
        params: Handle::adopt(params).map(|p| (p, kind_of_index(params_kind.saturating_sub(1)))),
        result: Handle::adopt(result).filter(|_| flags & RESULT != 0),
        error: Handle::adopt(error).filter(|_| flags & ERROR != 0),
    }
}

fn framing(flags: u32) -> Framing {
    if flags & TEXT != 0 {
        Framing::Text
    } else {
        Framing::Object
    }
}

/// Method names the reader has seen, by number (a peer may not grow it past `MAX_NAMES`).
static NAMES: Global<Vec<String>> = Global::new(Vec::new());
const MAX_NAMES: usize = 1024;

/// A message object: its envelope as the reader read it. Handles 0: absent.
/// `name`: the number of its method's name (`NAMES`), or -1 when the reader
/// has none for it: then, for a string, returns its new number + 1 (0: none).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn recv(
    ep: u32,
    flags: u32,
    id: u32,
    method: u32,
    params: u32,
    result: u32,
    error: u32,
    number: f64,
    name: i32,
) -> u32 {
    enter();
    let names = NAMES.get();
    let mut numbered = 0;
    let known = match name {
        -1 if flags & METHOD != 0 => text_of(method).inspect(|text| {
            if names.len() < MAX_NAMES {
                names.push(text.clone());
                numbered = names.len() as u32;
            }
        }),
        _ => names.get(name as usize).cloned(),
    };
    *NAME.get() = known.map(|text| (method, text));
    let envelope = envelope(flags, id, method, params, result, error, number);
    if let Some(slot) = slot(ep) {
        slot.core.receive_envelope(envelope, framing(flags));
        *NAME.get() = None;
        drain(ep, slot);
    }
    leave();
    numbered
}

/// Any other value (a batch read whole, a string, a number): the core asks it.
#[no_mangle]
pub extern "C" fn recv_value(ep: u32, h: u32, flags: u32) {
    let value = Handle::adopt(h);
    with(ep, |slot| match &value {
        Some(value) => slot.core.receive(value, framing(flags)),
        None => slot.core.receive_refused(TextRefusal::NotText),
    });
}

/// Text not read as a message: 0 not JSON, 1 too large, 2 too deep, 3 not text.
#[no_mangle]
pub extern "C" fn recv_refused(ep: u32, why: u32) {
    with(ep, |slot| {
        slot.core.receive_refused(match why {
            1 => TextRefusal::TooLarge,
            2 => TextRefusal::TooDeep,
            3 => TextRefusal::NotText,
            _ => TextRefusal::NotJson,
        })
    });
}

/// A batch of `len`: 1 when its members come one by one (`member`, then
/// `members_end`); 0 when it should come whole (`recv_value`).
#[no_mangle]
pub extern "C" fn batch_begin(ep: u32, len: u32) -> u32 {
    let Some(slot) = slot(ep) else { return 0 };
    if !slot.core.takes_batch(len as usize) {
        return 0;
    }
    slot.batch = Some(Vec::with_capacity(len as usize));
    1
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn member(ep: u32, flags: u32, id: u32, method: u32, params: u32, result: u32, error: u32, number: f64) {
    let envelope = (flags & KIND == OBJECT).then(|| envelope(flags, id, method, params, result, error, number));
    if let Some(batch) = slot(ep).and_then(|slot| slot.batch.as_mut()) {
        batch.push(envelope);
    }
}

#[no_mangle]
pub extern "C" fn members_end(ep: u32) {
    with(ep, |slot| {
        if let Some(batch) = slot.batch.take() {
            slot.core.receive_members(batch);
        }
    });
}

fn whole_ms(ms: f64) -> Option<u64> {
    (ms.is_finite() && ms > 0.0).then(|| {
        let whole = ms as u64;
        whole + u64::from((whole as f64) < ms)
    })
}

/// A call: its id, or 0 when refused (its Settled event, id 0, says why).
/// `kind`: the params' kind + 1 (0: none). `timeout`: NaN for the default.
/// `bits`: 1 progress, 2 no reset on progress. `window`: 0 for none.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn request(
    ep: u32,
    method: u32,
    params: u32,
    kind: u32,
    waiter: u32,
    timeout: f64,
    bits: u32,
    window: u32,
    max_total: f64,
) -> f64 {
    enter();
    let (method, params) = (Handle::adopt(method), Handle::adopt(params));
    let mut id = 0.0;
    if let (Some(slot), Some(method)) = (slot(ep), method) {
        let options = CallOptions {
            timeout_ms: whole_ms(if timeout.is_nan() { slot.default_timeout } else { timeout }),
            window: (window > 0).then_some(window),
            progress: bits & 1 != 0,
            reset_on_progress: bits & 2 == 0,
            max_total_ms: whole_ms(max_total),
        };
        let kind = kind.checked_sub(1).map(kind_of_index);
        match slot.core.request_of_kind(method, params, kind, waiter, options, || unsafe { now() } as Deadline) {
            Ok(call) => id = call as f64,
            Err((waiter, outcome)) => {
                // Settled here, as an event: id 0.
                let (kind, code, message) = match outcome {
                    Outcome::Error(error) => (1.0, error.code as f64, error.message),
                    _ => (5.0, 0.0, String::new()),
                };
                let [at, len] = string(&message);
                words(&[E_SETTLED, ep as f64, 0.0, waiter as f64, kind, code, at, len, 0.0]);
            }
        }
        drain(ep, slot);
    }
    leave();
    id
}

/// A notification: 0 sent (or dropped once destroyed), else the error code
/// of the refusal (its message in the events' strings at 0).
#[no_mangle]
pub extern "C" fn notify(ep: u32, method: u32, params: u32) -> f64 {
    enter();
    let (method, params) = (Handle::adopt(method), Handle::adopt(params));
    let mut refused = 0.0;
    if let (Some(slot), Some(method)) = (slot(ep), method) {
        if let Err(error) = slot.core.notify(method, params) {
            refused = error.code as f64;
        }
        drain(ep, slot);
    }
    leave();
    refused
}

/// A handler's outcome: `ok` 1 its result, 0 what it threw.
#[no_mangle]
pub extern "C" fn complete(ep: u32, call: u32, ok: u32, h: u32) {
    let value = Handle::adopt(h);
    with(ep, |slot| {
        let outcome = match (ok, value) {
            (1, value) => Ok(value.unwrap_or_else(|| Handle::adopt(unsafe { new_null() }).unwrap())),
            (_, Some(thrown)) => {
                let stack = u32::from(slot.expose_stack);
                Err(thrown_error(&thrown, || Handle::adopt(unsafe { describe(thrown.raw(), stack) })))
            }
            (_, None) => Err(thrown_error(&Handle::adopt(unsafe { new_null() }).unwrap(), || None)),
        };
        slot.core.complete(CallId(call), outcome);
    });
}

#[link(wasm_import_module = "w")]
extern "C" {
    fn new_null() -> u32;
}

#[no_mangle]
pub extern "C" fn set_method(ep: u32, len: usize, handler: u32, notification: u32) {
    let name = scratch_str(len);
    with(ep, |slot| match notification {
        0 => slot.core.set_method(name, handler),
        _ => slot.core.set_notification(name, handler),
    });
}

#[no_mangle]
pub extern "C" fn flush(ep: u32) {
    with(ep, |slot| slot.core.flush());
}

/// A timer fired: `which` 0 the tick, 1 the deadline.
#[no_mangle]
pub extern "C" fn timer(ep: u32, which: u32, now: f64) {
    with(ep, |slot| {
        match which {
            0 => slot.timers.tick = false,
            _ => slot.timers.deadline = None,
        }
        slot.core.handle_timeout(now as Deadline);
    });
}

#[no_mangle]
pub extern "C" fn cancel(ep: u32, id: f64) -> u32 {
    let mut was = false;
    with(ep, |slot| was = slot.core.cancel(id as u64));
    u32::from(was)
}

/// A chunk from the handler of `call`: whether it may send more now.
#[no_mangle]
pub extern "C" fn emit(ep: u32, call: u32, h: u32) -> u32 {
    let value = Handle::adopt(h);
    let mut more = false;
    with(ep, |slot| {
        if let Some(value) = value {
            slot.core.emit(CallId(call), value);
        }
        more = slot.core.may_stream(CallId(call));
    });
    u32::from(more)
}

#[no_mangle]
pub extern "C" fn progress(ep: u32, call: u32, h: u32) {
    let value = Handle::adopt(h);
    with(ep, |slot| {
        if let Some(value) = value {
            slot.core.progress(CallId(call), value);
        }
    });
}

#[no_mangle]
pub extern "C" fn consumed(ep: u32, id: f64, n: u32) {
    with(ep, |slot| slot.core.consumed(id as u64, n));
}

#[no_mangle]
pub extern "C" fn reject_params(ep: u32, call: u32, issues: u32) {
    let issues = Handle::adopt(issues);
    with(ep, |slot| {
        if let Some(issues) = issues {
            slot.core.reject_params(CallId(call), issues);
        }
    });
}

#[no_mangle]
pub extern "C" fn reject_result(ep: u32, call: u32) {
    with(ep, |slot| slot.core.reject_result(CallId(call)));
}

#[no_mangle]
pub extern "C" fn checking(ep: u32, call: u32, now: f64) {
    with(ep, |slot| {
        let deadline = whole_ms(now + slot.default_timeout).unwrap_or(0);
        slot.core.checking(CallId(call), deadline);
    });
}

#[no_mangle]
pub extern "C" fn checked(ep: u32, call: u32) {
    with(ep, |slot| slot.core.checked(CallId(call)));
}

#[no_mangle]
pub extern "C" fn connection_opened(ep: u32) {
    with(ep, |slot| slot.core.connection_opened());
}

#[no_mangle]
pub extern "C" fn peer_present(ep: u32) {
    with(ep, |slot| slot.core.peer_present());
}

/// The connection closed (`last`: no other will follow) or dropped at
/// `now`: whether a session goes on.
#[no_mangle]
pub extern "C" fn connection_lost(ep: u32, last: u32, now: f64) -> u32 {
    let mut goes_on = false;
    with(ep, |slot| match last {
        1 => slot.core.connection_closed(),
        _ => goes_on = slot.core.connection_lost(now as Deadline),
    });
    u32::from(goes_on)
}

/// The transport got no response to `n` calls (their ids as `f64`s in the
/// scratch buffer, then `len` bytes of its message): `reply` an array of
/// what its reply held (0: none), `why` 0 failed, 1 not JSON, 2 session
/// expired, `data` (0: none). Returns how many calls failed so.
#[no_mangle]
pub extern "C" fn undelivered(ep: u32, n: usize, len: usize, reply: u32, why: u32, data: u32) -> u32 {
    let (reply, data) = (Handle::adopt(reply), Handle::adopt(data));
    let s = SCRATCH.get();
    let ids: Vec<u64> = (0..n)
        .map(|i| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&s[i * 8..i * 8 + 8]);
            f64::from_le_bytes(b) as u64
        })
        .collect();
    let message: String = unsafe { core::str::from_utf8_unchecked(&s[n * 8..n * 8 + len]) }.into();
    let reply = reply.map(|r| r.elements()).unwrap_or_default();
    let why = match why {
        1 => Undelivered::NotJson,
        2 => Undelivered::SessionExpired,
        _ => Undelivered::Failed,
    };
    let mut failed = 0;
    with(ep, |slot| failed = slot.core.undelivered(&ids, &reply, why, &message, data).len() as u32);
    failed
}

/// The transport refused what went out as event `sent` (its third word):
/// the core decides what goes instead; a lone call it gives back is
/// returned (its waiter + 1; 0: none) for JS to fail with the transport's reason
/// (`reason`, whose text is asked).
#[no_mangle]
pub extern "C" fn transmit_failed(sent: u32, reason: u32) -> f64 {
    let reason = Handle::adopt(reason);
    let Some(Some((ep, transmit))) = SENT.get().get_mut(sent as usize).map(Option::take) else { return 0.0 };
    let text = reason.as_ref().and_then(|r| text_of(r.raw())).unwrap_or_default();
    let mut unsent = 0.0;
    with(ep, |slot| {
        if let Some((_, waiter)) =
            slot.core.transmit_failed(transmit, &text, |value| unsafe { encodable(value.raw()) } != 0)
        {
            unsent = waiter as f64 + 1.0;
        }
    });
    unsent
}

/// Which of this side's calls a message answers (a tracer's question): its id, or 0.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn answers(
    ep: u32,
    flags: u32,
    id: u32,
    method: u32,
    params: u32,
    result: u32,
    error: u32,
    number: f64,
) -> f64 {
    let envelope = envelope(flags, id, method, params, result, error, number);
    let found = slot(ep).and_then(|slot| slot.core.answers(envelope, framing(flags)));
    leave();
    found.map_or(0.0, |id| id as f64)
}

#[no_mangle]
pub extern "C" fn pending(ep: u32) -> u32 {
    slot(ep).map_or(0, |slot| slot.core.pending() as u32)
}

/// Whether the endpoint serves calls now (a transport's `idle`).
#[no_mangle]
pub extern "C" fn serving(ep: u32) -> u32 {
    slot(ep).map_or(0, |slot| u32::from(slot.core.is_serving()))
}

/// The session's id, written at the scratch buffer's address: its length (-1: none).
#[no_mangle]
pub extern "C" fn session_id(ep: u32) -> i32 {
    let id = slot(ep).and_then(|slot| slot.core.session_id().map(String::from));
    let n = match id {
        Some(id) => {
            let s = SCRATCH.get();
            s.clear();
            s.extend_from_slice(id.as_bytes());
            id.len() as i32
        }
        None => -1,
    };
    leave();
    n
}

/// The session a hello presents, if `h` is one: its length at the scratch
/// buffer's address (-1: none).
#[no_mangle]
pub extern "C" fn presented_session(h: u32) -> i32 {
    let value = Handle::adopt(h);
    let found = value.as_ref().and_then(crate::core::presented_session);
    let n = match found {
        Some(id) => {
            let s = SCRATCH.get();
            s.clear();
            s.extend_from_slice(id.as_bytes());
            id.len() as i32
        }
        None => -1,
    };
    leave();
    n
}

#[no_mangle]
pub extern "C" fn destroy(ep: u32) {
    with(ep, |slot| {
        slot.timers = Timers::default();
        slot.core.destroy();
    });
}

/// Forgets a destroyed endpoint (its number may be reused).
#[no_mangle]
pub extern "C" fn close(ep: u32) {
    enter();
    if let Some(slot) = SLOTS.get().get_mut(ep as usize) {
        *slot = None;
    }
    leave();
}

/// The WebSocket transport's reconnect schedule (see `bindings::websocket`).
#[no_mangle]
pub extern "C" fn reconnect_delay(
    initial: f64,
    max: f64,
    factor: f64,
    jitter: f64,
    attempts: f64,
    attempt: u32,
    random: f64,
) -> f64 {
    let defaults = crate::core::Backoff::default();
    let given = |value: f64, default: f64| if value.is_nan() { default } else { value };
    let backoff = crate::core::Backoff {
        initial_ms: given(initial, defaults.initial_ms),
        max_ms: given(max, defaults.max_ms),
        factor: given(factor, defaults.factor),
        jitter: given(jitter, defaults.jitter),
        max_attempts: attempts.is_finite().then(|| attempts.max(0.0) as u32),
    };
    backoff.delay_ms(attempt, random).unwrap_or(-1.0)
}

//! Endpoints opened (their options as numbers, read by abi.js), destroyed
//! and forgotten: the slot table the exports name them by.

use super::abi::opening;
use super::{enter, events, leave, owned, scratch_bytes, slot, Slot, Timers, SLOTS};
use crate::core::{
    BatchPolicy, Batching, Config, Dialect, Endpoint, Handshake, Limits, Roles, SessionSetup, DEFAULT_GRACE_MS,
};
use wasm_bindgen::prelude::wasm_bindgen;

/// The default per-call timeout of the JS API, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;

/// The most messages a session keeps for a connection that dropped.
const DEFAULT_MAX_KEPT: usize = 1_000;

/// Opens an endpoint: its number (the events name it). `roles`: 1 calls, 2
/// serves. `flags`: `opening`'s bits. `timeout`: NaN for the default.
/// `batching`: 0 negotiated, 1 always, 2 never. `batches`: a limit, -1 the
/// default, -2 reject, -3 allow. Limits: below 1 for the default.
/// `session`: 0 none, 1 client, 2 server (its id in the scratch buffer,
/// `sid_len` bytes); `presence_len` bytes after it, the presence name (-1:
/// none). `grace`, `max_kept`: a server session's, below 0 for the default.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn open(
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
        #[cfg(feature = "references")]
        max_references: at_least_one(*super::references::MAX_REFERENCES.get(), Limits::DEFAULT.max_references),
    };
    // An MCP transport says so: its conventions are the core's `Dialect::Mcp`.
    let dialect = match flags {
        _ if flags & opening::MCP != 0 => Dialect::Mcp,
        _ if flags & opening::JRPC_OO != 0 => Dialect::JrpcOo,
        _ => Dialect::Plain,
    };
    let config = Config {
        roles,
        // The transport says whether its other side may still be loading.
        handshake: match flags {
            _ if flags & opening::HOLD != 0 => Handshake::Hold,
            _ if flags & opening::AWAIT != 0 => Handshake::Await,
            _ if flags & opening::ANNOUNCE != 0 => Handshake::Announce,
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
        packed: flags & opening::PACKED != 0,
        // JS hands each call's metadata to its middleware (endpoints.js).
        meta: true,
        #[cfg(feature = "references")]
        references: flags & opening::REFERENCES != 0,
        ..Config::new(roles)
    }
    .with_dialect(dialect);
    let sid_len = sid_len.max(0) as usize;
    let text = scratch_bytes(sid_len + presence_len.max(0) as usize);
    let session = match session {
        1 => Some(SessionSetup::Client { max_kept: DEFAULT_MAX_KEPT }),
        2 => Some(SessionSetup::Server {
            id: owned(text.get(..sid_len).unwrap_or_default()),
            grace_ms: if grace >= 0.0 { grace as u64 } else { DEFAULT_GRACE_MS },
            max_kept: if max_kept >= 1.0 { max_kept as usize } else { DEFAULT_MAX_KEPT },
        }),
        _ => None,
    };
    // A transport that holds a Web Lock while it lives names it: the hello carries it.
    let presence = (presence_len >= 0).then(|| owned(text.get(sid_len..).unwrap_or_default()));
    let mut core = Endpoint::with_session(config, presence, session);
    if flags & opening::CONNECTING != 0 {
        core.connecting();
    }
    let slot = Slot {
        core,
        timers: Timers::default(),
        default_timeout: if timeout.is_nan() { DEFAULT_TIMEOUT_MS } else { timeout },
        expose_stack: flags & opening::EXPOSE_STACK != 0,
        idle: flags & opening::IDLE != 0,
        batch: None,
        #[cfg(feature = "references")]
        refs: None,
    };
    let hdr = super::HDR.get();
    hdr[9] = limits.max_message_bytes.min(u32::MAX as usize) as u32;
    hdr[10] = limits.max_depth.min(u32::MAX as usize) as u32;
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
    // The hello, if the transport asked for a handshake.
    if let Some(slot) = self::slot(ep) {
        events::drain(ep, slot);
    }
    leave();
    ep
}

/// Destroys the endpoint: its calls fail, it serves no more.
pub(super) fn destroy(ep: u32) {
    super::with(ep, |slot| {
        slot.timers = Timers::default();
        slot.core.destroy();
    });
}

/// Forgets a destroyed endpoint (its number may be reused: abi.js retires
/// the JS state that knew it first, so no late callback reaches the next).
pub(super) fn close(ep: u32) {
    enter();
    if let Some(slot) = SLOTS.get().get_mut(ep as usize) {
        *slot = None;
    }
    leave();
}

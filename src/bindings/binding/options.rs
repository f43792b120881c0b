//! An endpoint's options as `openOptions` (glue.js) reads them: ten numbers
//! it writes into the module's memory, turned into the core's `Config` and
//! what the binding keeps. No option is read by name here.

use wasm_bindgen::prelude::*;

use super::super::boundary::{self as js, opening};
use crate::core::{BatchPolicy, Batching, Config, Dialect, Handshake, Limits, Roles, SessionSetup, DEFAULT_GRACE_MS};

/// The default per-call timeout of the JS API, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;

/// The most messages a session keeps for a connection that dropped.
const DEFAULT_MAX_KEPT: usize = 1_000;

/// What the options said, besides the core's configuration.
pub(super) struct Opening {
    pub config: Config,
    /// `opening` bits.
    pub flags: u32,
    pub default_timeout: f64,
    pub session: Option<SessionSetup>,
}

/// Reads `options` and what `transport` says of itself (`openOptions`);
/// a `TypeError` when the transport is not one.
pub(super) fn read(transport: &JsValue, options: &JsValue, roles: Roles) -> Result<Opening, JsValue> {
    let mut slots = [0f64; 10];
    if js::open_options(transport, options, &wasm_bindgen::memory(), slots.as_mut_ptr() as i32) != 0 {
        return Err(js::type_error("transport must have send(message) and onMessage(handler)"));
    }
    let [flags, timeout, batching, batches, max_in_flight, max_bytes, max_depth, session, grace, max_kept] = slots;
    let flags = flags as u32;
    let at_least_one =
        |slot: f64, default: usize| if slot >= 1.0 { slot.min(u32::MAX as f64) as usize } else { default };
    let limits = Limits {
        max_in_flight: at_least_one(max_in_flight, Limits::DEFAULT.max_in_flight),
        max_message_bytes: at_least_one(max_bytes, Limits::DEFAULT.max_message_bytes),
        max_depth: at_least_one(max_depth, Limits::DEFAULT.max_depth),
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
            _ if flags & opening::ANNOUNCE != 0 => Handshake::Announce,
            _ => Handshake::Off,
        },
        batching: match batching as u32 {
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
    let session = match session as u32 {
        1 => Some(SessionSetup::Client { max_kept: DEFAULT_MAX_KEPT }),
        2 => js::named(&js::named(transport, "session"), "id").as_string().map(|id| SessionSetup::Server {
            id,
            grace_ms: if grace >= 0.0 { grace as u64 } else { DEFAULT_GRACE_MS },
            max_kept: if max_kept >= 1.0 { max_kept as usize } else { DEFAULT_MAX_KEPT },
        }),
        _ => None,
    };
    let default_timeout = if timeout.is_nan() { DEFAULT_TIMEOUT_MS } else { timeout };
    Ok(Opening { config, flags, default_timeout, session })
}

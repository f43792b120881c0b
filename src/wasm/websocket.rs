//! The WebSocket transport's reconnect schedule: the core's [`Backoff`], read
//! from the `reconnect` option. The transport itself is JS (`websocket.js`,
//! the package's `wiggum-rpc/websocket` entry), outside the module's imports
//! so that a page without WebSockets does not carry it.

use wasm_bindgen::prelude::*;

use crate::core::Backoff;

/// The wait before reconnect attempt `attempt` (from 1), or -1 to give up:
/// the WebSocket transport of `wiggum-rpc/websocket` asks before each
/// attempt, with the settings of its `reconnect` option (`{ initialDelay,
/// maxDelay, factor, jitter, maxAttempts }`), each undefined where not given.
#[wasm_bindgen(js_name = reconnectDelay, skip_typescript)]
pub fn reconnect_delay(settings: &[f64], attempt: u32, random: f64) -> f64 {
    let mut backoff = Backoff::default();
    let given = |at: usize| settings.get(at).copied().filter(|n| !n.is_nan());
    backoff.initial_ms = given(0).unwrap_or(backoff.initial_ms);
    backoff.max_ms = given(1).unwrap_or(backoff.max_ms);
    backoff.factor = given(2).unwrap_or(backoff.factor);
    backoff.jitter = given(3).unwrap_or(backoff.jitter);
    backoff.max_attempts = given(4).filter(|n| n.is_finite()).map(|n| n.max(0.0) as u32);
    backoff.delay_ms(attempt, random).unwrap_or(-1.0)
}

//! The WebSocket transport's reconnect schedule: the core's [`Backoff`], read
//! from the `reconnect` option. The transport itself is JS (`websocket.js`,
//! the package's `wiggum-rpc/websocket` entry), outside the module's imports
//! so that a page without WebSockets does not carry it.

use wasm_bindgen::prelude::*;

use crate::core::Backoff;

/// The wait before reconnect attempt `attempt` (from 1), or -1 to give up:
/// the WebSocket transport of `wiggum-rpc/websocket` asks before each
/// attempt, with the settings of its `reconnect` option (`{ initialDelay,
/// maxDelay, factor, jitter, maxAttempts }`), each NaN where not given.
#[wasm_bindgen(js_name = reconnectDelay, skip_typescript)]
pub fn reconnect_delay(
    initial: f64,
    max: f64,
    factor: f64,
    jitter: f64,
    attempts: f64,
    attempt: u32,
    random: f64,
) -> f64 {
    let defaults = Backoff::default();
    let given = |value: f64, default: f64| if value.is_nan() { default } else { value };
    let backoff = Backoff {
        initial_ms: given(initial, defaults.initial_ms),
        max_ms: given(max, defaults.max_ms),
        factor: given(factor, defaults.factor),
        jitter: given(jitter, defaults.jitter),
        max_attempts: attempts.is_finite().then(|| attempts.max(0.0) as u32),
    };
    backoff.delay_ms(attempt, random).unwrap_or(-1.0)
}

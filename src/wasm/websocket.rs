//! The WebSocket transport (feature `websocket`): the transport itself is JS
//! (`websocket.js`, on the postMessage transports' base); what is Rust here is
//! its reconnect schedule, the core's [`Backoff`], read from the options.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::boundary::{self as js, keys};
use crate::core::Backoff;

#[wasm_bindgen(module = "/src/wasm/websocket.js")]
extern "C" {
    #[wasm_bindgen(js_name = openWebSocketTransport, catch)]
    fn open_web_socket_transport(target: &JsValue, options: &JsValue, delay: &JsValue) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen(typescript_custom_section)]
const WEBSOCKET_TYPES: &'static str = r#"
/** When and how often a WebSocket transport redials. */
export interface ReconnectOptions {
  /** The wait before the first attempt, in ms (1000). */
  initialDelay?: number;
  /** The longest wait, in ms (15000). */
  maxDelay?: number;
  /** Each wait is this many times the one before (2). */
  factor?: number;
  /** The random share of each wait, 0 to 1 (0.2): waits only get shorter. */
  jitter?: number;
  /** Attempts before giving up (no limit). */
  maxAttempts?: number;
}
export interface WebSocketTransportOptions {
  /** Reopen a lost connection: `true` for 1 s, 2 s, 4 s, 8 s, then 15 s between attempts. */
  reconnect?: boolean | ReconnectOptions;
  /** The constructor to dial with (Node 20 has no global WebSocket: pass `ws`'s). */
  WebSocket?: new (url: string, protocols?: string | string[]) => unknown;
  protocols?: string | string[];
}
/** A transport made by `webSocketTransport`. */
export interface WebSocketTransport extends RPCTransport {
  send(message: string): void;
  onMessage(handler: (message: unknown) => void): void;
  offMessage(handler: (message: unknown) => void): void;
  on<E extends TransportEvent>(event: E, listener: (detail: TransportEvents[E]) => void): () => void;
  /** Closes the socket (1000) and stops reconnecting. */
  destroy(): void;
  readonly text: true;
  /** 60000: a server may take its time. */
  readonly defaultTimeout: number;
  /** Whether the socket is open now. */
  readonly connected: boolean;
  /** Messages waiting for the connection to open. */
  readonly queued: number;
}
/**
 * JSON-RPC over a WebSocket, as JSON text frames: by URL, or around a socket
 * (a browser WebSocket or one of the `ws` package's, client or server side).
 */
export function webSocketTransport(
  urlOrSocket: string | WebSocket | object,
  options?: WebSocketTransportOptions,
): WebSocketTransport;
"#;

/// `reconnect: true` or `{ initialDelay, maxDelay, factor, jitter, maxAttempts }`.
fn read_backoff(reconnect: &JsValue) -> Option<Backoff> {
    let mut backoff = Backoff::default();
    if reconnect.is_object() {
        let number = |name: &str| js::named(reconnect, name).as_f64();
        backoff.initial_ms = number("initialDelay").unwrap_or(backoff.initial_ms);
        backoff.max_ms = number("maxDelay").unwrap_or(backoff.max_ms);
        backoff.factor = number("factor").unwrap_or(backoff.factor);
        backoff.jitter = number("jitter").unwrap_or(backoff.jitter);
        backoff.max_attempts = number("maxAttempts").filter(|n| n.is_finite()).map(|n| n.max(0.0) as u32);
        Some(backoff)
    } else {
        (reconnect.as_bool() == Some(true)).then_some(backoff)
    }
}

/// A transport over a WebSocket: `target` is a `ws:`/`wss:` URL or an open
/// (or opening) socket. Options: `reconnect` (`true` or the schedule),
/// `WebSocket` (the constructor to dial with, e.g. `ws`'s in Node), `protocols`.
#[wasm_bindgen(js_name = webSocketTransport, skip_typescript)]
pub fn web_socket_transport(target: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    // The wait before reconnect attempt `attempt` (from 1), or undefined to give up.
    let delay: JsValue = match read_backoff(&js::option(&options, keys::RECONNECT)) {
        Some(backoff) => {
            let delay = move |attempt: u32, random: f64| backoff.delay_ms(attempt, random);
            Closure::<dyn Fn(u32, f64) -> Option<f64>>::new(delay).into_js_value().unchecked_into::<Function>().into()
        }
        None => JsValue::UNDEFINED,
    };
    open_web_socket_transport(&target, &options, &delay)
}

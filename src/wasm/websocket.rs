//! The WebSocket transport (feature `websocket`): JSON text frames over a
//! browser `WebSocket` or a socket of Node's `ws` package, lifecycle events,
//! a queue while not connected, and reconnection on the core's [`Backoff`].
//!
//! Only a connection that was open emits `close` (and rejects the calls sent
//! over it, through the endpoint); attempts that never opened only lead to the
//! next attempt, so calls made while reconnecting wait for the new connection.

use crate::prelude::*;

use alloc::rc::{Rc, Weak};
use core::cell::RefCell;

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::boundary::queue_microtask;
use crate::core::Backoff;

#[wasm_bindgen(module = "/src/wasm/websocket.js")]
extern "C" {
    #[wasm_bindgen(js_name = watchSocket)]
    fn watch_socket(socket: &Socket, sink: &Function) -> Function;
    #[wasm_bindgen(js_name = openSocket, catch)]
    fn open_socket(make: &JsValue, url: &str, protocols: &JsValue) -> Result<Socket, JsValue>;
    #[wasm_bindgen(js_name = eventHub)]
    fn event_hub() -> Hub;
    #[wasm_bindgen(js_name = socketTransport)]
    fn socket_transport(state: JsValue, hub: &Hub) -> JsValue;

    type Hub;
    #[wasm_bindgen(method)]
    fn emit(this: &Hub, kind: &str, detail: &JsValue);
}

#[wasm_bindgen]
extern "C" {
    /// The structural part of `WebSocket` both browsers and `ws` provide.
    #[derive(Clone)]
    type Socket;
    #[wasm_bindgen(method, getter, js_name = readyState)]
    fn ready_state(this: &Socket) -> u16;
    #[wasm_bindgen(method, getter)]
    fn url(this: &Socket) -> Option<String>;
    #[wasm_bindgen(method, catch)]
    fn send(this: &Socket, text: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn close(this: &Socket, code: u16) -> Result<(), JsValue>;

    #[wasm_bindgen(js_namespace = Math)]
    fn random() -> f64;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
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

const OPEN: u16 = 1;
/// What a binary frame gets: the other side learns it was not read.
const BINARY_REFUSED: &str = r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"binary frames are not supported: send JSON text"},"id":null}"#;

/// How to reopen the connection, when reconnecting is on.
struct Redial {
    url: String,
    make: JsValue,
    protocols: JsValue,
    backoff: Backoff,
}

struct State {
    /// The current socket and the function that removes its listeners.
    socket: Option<(Socket, Function)>,
    open: bool,
    /// The current connection was open at some point (so losing it is a `close`).
    was_open: bool,
    /// Some connection was open before (so opening again is `reconnected`).
    ever_open: bool,
    /// Reconnect attempts since the last open connection.
    attempt: u32,
    timer: Option<JsValue>,
    handlers: Vec<Function>,
    /// Text that arrived before anyone subscribed.
    inbox: Vec<String>,
    /// Text sent while not connected.
    outbox: Vec<String>,
    destroyed: bool,
}

struct Shared {
    hub: Hub,
    redial: Option<Redial>,
    state: RefCell<State>,
    /// The sink of socket events and the reconnect timer's callback: owned by
    /// their JS functions, holding a weak reference back.
    on_event: Function,
    on_retry: Function,
    on_inbox: Function,
}

/// The wasm side of the object `webSocketTransport` returns (`socketTransport` in websocket.js).
#[wasm_bindgen(skip_typescript)]
pub struct WebSocketTransportState {
    shared: Rc<Shared>,
}

fn option(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        js_sys::Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

/// `reconnect: true` or `{ initialDelay, maxDelay, factor, jitter, maxAttempts }`.
fn read_backoff(reconnect: &JsValue) -> Option<Backoff> {
    let mut backoff = Backoff::default();
    if reconnect.is_object() {
        let number = |name: &str| option(reconnect, name).as_f64();
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
    let make = option(&options, "WebSocket");
    let protocols = option(&options, "protocols");
    let backoff = read_backoff(&option(&options, "reconnect"));
    let (socket, redial) = if let Some(url) = target.as_string() {
        let socket = open_socket(&make, &url, &protocols)?;
        (socket, backoff.map(|backoff| Redial { url, make, protocols, backoff }))
    } else if target.is_object() {
        let socket: Socket = target.unchecked_into();
        // A wrapped socket is redialled at its own URL with its own constructor.
        let make = if make.is_undefined() { option(&socket, "constructor") } else { make };
        let redial = match (backoff, socket.url()) {
            (Some(backoff), Some(url)) => Some(Redial { url, make, protocols, backoff }),
            (Some(_), None) => {
                return Err(js_sys::TypeError::new("webSocketTransport: reconnect needs the socket's url").into())
            }
            _ => None,
        };
        (socket, redial)
    } else {
        return Err(js_sys::TypeError::new("webSocketTransport: pass a ws:// URL or a WebSocket").into());
    };
    let hub = event_hub();
    let shared = Rc::new_cyclic(|weak: &Weak<Shared>| {
        let callback = |f: fn(&Shared, u8, JsValue)| -> Function {
            let weak = weak.clone();
            Closure::<dyn FnMut(u8, JsValue)>::new(move |kind: u8, data: JsValue| {
                if let Some(shared) = weak.upgrade() {
                    f(&shared, kind, data);
                }
            })
            .into_js_value()
            .unchecked_into()
        };
        Shared {
            hub,
            redial,
            state: RefCell::new(State {
                socket: None,
                open: false,
                was_open: false,
                ever_open: false,
                attempt: 0,
                timer: None,
                handlers: Vec::new(),
                inbox: Vec::new(),
                outbox: Vec::new(),
                destroyed: false,
            }),
            on_event: callback(|shared, kind, data| shared.on_event(kind, data)),
            on_retry: callback(|shared, _, _| shared.dial()),
            on_inbox: callback(|shared, _, _| shared.deliver_inbox()),
        }
    });
    shared.watch(socket);
    let hub = shared.hub.clone();
    Ok(socket_transport(WebSocketTransportState { shared }.into(), &hub))
}

impl Clone for Hub {
    fn clone(&self) -> Self {
        JsValue::clone(self).unchecked_into()
    }
}

#[wasm_bindgen]
impl WebSocketTransportState {
    /// Sends a text frame, or queues it until the connection opens. Throws
    /// once the connection is closed for good (or the transport destroyed).
    pub fn send(&self, message: JsValue) -> Result<(), JsValue> {
        let text = message.as_string().ok_or_else(|| js_sys::TypeError::new("WebSocket messages are JSON text"))?;
        let mut state = self.shared.state.borrow_mut();
        if state.destroyed {
            return Err(js_sys::Error::new("transport destroyed").into());
        }
        match &state.socket {
            Some((socket, _)) if state.open => socket.send(&text),
            None if state.timer.is_none() => Err(js_sys::Error::new("WebSocket is closed").into()),
            _ => {
                state.outbox.push(text);
                Ok(())
            }
        }
    }

    /// Adds a handler for incoming messages (JSON text). The first one also
    /// gets, on a microtask, what arrived before it.
    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&self, handler: Function) {
        let first = {
            let mut state = self.shared.state.borrow_mut();
            if state.destroyed {
                return;
            }
            state.handlers.push(handler);
            state.handlers.len() == 1 && !state.inbox.is_empty()
        };
        if first {
            queue_microtask(&self.shared.on_inbox);
        }
    }

    #[wasm_bindgen(js_name = offMessage)]
    pub fn off_message(&self, handler: Function) {
        let handler: &JsValue = &handler;
        self.shared.state.borrow_mut().handlers.retain(|h| AsRef::<JsValue>::as_ref(h) != handler);
    }

    /// Closes the socket (code 1000), stops reconnecting, drops what is queued.
    pub fn destroy(&self) {
        let (socket, timer) = {
            let mut state = self.shared.state.borrow_mut();
            if core::mem::replace(&mut state.destroyed, true) {
                return;
            }
            state.handlers.clear();
            state.inbox.clear();
            state.outbox.clear();
            state.open = false;
            (state.socket.take(), state.timer.take())
        };
        if let Some(timer) = timer {
            clear_timeout(&timer);
        }
        if let Some((socket, unwatch)) = socket {
            let _ = unwatch.call0(&JsValue::UNDEFINED);
            let _ = socket.close(1000);
        }
    }

    #[wasm_bindgen(getter)]
    pub fn connected(&self) -> bool {
        self.shared.state.borrow().open
    }

    /// Messages waiting for the connection to open.
    #[wasm_bindgen(getter)]
    pub fn queued(&self) -> usize {
        self.shared.state.borrow().outbox.len()
    }
}

impl Shared {
    fn watch(&self, socket: Socket) {
        let unwatch = watch_socket(&socket, &self.on_event);
        let already_open = socket.ready_state() == OPEN;
        let closed = socket.ready_state() > OPEN;
        self.state.borrow_mut().socket = Some((socket, unwatch));
        if already_open {
            self.on_event(0, JsValue::UNDEFINED);
        } else if closed {
            self.on_event(2, JsValue::UNDEFINED);
        }
    }

    fn on_event(&self, kind: u8, data: JsValue) {
        match kind {
            0 => self.opened(),
            1 => match data.as_string() {
                Some(text) => self.deliver(text),
                None => self.refuse_binary(),
            },
            2 => self.closed(data),
            _ => self.emit_error(js_sys::Error::new("WebSocket error")),
        }
    }

    fn opened(&self) {
        let (outbox, reconnected) = {
            let mut state = self.state.borrow_mut();
            let Some((socket, _)) = &state.socket else { return };
            let socket = socket.clone();
            state.open = true;
            state.was_open = true;
            let reconnected = state.ever_open.then_some(state.attempt);
            state.ever_open = true;
            state.attempt = 0;
            (
                core::mem::take(&mut state.outbox).into_iter().map(|text| (socket.clone(), text)).collect::<Vec<_>>(),
                reconnected,
            )
        };
        for (socket, text) in outbox {
            // Accepted earlier: a failure here shows as the call's timeout.
            let _ = socket.send(&text);
        }
        self.hub.emit("open", &Object::new());
        if let Some(attempt) = reconnected {
            self.hub.emit("reconnected", &detail(&[("attempt", attempt.into())]));
        }
    }

    fn closed(&self, info: JsValue) {
        let (lost, retry) = {
            let mut state = self.state.borrow_mut();
            if let Some((_, unwatch)) = state.socket.take() {
                let _ = unwatch.call0(&JsValue::UNDEFINED);
            }
            state.open = false;
            let lost = core::mem::take(&mut state.was_open);
            if state.destroyed {
                return;
            }
            let retry = self.redial.as_ref().and_then(|redial| {
                state.attempt += 1;
                redial.backoff.delay_ms(state.attempt, random()).map(|delay| (state.attempt, delay))
            });
            if retry.is_none() {
                // Closed for good: what waits will never go.
                state.outbox.clear();
            }
            (lost, retry)
        };
        let info = if info.is_object() { info } else { detail(&[("code", 1006.into())]) };
        // Calls sent over a lost connection fail now; so does everything once
        // there is no next attempt.
        if lost || retry.is_none() {
            self.hub.emit("close", &info);
        }
        if let Some((attempt, delay)) = retry {
            let timer = set_timeout(&self.on_retry, delay);
            self.state.borrow_mut().timer = Some(timer);
            self.hub.emit("reconnecting", &detail(&[("attempt", attempt.into()), ("delay", delay.into())]));
        }
    }

    /// Opens the next connection (the reconnect timer fired).
    fn dial(&self) {
        let Some(redial) = &self.redial else { return };
        {
            let mut state = self.state.borrow_mut();
            state.timer = None;
            if state.destroyed {
                return;
            }
        }
        match open_socket(&redial.make, &redial.url, &redial.protocols) {
            Ok(socket) => self.watch(socket),
            Err(error) => {
                self.emit_error(error);
                self.closed(JsValue::UNDEFINED);
            }
        }
    }

    fn deliver(&self, text: String) {
        let handlers = {
            let mut state = self.state.borrow_mut();
            if state.handlers.is_empty() {
                state.inbox.push(text);
                return;
            }
            state.handlers.clone()
        };
        let text = JsValue::from_str(&text);
        for handler in handlers {
            let _ = handler.call1(&JsValue::UNDEFINED, &text);
        }
    }

    fn deliver_inbox(&self) {
        let inbox = core::mem::take(&mut self.state.borrow_mut().inbox);
        for text in inbox {
            self.deliver(text);
        }
    }

    fn refuse_binary(&self) {
        let socket = self.state.borrow().socket.as_ref().map(|(socket, _)| socket.clone());
        if let Some(socket) = socket {
            let _ = socket.send(BINARY_REFUSED);
        }
        self.emit_error(js_sys::Error::new("binary frame refused: wiggum-rpc reads JSON text frames only"));
    }

    fn emit_error(&self, error: impl Into<JsValue>) {
        self.hub.emit("error", &detail(&[("error", error.into())]));
    }
}

fn detail(fields: &[(&str, JsValue)]) -> JsValue {
    let object: JsValue = Object::new().into();
    for (name, value) in fields {
        let _ = js_sys::Reflect::set(&object, &JsValue::from_str(name), value);
    }
    object
}

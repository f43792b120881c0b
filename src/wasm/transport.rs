//! postMessage transports: a window (iframe ↔ parent), a MessagePort, a
//! Worker and the worker's own global scope. Each owns its listener and, for
//! ports, the port itself; `destroy()` releases them.
//!
//! Only JSON-RPC traffic is taken (an array, or an object with
//! `jsonrpc: "2.0"`); everything else on the channel is left alone. Messages
//! that arrive before anyone subscribed wait in an inbox, and with the
//! handshake on, messages sent before the other side is listening wait in an
//! outbox, so nothing is lost while either side is still loading.

use crate::prelude::*;

use alloc::rc::{Rc, Weak};
use core::cell::RefCell;

use js_sys::{Array, Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{get, keys, message_route, notification_message, poster, queue_microtask, set, transport_object};

/// The handshake notification: `ack: false` asks the other side to answer.
const READY: &str = "$/ready";

#[wasm_bindgen]
extern "C" {
    /// Anything with `postMessage` and `addEventListener`: Window, Worker,
    /// MessagePort, DedicatedWorkerGlobalScope.
    #[derive(Clone)]
    pub type Channel;
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn add_event_listener(this: &Channel, kind: &str, listener: &Function);
    #[wasm_bindgen(method, js_name = removeEventListener)]
    fn remove_event_listener(this: &Channel, kind: &str, listener: &Function);
    #[wasm_bindgen(method, catch)]
    fn start(this: &Channel) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn close(this: &Channel) -> Result<(), JsValue>;

    #[wasm_bindgen(thread_local_v2, js_name = globalThis)]
    static GLOBAL: Channel;
}

struct State {
    handlers: Vec<Function>,
    inbox: Vec<JsValue>,
    /// The inbox is delivered on a microtask after the first subscription.
    inbox_scheduled: bool,
    outbox: Vec<(JsValue, JsValue)>,
    peer_ready: bool,
    destroyed: bool,
}

struct Shared {
    /// Posts to the other side (`poster` in glue.js).
    post: Function,
    /// The port this transport owns and closes on destroy, if it is a port.
    port: Option<Channel>,
    listen_on: Channel,
    handshake: bool,
    state: RefCell<State>,
    /// Delivers the inbox to the first subscriber, on a microtask. (Like the
    /// listener's wasm side, owned by its JS function and holding a weak
    /// reference back, so a late call does nothing.)
    on_inbox: Function,
    /// The JS side of the listener (`messageRoute`): its handlers and whether
    /// it may hand messages to them without waking wasm.
    route: JsValue,
    /// The JS `message` listener added to `listen_on`, removed by `destroy()`.
    listener: JsValue,
}

/// What `messageRoute` says a message is.
const MESSAGE: u8 = 0;
const HELLO: u8 = 1;

/// The wasm side of a postMessage transport: the state behind the JS object
/// that `windowTransport`, `portTransport`, `workerTransport` and
/// `selfTransport` return (`transportObject` in glue.js).
#[wasm_bindgen(skip_typescript)]
pub struct PostMessageTransportState {
    shared: Rc<Shared>,
}

fn handshake_option(options: &JsValue, default: bool) -> bool {
    if options.is_object() {
        get(options, &keys::HANDSHAKE).as_bool().unwrap_or(default)
    } else {
        default
    }
}

/// A transport to another window: an iframe's `contentWindow` from its
/// parent, or `window.parent` from inside the iframe.
#[wasm_bindgen(js_name = windowTransport, skip_typescript)]
pub fn window_transport(
    target: JsValue,
    source: JsValue,
    origin: Option<String>,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    if !target.is_object() {
        return Err(js_sys::TypeError::new("windowTransport: target must be a Window").into());
    }
    let listen_on: Channel = if source.is_undefined() || source.is_null() {
        GLOBAL.with(|global| global.clone())
    } else {
        source.unchecked_into()
    };
    let origin = origin.filter(|o| o != "*");
    // An opaque origin ("null") cannot be named as a target origin; the
    // source check still pins the window.
    let post_origin = match origin.as_deref() {
        Some(o) if o != "null" => o.to_owned(),
        _ => "*".to_owned(),
    };
    let post = poster(&target, &JsValue::from_str(&post_origin));
    let origin = origin.map_or(JsValue::UNDEFINED, |o| JsValue::from_str(&o));
    Ok(PostMessageTransportState::open(post, None, listen_on, &target, &origin, handshake_option(&options, true)))
}

/// A transport over one end of a `MessageChannel`. Starts the port;
/// `destroy()` closes it.
#[wasm_bindgen(js_name = portTransport, skip_typescript)]
pub fn port_transport(port: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    if !port.is_object() {
        return Err(js_sys::TypeError::new("portTransport: port must be a MessagePort").into());
    }
    let port: Channel = port.unchecked_into();
    let transport = PostMessageTransportState::open_channel(port.clone(), true, handshake_option(&options, false));
    port.start()?;
    Ok(transport)
}

/// The main thread's side of a dedicated `Worker`.
#[wasm_bindgen(js_name = workerTransport, skip_typescript)]
pub fn worker_transport(worker: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    if !worker.is_object() {
        return Err(js_sys::TypeError::new("workerTransport: worker must be a Worker").into());
    }
    Ok(PostMessageTransportState::open_channel(worker.unchecked_into(), false, handshake_option(&options, true)))
}

/// The worker's side of `workerTransport`: talks to whoever created this
/// dedicated worker, through its global scope.
#[wasm_bindgen(js_name = selfTransport, skip_typescript)]
pub fn self_transport(options: JsValue) -> JsValue {
    let scope = GLOBAL.with(|global| global.clone());
    PostMessageTransportState::open_channel(scope, false, handshake_option(&options, true))
}

impl PostMessageTransportState {
    /// A transport that posts to and listens on one channel (a port, a worker,
    /// the worker's scope), with no source or origin to check; it closes the
    /// channel on destroy if it `owns_port`.
    fn open_channel(channel: Channel, owns_port: bool, handshake: bool) -> JsValue {
        let undefined = JsValue::UNDEFINED;
        let post = poster(&channel, &undefined);
        let port = owns_port.then(|| channel.clone());
        Self::open(post, port, channel, &undefined, &undefined, handshake)
    }

    /// `source` and `origin` (or `undefined`) are what the listener insists on.
    /// Returns the JS transport object, with this state behind it.
    fn open(
        post: Function,
        port: Option<Channel>,
        listen_on: Channel,
        source: &JsValue,
        origin: &JsValue,
        handshake: bool,
    ) -> JsValue {
        let shared = Rc::new_cyclic(|weak: &Weak<Shared>| {
            let on_message = {
                let weak = weak.clone();
                Closure::<dyn FnMut(JsValue, u8)>::new(move |data: JsValue, ready: u8| {
                    if let Some(shared) = weak.upgrade() {
                        shared.on_message(data, ready);
                    }
                })
                .into_js_value()
            };
            let on_inbox = {
                let weak = weak.clone();
                Closure::<dyn FnMut()>::new(move || {
                    if let Some(shared) = weak.upgrade() {
                        shared.deliver_inbox();
                    }
                })
                .into_js_value()
                .unchecked_into()
            };
            let route = message_route(source, origin, on_message.unchecked_ref());
            let listener = get(&route, &keys::LISTENER);
            Shared {
                post,
                port,
                listen_on,
                handshake,
                state: RefCell::new(State {
                    handlers: Vec::new(),
                    inbox: Vec::new(),
                    inbox_scheduled: false,
                    outbox: Vec::new(),
                    peer_ready: !handshake,
                    destroyed: false,
                }),
                on_inbox,
                route,
                listener,
            }
        });
        shared.listen_on.add_event_listener("message", shared.listener.unchecked_ref());
        shared.update_route();
        let route = shared.route.clone();
        let post = shared.post.clone();
        transport_object(&route, PostMessageTransportState { shared }.into(), &post)
    }
}

#[wasm_bindgen]
impl PostMessageTransportState {
    /// Posts a message (queued until the other side is listening when the
    /// handshake is on). Throws what `postMessage` throws, e.g. `DataCloneError`.
    pub fn send(&self, message: JsValue, transfer: JsValue) -> Result<(), JsValue> {
        let shared = &self.shared;
        {
            let mut state = shared.state.borrow_mut();
            if state.destroyed {
                return Err(js_sys::Error::new("transport destroyed").into());
            }
            if !state.peer_ready {
                state.outbox.push((message, transfer));
                return Ok(());
            }
        }
        shared.post(&message, &transfer)
    }

    /// Adds a handler for incoming JSON-RPC messages. The first one also
    /// receives, on the next microtask, whatever arrived before it.
    #[wasm_bindgen(js_name = onMessage)]
    pub fn on_message(&self, handler: Function) {
        let shared = &self.shared;
        let first = {
            let mut state = shared.state.borrow_mut();
            if state.destroyed {
                return;
            }
            state.handlers.push(handler);
            state.inbox_scheduled |= state.handlers.len() == 1;
            state.handlers.len() == 1
        };
        shared.update_route();
        if !first {
            return;
        }
        if shared.handshake {
            shared.announce(false);
        }
        // Later in this turn, so methods registered right after the
        // constructor are in place before early requests are dispatched.
        queue_microtask(&shared.on_inbox);
    }

    /// Removes a handler added with `onMessage`.
    #[wasm_bindgen(js_name = offMessage)]
    pub fn off_message(&self, handler: Function) {
        let handler: &JsValue = &handler;
        self.shared.state.borrow_mut().handlers.retain(|h| AsRef::<JsValue>::as_ref(h) != handler);
        self.shared.update_route();
    }

    /// Removes the listener, closes an owned port, drops queued messages.
    pub fn destroy(&self) {
        let shared = &self.shared;
        {
            let mut state = shared.state.borrow_mut();
            if state.destroyed {
                return;
            }
            state.destroyed = true;
            state.handlers.clear();
            state.inbox.clear();
            state.outbox.clear();
        }
        shared.update_route();
        shared.listen_on.remove_event_listener("message", shared.listener.unchecked_ref());
        if let Some(port) = &shared.port {
            let _ = port.close();
        }
    }

    /// Messages waiting for the other side's handshake (for diagnostics).
    #[wasm_bindgen(getter)]
    pub fn queued(&self) -> usize {
        self.shared.state.borrow().outbox.len()
    }
}

impl Shared {
    /// Tells the JS listener who to call, and whether it may call them
    /// directly: only once nothing waits in wasm (the other side is ready, the
    /// inbox has been delivered), so messages keep their order.
    fn update_route(&self) {
        let (handlers, direct) = {
            let state = self.state.borrow();
            let direct = state.peer_ready && !state.inbox_scheduled && !state.destroyed && !state.handlers.is_empty();
            (state.handlers.iter().collect::<Array>(), direct)
        };
        let open = {
            let state = self.state.borrow();
            state.peer_ready && !state.destroyed
        };
        set(&self.route, &keys::HANDLERS, &handlers);
        set(&self.route, &keys::DIRECT, &JsValue::from_bool(direct));
        set(&self.route, &keys::OPEN, &JsValue::from_bool(open));
    }

    fn post(&self, message: &JsValue, transfer: &JsValue) -> Result<(), JsValue> {
        self.post.call2(&JsValue::UNDEFINED, message, transfer).map(drop)
    }

    fn announce(&self, ack: bool) {
        let params: JsValue = Object::new().into();
        let _ = js_sys::Reflect::set(&params, &JsValue::from_str("ack"), &JsValue::from_bool(ack));
        let _ = self.post(&notification_message(&JsValue::from_str(READY), &params), &JsValue::UNDEFINED);
    }

    fn on_message(&self, data: JsValue, ready: u8) {
        if ready != MESSAGE && self.handshake {
            self.peer_is_ready();
            // A hello asks for an answer, once someone here is listening.
            let listening = !self.state.borrow().handlers.is_empty();
            if ready == HELLO && listening {
                self.announce(true);
            }
            return;
        }
        // Any other JSON-RPC message also shows the other side is there.
        self.peer_is_ready();
        self.deliver(data);
    }

    fn peer_is_ready(&self) {
        let outbox = {
            let mut state = self.state.borrow_mut();
            if state.peer_ready || state.destroyed {
                return;
            }
            state.peer_ready = true;
            core::mem::take(&mut state.outbox)
        };
        self.update_route();
        for (message, transfer) in outbox {
            // A message that cannot be posted now was accepted earlier; the
            // caller's timeout reports it.
            let _ = self.post(&message, &transfer);
        }
    }

    fn deliver_inbox(&self) {
        let inbox = {
            let mut state = self.state.borrow_mut();
            state.inbox_scheduled = false;
            core::mem::take(&mut state.inbox)
        };
        for message in inbox {
            self.deliver(message);
        }
        self.update_route();
    }

    fn deliver(&self, message: JsValue) {
        let handlers = {
            let mut state = self.state.borrow_mut();
            if state.destroyed {
                return;
            }
            if state.handlers.is_empty() {
                state.inbox.push(message);
                return;
            }
            state.handlers.clone()
        };
        for handler in handlers {
            let _ = handler.call1(&JsValue::UNDEFINED, &message);
        }
    }
}

//! Where a Peer posts and listens, on web-sys: a `Worker` (from the page),
//! the worker's own scope (inside it), a `MessagePort`, a `Window` (an
//! iframe from its parent, the parent from its iframe). Only JSON-RPC
//! traffic is taken (an array, or an object with `jsonrpc: "2.0"`, from the
//! expected window and origin); everything else on the channel is left to
//! its other listeners. The same rules as the npm package's transports.

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, EventTarget, HtmlIFrameElement, MessagePort, Window, Worker};
use wiggum_rpc::core::Handshake;

/// What a Peer posts to.
#[derive(Clone)]
pub(crate) enum Target {
    Worker(Worker),
    Scope(DedicatedWorkerGlobalScope),
    Port(MessagePort),
    /// A window, and the origin it must have for a post to reach it.
    Window(Window, String),
}

/// One side of a postMessage boundary: made by [`worker`], [`worker_scope`],
/// [`port`] or [`window`], given to [`crate::Peer::new`].
pub struct Transport {
    pub(crate) target: Target,
    pub(crate) listen_on: EventTarget,
    /// What incoming messages must come from (a window's `source` and `origin`).
    pub(crate) source: Option<JsValue>,
    pub(crate) origin: Option<String>,
    pub(crate) handshake: Handshake,
    /// A port this transport closes when its Peer is destroyed.
    pub(crate) owned_port: Option<MessagePort>,
    /// A frame of this document still loading: calls wait for its `load`.
    pub(crate) loading_frame: Option<HtmlIFrameElement>,
}

impl Transport {
    fn channel(target: Target, listen_on: EventTarget) -> Self {
        Transport {
            target,
            listen_on,
            source: None,
            origin: None,
            handshake: Handshake::Announce,
            owned_port: None,
            loading_frame: None,
        }
    }

    /// No `$/ready` hello: toward a peer that would take it for a call it
    /// does not know (it answers a notification with nothing, so this only
    /// saves a message; the npm package's `{ handshake: false }`).
    pub fn without_handshake(mut self) -> Self {
        self.handshake = Handshake::Off;
        self
    }

    /// Calls wait until the other side has said hello (a peer that loads
    /// its library only after its document: the npm package's `{ handshake: "wait" }`).
    pub fn wait_for_hello(mut self) -> Self {
        self.handshake = Handshake::Hold;
        self
    }

    /// A port handed in is closed by the Peer's end unless this says not to
    /// (a port another protocol also uses).
    pub fn keep_port_open(mut self) -> Self {
        self.owned_port = None;
        self
    }

    /// Posts one message or batch with what it moves.
    pub(crate) fn post(&self, message: &JsValue, transfer: &Array) -> Result<(), JsValue> {
        match &self.target {
            Target::Worker(worker) => worker.post_message_with_transfer(message, transfer),
            Target::Scope(scope) => scope.post_message_with_transfer(message, transfer),
            Target::Port(port) => port.post_message_with_transferable(message, transfer),
            Target::Window(window, origin) => window.post_message_with_transfer(message, origin, transfer),
        }
    }
}

/// The page's side of a dedicated `Worker`. Calls go at once: a worker
/// keeps what is posted before its script runs (and a wiggum-rpc worker,
/// JS or Rust, what comes before its Peer exists).
pub fn worker(worker: &Worker) -> Transport {
    Transport::channel(Target::Worker(worker.clone()), worker.clone().into())
}

/// Inside a dedicated worker: talks to whoever created it. Messages that
/// came before (while the app's module loaded) are taken too.
///
/// Panics outside a dedicated worker.
pub fn worker_scope() -> Transport {
    let scope: DedicatedWorkerGlobalScope =
        js_sys::global().dyn_into().expect("worker_scope() runs inside a dedicated worker");
    Transport::channel(Target::Scope(scope.clone()), scope.into())
}

/// One end of a `MessageChannel`. The Peer starts it, and closes it when
/// destroyed unless [`Transport::keep_port_open`] says not to.
pub fn port(port: MessagePort) -> Transport {
    port.start();
    let mut transport = Transport::channel(Target::Port(port.clone()), port.clone().into());
    transport.owned_port = Some(port);
    transport
}

/// Another window: an iframe's `contentWindow` from its parent, or
/// `window.parent()` from inside the iframe. Only messages whose `source` is
/// `target` and whose origin is `origin` are taken, and posts reach `target`
/// only while its document has that origin. `"*"` takes any origin (the
/// source check still pins the window): only for a frame you trust with
/// whatever you send it.
///
/// Toward an iframe of this document still loading, calls wait until it has
/// loaded; toward one that has loaded (or a parent), they go at once.
pub fn window(target: &Window, origin: &str) -> Transport {
    let own = web_sys::window().expect("window() runs in a window");
    // An opaque origin ("null") cannot be named as a target: the source check pins the window.
    let target_origin = if origin == "null" { "*" } else { origin };
    let mut transport = Transport::channel(Target::Window(target.clone(), target_origin.into()), own.clone().into());
    transport.source = Some(target.clone().into());
    transport.origin = (origin != "*").then(|| origin.into());
    if let Some(frame) = frame_of(&own, target) {
        if !crate::platform::frame_loaded(target) {
            transport.handshake = Handshake::Hold;
            transport.loading_frame = Some(frame);
        }
    }
    transport
}

/// The `<iframe>` of this document whose window is `target`.
fn frame_of(own: &Window, target: &Window) -> Option<HtmlIFrameElement> {
    let frames = own.document()?.query_selector_all("iframe").ok()?;
    (0..frames.length()).filter_map(|i| frames.get(i)?.dyn_into::<HtmlIFrameElement>().ok()).find(|frame| {
        frame.content_window().is_some_and(|window| JsValue::from(window) == JsValue::from(target.clone()))
    })
}

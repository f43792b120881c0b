//! The Peer: one endpoint of the core on one transport, driven from the
//! browser's event loop. It feeds the core what arrives, the time when a
//! timer fires, the calls made and the handlers' outcomes, and carries out
//! what the core asks (post, run a handler, settle a call, arm a timer).
//! Every rule about what goes on the wire is the core's.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use js_sys::{Array, Function, Reflect};
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{AbortController, AbortSignal, MessageEvent};
use wiggum_rpc::core::{code, CallId, Config, Endpoint, Event, Framing, Outcome, Roles, Transmit, TICK_MS};

use crate::error::Error;
use crate::platform;
use crate::transport::Transport;
use crate::value::Js;
use crate::wire;

/// A JS value as JSON carries it: maps as objects, integers as numbers.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, Error> {
    Ok(value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
}

/// Params as JSON carries them: `()` and `None` (null) are no params at
/// all, which the spec allows where `null` is not.
fn params_of<T: Serialize + ?Sized>(params: &T) -> Result<Option<JsValue>, Error> {
    let params = to_js(params)?;
    Ok((!params.is_null() && !params.is_undefined()).then_some(params))
}

/// How a Peer is made.
#[derive(Clone, Copy, Debug)]
pub struct PeerOptions {
    /// How long a call waits for its answer unless it says otherwise
    /// (`None`: for ever). 10 s, as the JS API's default.
    pub timeout: Option<Duration>,
}

impl Default for PeerOptions {
    fn default() -> Self {
        PeerOptions { timeout: Some(Duration::from_secs(10)) }
    }
}

/// How one call is made ([`Peer::request_value`]).
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    /// This call's timeout instead of the Peer's (`Duration::ZERO`: none).
    pub timeout: Option<Duration>,
    /// What the params' post moves rather than copies (`ArrayBuffer`s,
    /// `MessagePort`s, `OffscreenCanvas`es held in the params).
    pub transfer: Vec<JsValue>,
}

/// A call this side serves, as its handler gets it.
pub struct Incoming {
    /// The params, untouched (`None`: the call had none).
    pub params: Option<JsValue>,
    /// Aborts when the caller cancels the call, the connection closes or
    /// the Peer is destroyed. The answer is still sent if the caller waits.
    pub signal: AbortSignal,
}

/// A handler's answer: a JS value, and what its post moves.
pub struct Reply {
    pub value: JsValue,
    pub transfer: Vec<JsValue>,
}

impl Reply {
    pub fn new(value: JsValue) -> Self {
        Reply { value, transfer: Vec::new() }
    }

    /// An answer whose post moves `transfer` (buffers, ports held in `value`).
    pub fn with_transfer(value: JsValue, transfer: Vec<JsValue>) -> Self {
        Reply { value, transfer }
    }
}

impl From<JsValue> for Reply {
    fn from(value: JsValue) -> Self {
        Reply::new(value)
    }
}

type Answer = Pin<Box<dyn Future<Output = Result<Reply, Error>>>>;

/// What the core calls a handler: JS never sees it.
#[derive(Clone)]
enum Handler {
    Method(Rc<dyn Fn(Incoming) -> Answer>),
    Notification(Rc<dyn Fn(Option<JsValue>)>),
}

/// Where a call's outcome goes: its future reads it.
struct Waiter {
    method: String,
    slot: RefCell<Slot>,
}

#[derive(Default)]
struct Slot {
    outcome: Option<Result<JsValue, Error>>,
    /// The future's, once it has been polled.
    waker: Option<Waker>,
}

impl Waiter {
    fn settle(&self, outcome: Result<JsValue, Error>) {
        let mut slot = self.slot.borrow_mut();
        slot.outcome = Some(outcome);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    }
}

type Core = Endpoint<Js, Handler, Rc<Waiter>>;

struct State {
    core: Core,
    transport: Transport,
    default_timeout: Option<u64>,
    /// Payloads whose post moves these (by identity), and the call they go with.
    transfers: Vec<(JsValue, Array, Option<u64>)>,
    /// The calls this side serves, and what tells their handlers to stop.
    serving: HashMap<CallId, AbortController>,
    /// The timers armed: the tick's handle, and the deadline's with its time.
    tick: Option<f64>,
    deadline: Option<(u64, f64)>,
    flush_scheduled: bool,
    /// This side's presence (a Web Lock) while it lives.
    alive: AbortController,
    /// The other side's presence watched, and whether it went.
    watching: Option<AbortController>,
    gone: bool,
    destroyed: bool,
}

/// What the Peer shares with its listeners and tasks (they hold it weakly).
struct Shared {
    state: RefCell<State>,
    // The JS functions the platform calls back, alive as long as the Peer.
    on_message: Closure<dyn FnMut(MessageEvent)>,
    /// A timer's: its argument says which (0 the tick, 1 the deadline).
    on_timer: Closure<dyn FnMut(JsValue)>,
    on_gone: Closure<dyn FnMut()>,
    /// A frame still loading: its `load`.
    on_load: Option<Closure<dyn FnMut()>>,
}

/// One side of a JSON-RPC 2.0 connection: it calls and it serves. Dropping
/// it (or [`Peer::destroy`]) fails its pending calls, stops serving, removes
/// its listener and closes a port it was given; [`Peer::forget`] keeps it
/// for the life of the page or worker.
pub struct Peer {
    shared: Rc<Shared>,
}

impl Peer {
    /// A Peer on `transport`, with the JS API's defaults.
    pub fn new(transport: Transport) -> Peer {
        Peer::with_options(transport, PeerOptions::default())
    }

    pub fn with_options(transport: Transport, options: PeerOptions) -> Peer {
        let alive = AbortController::new().expect("AbortController");
        let presence = platform::hold_presence(&alive.signal());
        let roles = Roles { client: true, server: true };
        let config = Config { handshake: transport.handshake, ..Config::new(roles) };
        let listen_on = transport.listen_on.clone();
        let loading_frame = transport.loading_frame.clone();
        let state = State {
            core: Endpoint::with_presence(config, presence),
            transport,
            default_timeout: options.timeout.map(|timeout| timeout.as_millis() as u64),
            transfers: Vec::new(),
            serving: HashMap::new(),
            tick: None,
            deadline: None,
            flush_scheduled: false,
            alive,
            watching: None,
            gone: false,
            destroyed: false,
        };
        let shared = Rc::new_cyclic(|weak: &Weak<Shared>| {
            let on_message = {
                let weak = weak.clone();
                Closure::new(move |event: MessageEvent| {
                    if let Some(shared) = weak.upgrade() {
                        receive(&shared, &event);
                    }
                })
            };
            let on_timer = {
                let weak = weak.clone();
                Closure::new(move |which: JsValue| {
                    if let Some(shared) = weak.upgrade() {
                        timer_fired(&shared, which.as_f64() == Some(0.0));
                    }
                })
            };
            let on_gone = {
                let weak = weak.clone();
                Closure::new(move || {
                    if let Some(shared) = weak.upgrade() {
                        peer_gone(&shared);
                    }
                })
            };
            let on_load = loading_frame.as_ref().map(|frame| {
                let weak = weak.clone();
                let target = frame.content_window();
                Closure::new(move || {
                    let Some(shared) = weak.upgrade() else { return };
                    if target.as_ref().is_some_and(|target| platform::frame_loaded(target)) {
                        shared.state.borrow_mut().core.connection_opened();
                        drain(&shared);
                    }
                })
            });
            Shared { state: RefCell::new(state), on_message, on_timer, on_gone, on_load }
        });
        let _ = listen_on.add_event_listener_with_callback("message", shared.on_message.as_ref().unchecked_ref());
        if let (Some(frame), Some(on_load)) = (&loading_frame, &shared.on_load) {
            let _ = frame.add_event_listener_with_callback("load", on_load.as_ref().unchecked_ref());
        }
        // What came before this Peer listened, once its methods are in place
        // (the code that made it registers them in this turn).
        let early = platform::take_early(&listen_on);
        if early.length() > 0 {
            let weak = Rc::downgrade(&shared);
            spawn_local(async move {
                for event in early.iter() {
                    let Some(shared) = weak.upgrade() else { return };
                    receive(&shared, event.unchecked_ref());
                }
            });
        }
        // The hello, if the transport asks for a handshake.
        drain(&shared);
        Peer { shared }
    }

    /// Calls `method` with `params` (serialized as JSON carries them: a
    /// struct as an object, a tuple or a `Vec` as an array; `()` for none)
    /// and reads its result as `R`. The spec wants params structured: a
    /// number or a string alone is refused (`-32602`) before it is sent.
    pub async fn request<P, R>(&self, method: &str, params: &P) -> Result<R, Error>
    where
        P: Serialize + ?Sized,
        R: DeserializeOwned,
    {
        let result = self.request_value(method, params_of(params)?, CallOptions::default()).await?;
        serde_wasm_bindgen::from_value(result).map_err(|error| {
            Error::new(code::INTERNAL_ERROR, format!("The result of {method} is not what was asked: {error}"))
        })
    }

    /// Calls `method` with params passed untouched (a `Blob`, a
    /// `MessagePort`, any structured-clonable value), as `options` say.
    /// Dropping the returned future cancels the call.
    pub fn request_value(&self, method: &str, params: Option<JsValue>, options: CallOptions) -> Request {
        let waiter = Rc::new(Waiter { method: method.into(), slot: RefCell::default() });
        let id = {
            let mut state = self.shared.state.borrow_mut();
            let timeout_ms = match options.timeout {
                Some(timeout) => Some(timeout.as_millis() as u64),
                None => state.default_timeout,
            };
            let call = wiggum_rpc::core::CallOptions { timeout_ms, reset_on_progress: true, ..Default::default() };
            let payload = params.clone();
            let id = state.core.request_with(
                Js(JsValue::from_str(method)),
                params.map(Js),
                waiter.clone(),
                call,
                platform::now,
            );
            if let (Some(payload), Some(id), false) = (payload, id, options.transfer.is_empty()) {
                state.transfers.push((payload, options.transfer.into_iter().collect(), Some(id)));
            }
            id
        };
        drain(&self.shared);
        Request { waiter, id, peer: Rc::downgrade(&self.shared), done: false }
    }

    /// Sends notification `method` with `params` (serialized as for
    /// [`Peer::request`]; `()` for none).
    pub fn notify<P: Serialize + ?Sized>(&self, method: &str, params: &P) -> Result<(), Error> {
        self.notify_value(method, params_of(params)?, Vec::new())
    }

    /// Sends notification `method` with params passed untouched, its post
    /// moving `transfer`.
    pub fn notify_value(&self, method: &str, params: Option<JsValue>, transfer: Vec<JsValue>) -> Result<(), Error> {
        {
            let mut state = self.shared.state.borrow_mut();
            if let (Some(payload), false) = (&params, transfer.is_empty()) {
                state.transfers.push((payload.clone(), transfer.into_iter().collect(), None));
            }
            state.core.notify(Js(JsValue::from_str(method)), params.map(Js)).map_err(Error::from_object)?;
        }
        drain(&self.shared);
        Ok(())
    }

    /// Serves `method`: its params read as `P` (a call whose params do not
    /// read so is answered `-32602`), its result serialized.
    pub fn method<P, R, F, Fut>(&self, name: &str, handler: F)
    where
        P: DeserializeOwned + 'static,
        R: Serialize + 'static,
        F: Fn(P) -> Fut + 'static,
        Fut: Future<Output = Result<R, Error>> + 'static,
    {
        let handler = Rc::new(handler);
        self.method_value(name, move |call: Incoming| {
            let handler = handler.clone();
            async move {
                let params = call.params.unwrap_or(JsValue::UNDEFINED);
                let params: P = serde_wasm_bindgen::from_value(params).map_err(Error::invalid_params)?;
                Ok(Reply::new(to_js(&handler(params).await?)?))
            }
        });
    }

    /// Serves `method` with its params and result as JS values, untouched
    /// (a [`Reply`] may move what it holds), and the call's abort signal.
    pub fn method_value<F, Fut>(&self, name: &str, handler: F)
    where
        F: Fn(Incoming) -> Fut + 'static,
        Fut: Future<Output = Result<Reply, Error>> + 'static,
    {
        let handler: Rc<dyn Fn(Incoming) -> Answer> = Rc::new(move |call| Box::pin(handler(call)));
        self.shared.state.borrow_mut().core.set_method(name, Handler::Method(handler));
    }

    /// Handles notification `name`, its params read as `P` (one that does
    /// not read so is dropped: a notification has no answer).
    pub fn notification<P, F>(&self, name: &str, handler: F)
    where
        P: DeserializeOwned + 'static,
        F: Fn(P) + 'static,
    {
        self.notification_value(name, move |params| {
            if let Ok(params) = serde_wasm_bindgen::from_value(params.unwrap_or(JsValue::UNDEFINED)) {
                handler(params);
            }
        });
    }

    /// Handles notification `name` with its params untouched.
    pub fn notification_value<F: Fn(Option<JsValue>) + 'static>(&self, name: &str, handler: F) {
        self.shared.state.borrow_mut().core.set_notification(name, Handler::Notification(Rc::new(handler)));
    }

    /// Fails every pending call (`DESTROYED`), stops serving, removes the
    /// listener, frees this side's presence (the other side learns it has
    /// gone), closes a port it was given. Done again, nothing.
    pub fn destroy(&self) {
        destroy(&self.shared);
    }

    /// Keeps this Peer serving for the life of the page or worker, with no
    /// handle left to destroy it.
    pub fn forget(self) {
        std::mem::forget(self);
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        destroy(&self.shared);
    }
}

/// A call in flight: resolves with its result, or the error it failed with.
/// Dropped before it settles, it cancels the call (`$/cancelRequest` to a
/// peer that reads it; the handler's signal aborts there).
pub struct Request {
    waiter: Rc<Waiter>,
    id: Option<u64>,
    peer: Weak<Shared>,
    done: bool,
}

impl Future for Request {
    type Output = Result<JsValue, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.waiter.slot.borrow_mut();
        match slot.outcome.take() {
            Some(outcome) => {
                drop(slot);
                self.done = true;
                Poll::Ready(outcome)
            }
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        if self.done || self.waiter.slot.borrow().outcome.is_some() {
            return;
        }
        let (Some(id), Some(shared)) = (self.id, self.peer.upgrade()) else { return };
        let cancel = move |shared: &Rc<Shared>| {
            shared.state.borrow_mut().core.cancel(id);
            drain(shared);
        };
        // Dropped while the Peer is busy (it never holds its state across
        // user code, but a future may be dropped anywhere): a turn later.
        let busy = shared.state.try_borrow_mut().is_err();
        match busy {
            false => cancel(&shared),
            true => spawn_local(async move { cancel(&shared) }),
        }
    }
}

fn receive(shared: &Rc<Shared>, event: &MessageEvent) {
    {
        let mut state = shared.state.borrow_mut();
        if state.destroyed {
            return;
        }
        let transport = &state.transport;
        if let Some(source) = &transport.source {
            if event.source().map(JsValue::from).as_ref() != Some(source) {
                return;
            }
        }
        if transport.origin.as_ref().is_some_and(|origin| *origin != event.origin()) {
            return;
        }
        // The core tells JSON-RPC from the rest of the channel's traffic (Framing::Object), and leaves the rest alone.
        state.core.receive(&Js(event.data()), Framing::Object);
    }
    drain(shared);
}

/// Carries out what the core asks, in order, then arms its timers. The
/// state is never borrowed while a handler, a waker or the platform runs.
fn drain(shared: &Rc<Shared>) {
    loop {
        let event = shared.state.borrow_mut().core.poll();
        let Some(event) = event else { break };
        match event {
            Event::Transmit(transmit) => post(shared, transmit),
            Event::Invoke { call, handler, params, .. } => invoke(shared, call, handler, params),
            Event::Notify { handler: Handler::Notification(handler), params } => handler(params.map(|p| p.0)),
            Event::Settled { id, waiter, outcome } => {
                shared.state.borrow_mut().transfers.retain(|(_, _, call)| *call != Some(id));
                waiter.settle(match outcome {
                    Outcome::Result(result) => Ok(result.0),
                    Outcome::Error(error) => Err(Error::from_object(error)),
                    Outcome::Failed(failure) => Err(Error::failed(failure, &waiter.method)),
                });
            }
            Event::Cancelled { call } | Event::DeadlinePassed { call } => {
                if let Some(controller) = shared.state.borrow().serving.get(&call) {
                    controller.abort();
                }
            }
            Event::WatchPeer(name) => watch(shared, &name),
            Event::ScheduleFlush => schedule_flush(shared),
            // Progress and chunks (no streaming here yet), the other side's
            // capabilities (the core reads them), notifications nobody handles.
            _ => {}
        }
    }
    arm_timers(shared);
}

fn post(shared: &Rc<Shared>, transmit: Transmit<Js>) {
    let message = wire::transmit(&transmit);
    let failed = {
        let mut state = shared.state.borrow_mut();
        let transfer = Array::new();
        for payload in wire::payloads(&transmit) {
            if let Some(at) = state.transfers.iter().position(|(value, _, _)| value == payload) {
                let (_, list, _) = state.transfers.swap_remove(at);
                for item in list.iter() {
                    transfer.push(&item);
                }
            }
        }
        match state.transport.post(&message, &transfer) {
            Ok(()) => None,
            Err(error) => {
                let reason = Reflect::get(&error, &JsValue::from_str("message"))
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "the transport refused the message".into());
                state.core.transmit_failed(transmit, &reason, |_| true).map(|(_, waiter)| (waiter, reason))
            }
        }
    };
    if let Some((waiter, reason)) = failed {
        waiter.settle(Err(Error::new(code::SEND_FAILED, reason)));
    }
}

fn invoke(shared: &Rc<Shared>, call: CallId, handler: Handler, params: Option<Js>) {
    let Handler::Method(handler) = handler else { return };
    let controller = AbortController::new().expect("AbortController");
    let signal = controller.signal();
    shared.state.borrow_mut().serving.insert(call, controller);
    let answer = handler(Incoming { params: params.map(|p| p.0), signal });
    let weak = Rc::downgrade(shared);
    spawn_local(async move {
        let outcome = answer.await;
        let Some(shared) = weak.upgrade() else { return };
        {
            let mut state = shared.state.borrow_mut();
            state.serving.remove(&call);
            let outcome = match outcome {
                Ok(Reply { value, transfer }) => {
                    // A handler that returns nothing answers `result: null`, as the spec has it.
                    let value = if value.is_undefined() { JsValue::NULL } else { value };
                    if !transfer.is_empty() {
                        state.transfers.push((value.clone(), transfer.into_iter().collect(), None));
                    }
                    Ok(Js(value))
                }
                Err(error) => Err(error.into_object()),
            };
            state.core.complete(call, outcome);
        }
        drain(&shared);
    });
}

fn schedule_flush(shared: &Rc<Shared>) {
    let mut state = shared.state.borrow_mut();
    if std::mem::replace(&mut state.flush_scheduled, true) {
        return;
    }
    let weak = Rc::downgrade(shared);
    // A microtask: after the code that made this turn's calls.
    spawn_local(async move {
        let Some(shared) = weak.upgrade() else { return };
        {
            let mut state = shared.state.borrow_mut();
            state.flush_scheduled = false;
            state.core.flush();
        }
        drain(&shared);
    });
}

/// Arms what the core's timers need now: a tick while calls wait for a
/// clock reading, the earliest deadline.
fn arm_timers(shared: &Rc<Shared>) {
    let mut state = shared.state.borrow_mut();
    if state.destroyed {
        return;
    }
    let wanted = state.core.poll_timeout();
    let callback: &Function = shared.on_timer.as_ref().unchecked_ref();
    if wanted.reading && state.tick.is_none() {
        state.tick = Some(platform::set_timeout(callback, TICK_MS as f64, 0));
    }
    if state.deadline.map(|(at, _)| at) != wanted.deadline {
        if let Some((_, handle)) = state.deadline.take() {
            platform::clear_timeout(handle);
        }
        if let Some(at) = wanted.deadline {
            let delay = at.saturating_sub(platform::now()) as f64;
            state.deadline = Some((at, platform::set_timeout(callback, delay, 1)));
        }
    }
}

fn timer_fired(shared: &Rc<Shared>, tick: bool) {
    {
        let mut state = shared.state.borrow_mut();
        match tick {
            true => state.tick = None,
            false => state.deadline = None,
        }
        state.core.handle_timeout(platform::now());
    }
    drain(shared);
}

/// The other side's hello named the lock it holds while it lives: when the
/// lock frees, its end fails what waits on it. A new name is a new
/// instance (a frame that reloaded): the connection is open again.
fn watch(shared: &Rc<Shared>, name: &str) {
    let controller = AbortController::new().expect("AbortController");
    let signal = controller.signal();
    {
        let mut state = shared.state.borrow_mut();
        if let Some(previous) = state.watching.replace(controller) {
            previous.abort();
        }
        if std::mem::replace(&mut state.gone, false) {
            state.core.connection_opened();
        }
    }
    platform::watch_presence(name, &signal, shared.on_gone.as_ref().unchecked_ref());
}

fn peer_gone(shared: &Rc<Shared>) {
    {
        let mut state = shared.state.borrow_mut();
        if state.destroyed || state.watching.as_ref().is_none_or(|w| w.signal().aborted()) {
            return;
        }
        state.gone = true;
        state.core.connection_lost(platform::now());
        // Nobody is left to answer: running handlers may stop.
        for controller in state.serving.values() {
            controller.abort();
        }
    }
    drain(shared);
}

fn destroy(shared: &Rc<Shared>) {
    {
        let mut state = shared.state.borrow_mut();
        if std::mem::replace(&mut state.destroyed, true) {
            return;
        }
        state.core.destroy();
    }
    // The calls fail (DESTROYED); nothing more is posted.
    while let Some(event) = {
        let event = shared.state.borrow_mut().core.poll();
        event
    } {
        if let Event::Settled { waiter, outcome: Outcome::Failed(failure), .. } = event {
            waiter.settle(Err(Error::failed(failure, &waiter.method)));
        }
    }
    let mut state = shared.state.borrow_mut();
    for controller in state.serving.values() {
        controller.abort();
    }
    state.serving.clear();
    state.transfers.clear();
    if let Some((_, handle)) = state.deadline.take() {
        platform::clear_timeout(handle);
    }
    if let Some(handle) = state.tick.take() {
        platform::clear_timeout(handle);
    }
    state.alive.abort();
    if let Some(watching) = state.watching.take() {
        watching.abort();
    }
    let on_message = shared.on_message.as_ref().unchecked_ref();
    let _ = state.transport.listen_on.remove_event_listener_with_callback("message", on_message);
    if let (Some(frame), Some(on_load)) = (&state.transport.loading_frame, &shared.on_load) {
        let _ = frame.remove_event_listener_with_callback("load", on_load.as_ref().unchecked_ref());
    }
    if let Some(port) = state.transport.owned_port.take() {
        port.close();
    }
}

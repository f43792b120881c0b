//! One endpoint on one transport: the client side (pending calls, timeouts,
//! aborts), the server side (handlers, replies) or both, and the three JS
//! classes that expose it: `JSONRPCClient`, `JSONRPCServer` and `Peer`.

use std::cell::{RefCell, RefMut};
use std::rc::{Rc, Weak};

use js_sys::{Array, Function, Object, Promise, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{
    await_outcome, clear_timeout, describe, encodable, error_object_from_thrown, get, is_thenable, keys, kind_of,
    performance_now, rpc_error, rpc_error_from, set, set_timeout, Transfer,
};
use crate::core::{code, Action, Deadline, Dispatcher, ErrorObject, Framing, Outgoing, PendingTable, Response, Roles};

/// The default per-call timeout of the JS API, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;
/// The LSP's cancellation notification, sent when a caller aborts.
const CANCEL_REQUEST: &str = "$/cancelRequest";

#[wasm_bindgen]
extern "C" {
    /// Any object with `send` and `onMessage` (and optionally `offMessage`,
    /// `destroy`, `text`).
    pub type Transport;
    #[wasm_bindgen(method, catch)]
    fn send(this: &Transport, message: &JsValue, transfer: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch, js_name = onMessage)]
    fn on_message(this: &Transport, handler: &Function) -> Result<JsValue, JsValue>;

    #[derive(Clone)]
    type AbortSignal;
    #[wasm_bindgen(method, getter)]
    fn aborted(this: &AbortSignal) -> bool;
    #[wasm_bindgen(method, getter)]
    fn reason(this: &AbortSignal) -> JsValue;
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn add_event_listener(this: &AbortSignal, kind: &str, listener: &Function);
    #[wasm_bindgen(method, js_name = removeEventListener)]
    fn remove_event_listener(this: &AbortSignal, kind: &str, listener: &Function);
}

/// A call this side is waiting on.
struct Waiter {
    resolve: Function,
    reject: Function,
    method: String,
    abort: Option<AbortHook>,
}

/// The listener on a caller's `AbortSignal`, removed when the call ends.
struct AbortHook {
    signal: AbortSignal,
    listener: Closure<dyn FnMut()>,
}

impl Waiter {
    fn detach(&mut self) {
        if let Some(hook) = self.abort.take() {
            hook.signal.remove_event_listener("abort", hook.listener.as_ref().unchecked_ref());
        }
    }
}

struct State {
    dispatcher: Dispatcher<JsValue, Function>,
    pending: PendingTable<Waiter>,
    timer: Option<(JsValue, Deadline)>,
    default_timeout: f64,
    /// Whether to speak JSON text: the transport says so, or delivered text.
    text: bool,
    destroyed: bool,
}

struct Endpoint {
    transport: Transport,
    state: RefCell<State>,
    on_message: Closure<dyn FnMut(JsValue)>,
    on_timer: Closure<dyn FnMut()>,
    on_settled: Closure<dyn FnMut(u32, bool, JsValue)>,
}

/// Per-call options of `request` / `notify`.
struct CallOptions {
    timeout: Option<f64>,
    signal: Option<AbortSignal>,
    transfer: JsValue,
}

impl CallOptions {
    fn read(options: &JsValue) -> CallOptions {
        if !options.is_object() {
            return CallOptions { timeout: None, signal: None, transfer: JsValue::UNDEFINED };
        }
        let signal = get(options, &keys::SIGNAL);
        CallOptions {
            timeout: get(options, &keys::TIMEOUT).as_f64(),
            signal: signal.is_object().then(|| signal.unchecked_into()),
            transfer: get(options, &keys::TRANSFER),
        }
    }
}

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

impl Endpoint {
    fn open(transport: JsValue, roles: Roles, options: &JsValue) -> Result<Rc<Endpoint>, JsValue> {
        let has =
            |name: &str| js_sys::Reflect::get(&transport, &JsValue::from_str(name)).is_ok_and(|f| f.is_function());
        if !transport.is_object() || !has("send") || !has("onMessage") {
            return Err(type_error("transport must have send(message) and onMessage(handler)"));
        }
        let mut default_timeout = DEFAULT_TIMEOUT_MS;
        if options.is_object() {
            if let Some(timeout) = get(options, &keys::TIMEOUT).as_f64() {
                default_timeout = timeout;
            }
        }
        let text = get(&transport, &keys::TEXT).as_bool() == Some(true);
        let endpoint = Rc::new_cyclic(|weak: &Weak<Endpoint>| {
            let on_message = {
                let weak = weak.clone();
                Closure::new(move |message: JsValue| {
                    if let Some(endpoint) = weak.upgrade() {
                        endpoint.receive(message);
                    }
                })
            };
            let on_timer = {
                let weak = weak.clone();
                Closure::new(move || {
                    if let Some(endpoint) = weak.upgrade() {
                        endpoint.expire();
                    }
                })
            };
            let on_settled = {
                let weak = weak.clone();
                Closure::new(move |call: u32, ok: bool, value: JsValue| {
                    if let Some(endpoint) = weak.upgrade() {
                        let outcome = if ok { Ok(value) } else { Err(error_object_from_thrown(&value)) };
                        endpoint.complete(crate::core::CallId(call), outcome);
                    }
                })
            };
            Endpoint {
                transport: transport.unchecked_into(),
                state: RefCell::new(State {
                    dispatcher: Dispatcher::new(roles),
                    pending: PendingTable::new(),
                    timer: None,
                    default_timeout,
                    text,
                    destroyed: false,
                }),
                on_message,
                on_timer,
                on_settled,
            }
        });
        endpoint.transport.on_message(endpoint.on_message.as_ref().unchecked_ref())?;
        Ok(endpoint)
    }

    /// The state, unless this is a re-entrant call from inside a borrow
    /// (which the layer never makes itself): then nothing happens, rather
    /// than a panic that would take every peer in the page down.
    fn state(&self) -> Option<RefMut<'_, State>> {
        self.state.try_borrow_mut().ok()
    }

    // ---- server side -------------------------------------------------------

    fn receive(self: &Rc<Self>, message: JsValue) {
        let actions = if let Some(text) = message.as_string() {
            let Some(mut state) = self.state() else {
                return;
            };
            if state.destroyed {
                return;
            }
            state.text = true;
            match JSON::parse(&text) {
                Ok(value) => state.dispatcher.receive(&value, Framing::Text),
                Err(_) => state.dispatcher.receive_unparsable(),
            }
        } else {
            let Some(mut state) = self.state() else {
                return;
            };
            if state.destroyed {
                return;
            }
            state.dispatcher.receive(&message, Framing::Object)
        };
        for action in actions {
            match action {
                Action::Send(reply) => self.send_reply(reply),
                Action::Call { call, handler, params } => {
                    match handler.call1(&JsValue::UNDEFINED, &params.unwrap_or(JsValue::UNDEFINED)) {
                        Ok(result) if is_thenable(&result) => {
                            await_outcome(&result, self.on_settled.as_ref().unchecked_ref(), call.0)
                        }
                        Ok(result) => self.complete(call, Ok(result)),
                        Err(thrown) => self.complete(call, Err(error_object_from_thrown(&thrown))),
                    }
                }
                Action::Notify { handler, params } => {
                    // A notification has no one to tell about a failure.
                    let _ = handler.call1(&JsValue::UNDEFINED, &params.unwrap_or(JsValue::UNDEFINED));
                }
                Action::Settle { id, outcome } => self.settle(&id, outcome),
            }
        }
    }

    fn complete(&self, call: crate::core::CallId, outcome: Result<JsValue, ErrorObject<JsValue>>) {
        let reply = match self.state() {
            Some(mut state) => state.dispatcher.complete(call, outcome),
            None => None,
        };
        if let Some(reply) = reply {
            self.send_reply(reply);
        }
    }

    /// Sends a reply; a result the transport cannot carry (a `DataCloneError`)
    /// becomes an error response for that call alone.
    fn send_reply(&self, reply: Outgoing<JsValue>) {
        let Err(failure) = self.post_reply(&reply) else {
            return;
        };
        let reason = concat(&["Result could not be sent: ", &describe(&failure)]);
        let as_text = self.state().is_some_and(|s| s.text);
        let mend = |response: Response<JsValue>| match &response.payload {
            Ok(result) if !encodable(&unwrap_transfer(result, &mut Vec::new()), as_text) => {
                Response { id: response.id, payload: Err(ErrorObject::new(code::INTERNAL_ERROR, reason.clone())) }
            }
            Err(error) if error.data.as_ref().is_some_and(|d| !encodable(d, as_text)) => {
                Response { id: response.id, payload: Err(ErrorObject::new(error.code, error.message.clone())) }
            }
            _ => response,
        };
        let mended = match reply {
            Outgoing::Single(response) => Outgoing::Single(mend(response)),
            Outgoing::Batch(responses) => Outgoing::Batch(responses.into_iter().map(mend).collect()),
        };
        // If even the mended reply cannot be sent, the channel itself is gone.
        let _ = self.post_reply(&mended);
    }

    fn post_reply(&self, reply: &Outgoing<JsValue>) -> Result<(), JsValue> {
        let mut transfer = Vec::new();
        let message = match reply {
            Outgoing::Single(response) => response_object(response, &mut transfer),
            Outgoing::Batch(responses) => {
                responses.iter().map(|r| response_object(r, &mut transfer)).collect::<Array>().into()
            }
        };
        let transfer =
            if transfer.is_empty() { JsValue::UNDEFINED } else { transfer.into_iter().collect::<Array>().into() };
        self.post(message, &transfer)
    }

    fn post(&self, message: JsValue, transfer: &JsValue) -> Result<(), JsValue> {
        let as_text = self.state().is_some_and(|s| s.text);
        let message = if as_text { JSON::stringify(&message)?.into() } else { message };
        self.transport.send(&message, transfer).map(drop)
    }

    // ---- client side -------------------------------------------------------

    fn request(self: &Rc<Self>, method: &str, params: JsValue, options: &JsValue) -> Promise {
        let options = CallOptions::read(options);
        let (params, transfer) = split_transfer(params, options.transfer);
        if let Err(error) = self.check_call(&params, options.signal.as_ref()) {
            return Promise::reject(&error);
        }
        let mut settle = None;
        let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
        let Some((resolve, reject)) = settle else {
            return promise;
        };

        let waiter = Waiter { resolve, reject, method: method.to_owned(), abort: None };
        let (id, deadline) = {
            let Some(mut state) = self.state() else {
                return Promise::reject(&rpc_error(code::INTERNAL_ERROR, "re-entrant call", &JsValue::UNDEFINED));
            };
            let timeout = options.timeout.unwrap_or(state.default_timeout);
            let deadline =
                (timeout.is_finite() && timeout > 0.0).then(|| (performance_now() + timeout).ceil() as Deadline);
            (state.pending.insert(waiter, deadline), deadline)
        };
        let message = call_object(method, &params, Some(id));
        if let Err(failure) = self.post(message, &transfer) {
            let reason = concat(&["Request could not be sent: ", &describe(&failure)]);
            self.fail(id, &rpc_error(code::SEND_FAILED, &reason, &failure));
            return promise;
        }
        if let Some(deadline) = deadline {
            self.arm_timer(deadline);
        }
        if let Some(signal) = options.signal {
            self.watch_abort(id, signal);
        }
        promise
    }

    fn notify(&self, method: &str, params: JsValue, options: &JsValue) -> Result<(), JsValue> {
        let options = CallOptions::read(options);
        let (params, transfer) = split_transfer(params, options.transfer);
        self.check_call(&params, None)?;
        self.post(call_object(method, &params, None), &transfer)
    }

    /// Refuses a call that cannot be made: destroyed, already aborted, or
    /// with params the spec does not allow.
    fn check_call(&self, params: &JsValue, signal: Option<&AbortSignal>) -> Result<(), JsValue> {
        if self.state().is_none_or(|s| s.destroyed) {
            return Err(rpc_error(code::DESTROYED, "The endpoint was destroyed", &JsValue::UNDEFINED));
        }
        if !params.is_undefined() && !matches!(kind_of(params), 4 | 5) {
            return Err(rpc_error(code::INVALID_PARAMS, "params must be an array or an object", &JsValue::UNDEFINED));
        }
        if let Some(signal) = signal.filter(|s| s.aborted()) {
            return Err(rpc_error(code::REQUEST_CANCELLED, "Request aborted", &signal.reason()));
        }
        Ok(())
    }

    fn watch_abort(self: &Rc<Self>, id: u64, signal: AbortSignal) {
        let weak = Rc::downgrade(self);
        let watched = signal.clone();
        let listener = Closure::<dyn FnMut()>::new(move || {
            let Some(endpoint) = weak.upgrade() else {
                return;
            };
            let error = rpc_error(code::REQUEST_CANCELLED, "Request aborted", &watched.reason());
            if endpoint.fail(id, &error) {
                let params: JsValue = Object::new().into();
                set(&params, &keys::ID, &JsValue::from_f64(id as f64));
                let _ = endpoint.post(call_object(CANCEL_REQUEST, &params, None), &JsValue::UNDEFINED);
            }
        });
        signal.add_event_listener("abort", listener.as_ref().unchecked_ref());
        let hook = AbortHook { signal, listener };
        if let Some(mut state) = self.state() {
            if let Some(waiter) = state.pending.get_mut(id) {
                waiter.abort = Some(hook);
                return;
            }
        }
        // The call already ended while the listener was being attached.
        hook.signal.remove_event_listener("abort", hook.listener.as_ref().unchecked_ref());
    }

    /// Settles a pending call from a response; unknown ids are ignored.
    fn settle(&self, id: &JsValue, outcome: Result<JsValue, ErrorObject<JsValue>>) {
        let Some(key) = id.as_f64().and_then(PendingTable::<Waiter>::key_of) else {
            return;
        };
        let Some(mut waiter) = self.state().and_then(|mut s| s.pending.remove(key)) else {
            return;
        };
        waiter.detach();
        let _ = match outcome {
            Ok(result) => waiter.resolve.call1(&JsValue::UNDEFINED, &result),
            Err(error) => waiter.reject.call1(&JsValue::UNDEFINED, &rpc_error_from(&error)),
        };
    }

    /// Rejects a pending call; returns whether it was still pending.
    fn fail(&self, id: u64, error: &JsValue) -> bool {
        let Some(mut waiter) = self.state().and_then(|mut s| s.pending.remove(id)) else {
            return false;
        };
        waiter.detach();
        let _ = waiter.reject.call1(&JsValue::UNDEFINED, error);
        true
    }

    /// Keeps one timer armed for the earliest deadline. A later deadline never
    /// re-arms it, so a steady stream of calls costs no timer work per call.
    fn arm_timer(&self, deadline: Deadline) {
        let Some(mut state) = self.state() else {
            return;
        };
        if let Some((handle, armed)) = &state.timer {
            if *armed <= deadline {
                return;
            }
            clear_timeout(handle);
        }
        let delay = (deadline as f64 - performance_now()).max(0.0);
        let handle = set_timeout(self.on_timer.as_ref().unchecked_ref(), delay);
        state.timer = Some((handle, deadline));
    }

    fn expire(&self) {
        let (expired, next) = {
            let Some(mut state) = self.state() else {
                return;
            };
            state.timer = None;
            state.pending.expire(performance_now() as Deadline)
        };
        if let Some(next) = next {
            self.arm_timer(next);
        }
        for (_, mut waiter) in expired {
            waiter.detach();
            let message = concat(&["Request timed out: ", &waiter.method]);
            let error = rpc_error(code::REQUEST_TIMEOUT, &message, &JsValue::UNDEFINED);
            let _ = waiter.reject.call1(&JsValue::UNDEFINED, &error);
        }
    }

    fn destroy(&self) {
        let drained = {
            let Some(mut state) = self.state() else {
                return;
            };
            if state.destroyed {
                return;
            }
            state.destroyed = true;
            if let Some((handle, _)) = state.timer.take() {
                clear_timeout(&handle);
            }
            state.dispatcher.clear();
            state.pending.drain()
        };
        let handler: &JsValue = self.on_message.as_ref();
        call_optional(&self.transport, "offMessage", handler);
        call_optional(&self.transport, "destroy", &JsValue::UNDEFINED);
        for (_, mut waiter) in drained {
            waiter.detach();
            let error = rpc_error(code::DESTROYED, "The endpoint was destroyed", &JsValue::UNDEFINED);
            let _ = waiter.reject.call1(&JsValue::UNDEFINED, &error);
        }
    }

    fn register(&self, name: &str, handler: JsValue, notification: bool) -> Result<(), JsValue> {
        let Ok(handler) = handler.dyn_into::<Function>() else {
            return Err(type_error("handler must be a function"));
        };
        let mut state = self.state().ok_or_else(|| type_error("re-entrant call"))?;
        if notification {
            state.dispatcher.set_notification(name, handler);
        } else {
            state.dispatcher.set_method(name, handler);
        }
        Ok(())
    }

    fn pending_count(&self) -> usize {
        self.state().map_or(0, |s| s.pending.len())
    }
}

/// Joins text without pulling `core::fmt` into the wasm build.
fn concat(parts: &[&str]) -> String {
    let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    parts.iter().for_each(|part| text.push_str(part));
    text
}

fn call_optional(target: &JsValue, name: &str, argument: &JsValue) {
    if let Ok(function) = js_sys::Reflect::get(target, &JsValue::from_str(name)) {
        if let Some(function) = function.dyn_ref::<Function>() {
            let _ = function.call1(target, argument);
        }
    }
}

/// Unwraps a `transfer(value, list)` marker, collecting its list.
fn unwrap_transfer(value: &JsValue, transfer: &mut Vec<JsValue>) -> JsValue {
    match value.dyn_ref::<Transfer>() {
        Some(marked) => {
            transfer.extend(Array::from(&marked.transfer()).iter());
            marked.value()
        }
        None => value.clone(),
    }
}

/// Params and transfer list of a call: from a `transfer()` marker and/or the
/// `transfer` option.
fn split_transfer(params: JsValue, option: JsValue) -> (JsValue, JsValue) {
    let mut list = Vec::new();
    let params = unwrap_transfer(&params, &mut list);
    if Array::is_array(&option) {
        list.extend(Array::from(&option).iter());
    }
    let transfer = if list.is_empty() { JsValue::UNDEFINED } else { list.into_iter().collect::<Array>().into() };
    (params, transfer)
}

fn call_object(method: &str, params: &JsValue, id: Option<u64>) -> JsValue {
    let message: JsValue = Object::new().into();
    set(&message, &keys::JSONRPC, &keys::VERSION.with(JsValue::clone));
    set(&message, &keys::METHOD, &JsValue::from_str(method));
    if !params.is_undefined() {
        set(&message, &keys::PARAMS, params);
    }
    if let Some(id) = id {
        set(&message, &keys::ID, &JsValue::from_f64(id as f64));
    }
    message
}

fn response_object(response: &Response<JsValue>, transfer: &mut Vec<JsValue>) -> JsValue {
    let message: JsValue = Object::new().into();
    set(&message, &keys::JSONRPC, &keys::VERSION.with(JsValue::clone));
    match &response.payload {
        Ok(result) => {
            let result = unwrap_transfer(result, transfer);
            // A handler that returns nothing still answers: `result: null`.
            let result = if result.is_undefined() { JsValue::NULL } else { result };
            set(&message, &keys::RESULT, &result);
        }
        Err(error) => {
            let object: JsValue = Object::new().into();
            set(&object, &keys::CODE, &JsValue::from_f64(error.code as f64));
            set(&object, &keys::MESSAGE, &JsValue::from_str(&error.message));
            if let Some(data) = &error.data {
                set(&object, &keys::DATA, data);
            }
            set(&message, &keys::ERROR, &object);
        }
    }
    set(&message, &keys::ID, response.id.as_ref().unwrap_or(&JsValue::NULL));
    message
}

/// Calls methods on the other side of a transport.
#[wasm_bindgen(skip_typescript)]
pub struct JSONRPCClient {
    endpoint: Rc<Endpoint>,
}

#[wasm_bindgen]
impl JSONRPCClient {
    #[wasm_bindgen(constructor)]
    pub fn new(transport: JsValue, options: JsValue) -> Result<JSONRPCClient, JsValue> {
        Ok(JSONRPCClient { endpoint: Endpoint::open(transport, Roles::CLIENT, &options)? })
    }

    /// Sends a request; resolves with its result, rejects with `RPCError`.
    pub fn request(&self, method: &str, params: JsValue, options: JsValue) -> Promise {
        self.endpoint.request(method, params, &options)
    }

    /// Sends a notification: no id, no response.
    pub fn notify(&self, method: &str, params: JsValue, options: JsValue) -> Result<(), JsValue> {
        self.endpoint.notify(method, params, &options)
    }

    /// Calls still waiting for a response.
    #[wasm_bindgen(getter)]
    pub fn pending(&self) -> usize {
        self.endpoint.pending_count()
    }

    /// Rejects every pending call, removes the listener, destroys the transport.
    pub fn destroy(&self) {
        self.endpoint.destroy();
    }
}

/// Serves methods and notifications to the other side of a transport.
#[wasm_bindgen(skip_typescript)]
pub struct JSONRPCServer {
    endpoint: Rc<Endpoint>,
}

#[wasm_bindgen]
impl JSONRPCServer {
    #[wasm_bindgen(constructor)]
    pub fn new(transport: JsValue, options: JsValue) -> Result<JSONRPCServer, JsValue> {
        Ok(JSONRPCServer { endpoint: Endpoint::open(transport, Roles::SERVER, &options)? })
    }

    /// Registers the handler of a method: `(params) => result | Promise`.
    pub fn method(&self, name: &str, handler: JsValue) -> Result<(), JsValue> {
        self.endpoint.register(name, handler, false)
    }

    /// Registers the handler of a notification.
    #[wasm_bindgen(js_name = onNotify)]
    pub fn on_notify(&self, name: &str, handler: JsValue) -> Result<(), JsValue> {
        self.endpoint.register(name, handler, true)
    }

    /// Stops serving, removes the listener, destroys the transport.
    pub fn destroy(&self) {
        self.endpoint.destroy();
    }
}

/// Client and server on one transport, both directions at once.
#[wasm_bindgen(skip_typescript)]
pub struct Peer {
    endpoint: Rc<Endpoint>,
}

#[wasm_bindgen]
impl Peer {
    #[wasm_bindgen(constructor)]
    pub fn new(transport: JsValue, options: JsValue) -> Result<Peer, JsValue> {
        Ok(Peer { endpoint: Endpoint::open(transport, Roles::PEER, &options)? })
    }

    /// Sends a request; resolves with its result, rejects with `RPCError`.
    pub fn request(&self, method: &str, params: JsValue, options: JsValue) -> Promise {
        self.endpoint.request(method, params, &options)
    }

    /// Sends a notification: no id, no response.
    pub fn notify(&self, method: &str, params: JsValue, options: JsValue) -> Result<(), JsValue> {
        self.endpoint.notify(method, params, &options)
    }

    /// Calls still waiting for a response.
    #[wasm_bindgen(getter)]
    pub fn pending(&self) -> usize {
        self.endpoint.pending_count()
    }

    /// Registers the handler of a method: `(params) => result | Promise`.
    pub fn method(&self, name: &str, handler: JsValue) -> Result<(), JsValue> {
        self.endpoint.register(name, handler, false)
    }

    /// Registers the handler of a notification.
    #[wasm_bindgen(js_name = onNotify)]
    pub fn on_notify(&self, name: &str, handler: JsValue) -> Result<(), JsValue> {
        self.endpoint.register(name, handler, true)
    }

    /// Rejects every pending call, stops serving, destroys the transport.
    pub fn destroy(&self) {
        self.endpoint.destroy();
    }
}

//! One endpoint on one transport: the client side (pending calls, timeouts,
//! aborts), the server side (handlers, replies) or both, and the three JS
//! classes that expose it: `JSONRPCClient`, `JSONRPCServer` and `Peer`.

use crate::prelude::*;

use alloc::rc::{Rc, Weak};
use core::cell::{RefCell, RefMut};

use js_sys::{Array, Function, Object, Promise, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{
    abort_call, await_outcome, call_context, call_controller, clear_timeout, deferred, describe, encodable,
    envelope_reader, error_message, error_object_from_thrown, get, is_thenable, keys, kind_from_index,
    notification_message, params_kind, performance_now, queue_microtask, request_message, result_message, rpc_error,
    rpc_error_from, set, set_timeout, settle_call, Transfer,
};
use crate::core::{
    code, Action, BatchPolicy, BatchReplies, Deadline, Dispatcher, Due, Envelope, ErrorObject, Framing, Kind, Outgoing,
    PendingTable, Response, Roles, Value, STREAM_END,
};

/// The default per-call timeout of the JS API, in milliseconds.
const DEFAULT_TIMEOUT_MS: f64 = 10_000.0;
/// Timeouts this long or longer are not measured from a clock reading per
/// call (`performance.now()` costs a browser more than the rest of sending
/// a call) but from the next tick of a coarse clock: `Due::AfterNextReading`.
/// They may end up to `CLOCK_TICK_MS` (and the timer's own lateness) late,
/// never early; shorter ones read the clock.
const COARSE_FROM_MS: f64 = 1_000.0;
const CLOCK_TICK_MS: f64 = 100.0;
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
    /// `{promise, resolve, reject}`, made by `deferred()`.
    call: JsValue,
    method: JsValue,
    abort: Option<AbortHook>,
    /// Where this call's chunks go (`onChunk`), if it is streamed.
    on_chunk: Option<Function>,
}

/// The listener on a caller's `AbortSignal`, removed when the call ends.
struct AbortHook {
    signal: AbortSignal,
    listener: Closure<dyn FnMut()>,
}

impl Waiter {
    /// Ends the call: removes its abort listener and settles its promise.
    fn settle(mut self, ok: bool, value: &JsValue) {
        if let Some(hook) = self.abort.take() {
            hook.signal.remove_event_listener("abort", hook.listener.as_ref().unchecked_ref());
        }
        settle_call(&self.call, ok, value);
    }
}

/// Which of an endpoint's two timers fired: the one armed for the earliest
/// deadline, or the coarse clock's tick.
enum Fired {
    Deadline,
    Tick,
}

/// A call or notification gathered for this turn's batch.
struct Queued {
    message: JsValue,
    transfer: JsValue,
    id: Option<u64>,
}

struct State {
    dispatcher: Dispatcher<JsValue, Function>,
    pending: PendingTable<Waiter>,
    timer: Option<(JsValue, Deadline)>,
    /// The coarse clock's next tick, while calls wait for it.
    tick: Option<JsValue>,
    default_timeout: f64,
    /// Whether to speak JSON text: the transport says so, or delivered text.
    text: bool,
    /// Calls of one turn go out as one batch (see `send_call`).
    batching: bool,
    /// A message went out alone since the last flush or incoming message:
    /// the next one in this turn waits for the batch.
    sent_alone: bool,
    queue: Vec<Queued>,
    /// A flush (of `queue` and of settled batch answers) is scheduled.
    flush_scheduled: bool,
    /// The calls whose handlers take a context (`{ signal, emit }`).
    contexts: Vec<HandlerContext>,
    /// This side's method list changed (or the connection opened): tell a
    /// jrpc-oo peer with the next flush.
    announce_components: bool,
    /// What `listMethods` / `describeMethods` report (`introspection()` in
    /// extras.js), unless turned off; only with the `introspection` feature.
    introspection: Option<JsValue>,
    destroyed: bool,
}

/// A running handler that declared a context parameter.
struct HandlerContext {
    call: u32,
    controller: JsValue,
    /// It emitted chunks: `stream.end` goes before its response.
    streamed: bool,
}

struct Endpoint {
    transport: Transport,
    /// jrpc-oo conventions (fixed at construction, so read without a borrow
    /// on the message path): `{"args": [...]}` params, `system.listComponents`.
    jrpc_oo: bool,
    state: RefCell<State>,
    // Callbacks handed to JS. Each is owned by its JS function (freed when
    // that is collected) and holds only a weak reference back, so a late call
    // (a timer, a handler settling after destroy) finds nothing and does nothing.
    on_message: Function,
    on_timer: Function,
    on_tick: Function,
    on_flush: Function,
    on_settled: Function,
    /// `emit(call, chunk)` of handler contexts (feature `streaming`), else undefined.
    on_emit: JsValue,
    /// The endpoint itself while it is subscribed to its transport: it lives
    /// as long as the transport can deliver to it, whether or not JS keeps a
    /// reference to the JSONRPCClient/Server/Peer object. Cleared by destroy().
    subscribed: RefCell<Option<Rc<Endpoint>>>,
}

/// Per-call options of `request` / `notify`.
struct CallOptions {
    timeout: Option<f64>,
    signal: Option<AbortSignal>,
    transfer: JsValue,
    on_chunk: Option<Function>,
}

impl CallOptions {
    fn read(options: Option<Object>) -> CallOptions {
        let Some(options) = options else {
            return CallOptions { timeout: None, signal: None, transfer: JsValue::UNDEFINED, on_chunk: None };
        };
        let options: &JsValue = &options;
        let signal = get(options, &keys::SIGNAL);
        CallOptions {
            timeout: get(options, &keys::TIMEOUT).as_f64(),
            signal: signal.is_object().then(|| signal.unchecked_into()),
            transfer: get(options, &keys::TRANSFER),
            on_chunk: if cfg!(feature = "streaming") { get(options, &keys::ON_CHUNK).dyn_into().ok() } else { None },
        }
    }
}

/// The deadline at or after `at` ms (`f64::ceil` needs std's float library).
fn ceil_ms(at: f64) -> Deadline {
    let whole = at as Deadline;
    whole + Deadline::from((whole as f64) < at)
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
        // A transport may know better (a WebSocket's server may be slow: 60 s).
        let mut default_timeout = get(&transport, &keys::DEFAULT_TIMEOUT).as_f64().unwrap_or(DEFAULT_TIMEOUT_MS);
        let mut batching = true;
        let mut jrpc_oo = false;
        let mut dispatcher = Dispatcher::new(roles);
        // A slow handler must not hold back the other answers of its batch.
        dispatcher.set_batch_replies(BatchReplies::AsSettled);
        if options.is_object() {
            if let Some(timeout) = get(options, &keys::TIMEOUT).as_f64() {
                default_timeout = timeout;
            }
            batching = get(options, &keys::BATCH).as_bool() != Some(false);
            jrpc_oo = cfg!(feature = "websocket") && get(options, &keys::JRPC_OO).as_bool() == Some(true);
            let batches = get(options, &keys::BATCHES);
            if let Some(limit) = batches.as_f64() {
                dispatcher.set_batch_policy(BatchPolicy::Limit(limit.max(0.0) as usize));
            } else if batches.as_string().as_deref() == Some("reject") {
                dispatcher.set_batch_policy(BatchPolicy::Reject);
            }
        }
        let text = get(&transport, &keys::TEXT).as_bool() == Some(true);
        let endpoint = Rc::new_cyclic(|weak: &Weak<Endpoint>| {
            let on_message = {
                let weak = weak.clone();
                let sink =
                    js_function(Closure::<dyn FnMut(JsValue, u32, JsValue, JsValue, JsValue, JsValue, JsValue)>::new(
                        move |message, flags, id, method, params, result, error| {
                            if let Some(endpoint) = weak.upgrade() {
                                endpoint.receive(message, flags, [id, method, params, result, error]);
                            }
                        },
                    ));
                envelope_reader(&sink)
            };
            let on_timer = {
                let weak = weak.clone();
                js_function(Closure::<dyn FnMut()>::new(move || {
                    if let Some(endpoint) = weak.upgrade() {
                        endpoint.expire(Fired::Deadline);
                    }
                }))
            };
            let on_tick = {
                let weak = weak.clone();
                js_function(Closure::<dyn FnMut()>::new(move || {
                    if let Some(endpoint) = weak.upgrade() {
                        endpoint.expire(Fired::Tick);
                    }
                }))
            };
            let on_flush = {
                let weak = weak.clone();
                js_function(Closure::<dyn FnMut()>::new(move || {
                    if let Some(endpoint) = weak.upgrade() {
                        endpoint.flush();
                    }
                }))
            };
            let on_settled = {
                let weak = weak.clone();
                js_function(Closure::<dyn FnMut(u32, bool, JsValue)>::new(
                    move |call: u32, ok: bool, value: JsValue| {
                        if let Some(endpoint) = weak.upgrade() {
                            let outcome = if ok { Ok(value) } else { Err(error_object_from_thrown(&value)) };
                            endpoint.complete(crate::core::CallId(call), outcome);
                        }
                    },
                ))
            };
            #[cfg(feature = "streaming")]
            let on_emit = {
                let weak = weak.clone();
                js_function(Closure::<dyn FnMut(u32, JsValue)>::new(move |call: u32, chunk: JsValue| {
                    if let Some(endpoint) = weak.upgrade() {
                        endpoint.emit_chunk(call, chunk);
                    }
                }))
                .into()
            };
            #[cfg(not(feature = "streaming"))]
            let on_emit = JsValue::UNDEFINED;
            Endpoint {
                transport: transport.unchecked_into(),
                jrpc_oo,
                state: RefCell::new(State {
                    dispatcher,
                    pending: PendingTable::new(),
                    timer: None,
                    tick: None,
                    default_timeout,
                    text,
                    batching,
                    sent_alone: false,
                    queue: Vec::new(),
                    flush_scheduled: false,
                    contexts: Vec::new(),
                    announce_components: false,
                    introspection: None,
                    destroyed: false,
                }),
                on_message,
                on_timer,
                on_tick,
                on_flush,
                on_settled,
                on_emit,
                subscribed: RefCell::new(None),
            }
        });
        #[cfg(feature = "introspection")]
        if roles.server && get(options, &keys::INTROSPECTION).as_bool() != Some(false) {
            let catalog = super::introspection();
            for (name, key) in [("listMethods", &keys::LIST), ("describeMethods", &keys::DESCRIBE)] {
                endpoint.register(name, get(&catalog, key), false)?;
            }
            if let Some(mut state) = endpoint.state() {
                state.introspection = Some(catalog);
            }
        }
        #[cfg(feature = "websocket")]
        if jrpc_oo {
            endpoint.serve_components()?;
        }
        endpoint.watch_connection();
        endpoint.transport.on_message(&endpoint.on_message)?;
        *endpoint.subscribed.borrow_mut() = Some(endpoint.clone());
        Ok(endpoint)
    }

    /// The state, unless this is a re-entrant call from inside a borrow
    /// (which the layer never makes itself): then nothing happens, rather
    /// than a panic that would take every peer in the page down.
    fn state(&self) -> Option<RefMut<'_, State>> {
        self.state.try_borrow_mut().ok()
    }

    // ---- server side -------------------------------------------------------

    /// Handles one incoming message; for an object, `flags` and `members`
    /// are its envelope as `envelopeReader` (glue.js) read it.
    fn receive(self: &Rc<Self>, message: JsValue, flags: u32, members: [JsValue; 5]) {
        let kind = kind_from_index(flags & 7);
        let actions = {
            let Some(mut state) = self.state() else { return };
            if state.destroyed {
                return;
            }
            // A message in means a new task: what this side sends next may go alone.
            state.sent_alone = false;
            match kind {
                Kind::String => {
                    state.text = true;
                    match message.as_string().and_then(|text| JSON::parse(&text).ok()) {
                        Some(value) => state.dispatcher.receive(&value, Framing::Text),
                        None => state.dispatcher.receive_unparsable(),
                    }
                }
                Kind::Object => {
                    let [id, method, params, result, error] = members;
                    let present = |bit: u32| flags & (1 << bit) != 0;
                    let with_kind = |value: JsValue, shift: u32| {
                        let bits = (flags >> shift) & 7;
                        (bits != 0).then(|| (value, kind_from_index(bits - 1)))
                    };
                    let envelope = Envelope {
                        version_2: present(3),
                        id: with_kind(id, 4),
                        method: present(7).then_some(method),
                        params: with_kind(params, 8),
                        result: present(11).then_some(result),
                        error: present(12).then_some(error),
                    };
                    state.dispatcher.receive_envelope(envelope, Framing::Object)
                }
                _ => state.dispatcher.receive_kind(&message, kind, Framing::Object),
            }
        };
        for action in actions {
            match action {
                Action::Send(reply) => self.send_reply(reply),
                Action::Call { call, handler, params } => {
                    let params = self.incoming_params(params);
                    let controller = call_controller(&handler);
                    let outcome = if controller.is_undefined() {
                        handler.call1(&JsValue::UNDEFINED, &params)
                    } else {
                        let context = call_context(&controller, &self.on_emit, call.0);
                        if let Some(mut state) = self.state() {
                            state.contexts.push(HandlerContext { call: call.0, controller, streamed: false });
                        }
                        handler.call2(&JsValue::UNDEFINED, &params, &context)
                    };
                    match outcome {
                        Ok(result) if is_thenable(&result) => await_outcome(&result, &self.on_settled, call.0),
                        Ok(result) => self.complete(call, Ok(result)),
                        Err(thrown) => self.complete(call, Err(error_object_from_thrown(&thrown))),
                    }
                }
                Action::Notify { handler, params } => {
                    // A notification has no one to tell about a failure.
                    let _ = handler.call1(&JsValue::UNDEFINED, &self.incoming_params(params));
                }
                Action::Settle { id, outcome } => self.settle(&id, outcome),
                Action::Unhandled { .. } => {}
                Action::Cancel { call } => {
                    let reason = rpc_error(code::REQUEST_CANCELLED, "Request cancelled", &JsValue::UNDEFINED);
                    self.abort_handlers(|id| id == call.0, &reason);
                }
                Action::Chunk { id, chunk } => self.chunk_arrived(&id, chunk),
                Action::StreamEnd { .. } => {}
            }
        }
        // The answers of a batch that are ready now (errors, synchronous
        // handlers) leave together at once, as one array. A single message
        // object opens no batch, so the common path skips this.
        if kind != Kind::Object {
            let settled = self.state().map(|mut s| s.dispatcher.take_settled()).unwrap_or_default();
            for reply in settled {
                self.send_reply(reply);
            }
        }
    }

    /// Reports how a handler ended. A lone call is answered at once; an
    /// answer within a batch waits for the end of the turn, to leave with
    /// whatever else of its batch settled meanwhile (see `BatchReplies`).
    fn complete(&self, call: crate::core::CallId, outcome: Result<JsValue, ErrorObject<JsValue>>) {
        let (reply, stream_end) = match self.state() {
            Some(mut state) => {
                let mut streamed = false;
                if !state.contexts.is_empty() {
                    state.contexts.retain(|c| {
                        streamed |= c.call == call.0 && c.streamed;
                        c.call != call.0
                    });
                }
                let stream_end = streamed.then(|| state.dispatcher.request_id(call).cloned()).flatten();
                (state.dispatcher.complete(call, outcome), stream_end)
            }
            None => (None, None),
        };
        if let Some(id) = stream_end {
            self.send_call(stream_message(STREAM_END, &id, None), JsValue::UNDEFINED, None);
        }
        match reply {
            Some(reply) => self.send_reply(reply),
            None => self.schedule_flush(),
        }
    }

    /// Aborts the signals of the handlers whose calls `which` picks.
    fn abort_handlers(&self, which: impl Fn(u32) -> bool, reason: &JsValue) {
        let aborted: Vec<JsValue> = match self.state() {
            Some(mut state) => {
                let (aborted, kept) = core::mem::take(&mut state.contexts).into_iter().partition(|c| which(c.call));
                state.contexts = kept;
                aborted.into_iter().map(|c: HandlerContext| c.controller).collect()
            }
            None => return,
        };
        for controller in aborted {
            abort_call(&controller, reason);
        }
    }

    fn schedule_flush(&self) {
        let Some(mut state) = self.state() else { return };
        if !core::mem::replace(&mut state.flush_scheduled, true) {
            drop(state);
            queue_microtask(&self.on_flush);
        }
    }

    /// Sends a reply; a result the transport cannot carry (a `DataCloneError`)
    /// becomes an error response for that call alone.
    fn send_reply(&self, reply: Outgoing<JsValue>) {
        // What this side sent before (a handler's chunks or notifications)
        // must not be overtaken by its answer.
        self.send_queued();
        let Err(failure) = self.post_reply(&reply) else {
            return;
        };
        let reason = concat(&["Result could not be sent: ", &describe(&failure)]);
        let as_text = self.state().is_some_and(|s| s.text);
        let sendable = |response: &Response<JsValue>| match &response.payload {
            Ok(result) => encodable(&unwrap_transfer(result, &mut Vec::new()), as_text),
            Err(error) => error.data.as_ref().is_none_or(|data| encodable(data, as_text)),
        };
        // What cannot be sent is replaced by an error without payload.
        let strip = |response: Response<JsValue>| {
            let error = match response.payload {
                Ok(_) => ErrorObject::new(code::INTERNAL_ERROR, reason.clone()),
                Err(error) => ErrorObject::new(error.code, error.message),
            };
            Response { id: response.id, payload: Err(error) }
        };
        let mended = match reply {
            // The only response is the culprit, whatever the check says (a
            // detached buffer in its transfer list fails only when sent).
            Outgoing::Single(response) => Outgoing::Single(strip(response)),
            Outgoing::Batch(responses) => {
                let any_culprit = responses.iter().any(|r| !sendable(r));
                let responses =
                    responses.into_iter().map(|r| if !any_culprit || !sendable(&r) { strip(r) } else { r }).collect();
                Outgoing::Batch(responses)
            }
        };
        // If even the mended reply cannot be sent, the channel itself is gone.
        let _ = self.post_reply(&mended);
    }

    fn post_reply(&self, reply: &Outgoing<JsValue>) -> Result<(), JsValue> {
        let mut transfer = Vec::new();
        let message = match reply {
            Outgoing::Single(response) => response_message(response, &mut transfer),
            Outgoing::Batch(responses) => {
                responses.iter().map(|r| response_message(r, &mut transfer)).collect::<Array>().into()
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

    fn request(self: &Rc<Self>, method: JsValue, params: JsValue, options: Option<Object>) -> Promise {
        let options = CallOptions::read(options);
        let (params, transfer) = match self.check_call(&method, params, options.transfer, options.signal.as_ref()) {
            Ok(checked) => checked,
            Err(error) => return Promise::reject(&error),
        };
        let call = deferred();
        let promise: Promise = get(&call, &keys::PROMISE).unchecked_into();
        let params = self.outgoing_params(&method, params);
        let waiter = Waiter { call, method: method.clone(), abort: None, on_chunk: options.on_chunk };
        let (id, due) = {
            let Some(mut state) = self.state() else {
                return Promise::reject(&rpc_error(code::INTERNAL_ERROR, "re-entrant call", &JsValue::UNDEFINED));
            };
            let timeout = options.timeout.unwrap_or(state.default_timeout);
            let due = (timeout.is_finite() && timeout > 0.0).then(|| match timeout < COARSE_FROM_MS {
                true => Due::At(ceil_ms(performance_now() + timeout)),
                false => Due::AfterNextReading(ceil_ms(timeout)),
            });
            // The coarse clock ticks while calls wait for it.
            if matches!(due, Some(Due::AfterNextReading(_))) && state.tick.is_none() {
                state.tick = Some(set_timeout(&self.on_tick, CLOCK_TICK_MS));
            }
            (state.pending.insert(waiter, due), due)
        };
        self.send_call(request_message(&method, &params, id as f64), transfer, Some(id));
        if let Some(Due::At(deadline)) = due {
            self.arm_timer(deadline);
        }
        if let Some(signal) = options.signal {
            self.watch_abort(id, signal);
        }
        promise
    }

    fn notify(&self, method: JsValue, params: JsValue, options: Option<Object>) -> Result<(), JsValue> {
        let options = CallOptions::read(options);
        let (params, transfer) = self.check_call(&method, params, options.transfer, None)?;
        let params = self.outgoing_params(&method, params);
        self.send_call(notification_message(&method, &params), transfer, None);
        Ok(())
    }

    /// Refuses a call that cannot be made (destroyed, already aborted, a
    /// method that is not a string, params the spec does not allow) and
    /// splits params from their transfer list.
    fn check_call(
        &self,
        method: &JsValue,
        params: JsValue,
        transfer: JsValue,
        signal: Option<&AbortSignal>,
    ) -> Result<(JsValue, JsValue), JsValue> {
        if self.state().is_none_or(|s| s.destroyed) {
            return Err(rpc_error(code::DESTROYED, "The endpoint was destroyed", &JsValue::UNDEFINED));
        }
        if !method.is_string() {
            return Err(type_error("method must be a string"));
        }
        let not_structured =
            || rpc_error(code::INVALID_PARAMS, "params must be an array or an object", &JsValue::UNDEFINED);
        let mut list = Vec::new();
        let params = match params_kind(&params) {
            0 | 1 => params,
            2 => {
                let params = unwrap_transfer(&params, &mut list);
                if !matches!(params.kind(), Kind::Array | Kind::Object) {
                    return Err(not_structured());
                }
                params
            }
            _ => return Err(not_structured()),
        };
        if let Some(signal) = signal.filter(|s| s.aborted()) {
            return Err(rpc_error(code::REQUEST_CANCELLED, "Request aborted", &signal.reason()));
        }
        if Array::is_array(&transfer) {
            list.extend(Array::from(&transfer).iter());
        }
        let transfer = if list.is_empty() { JsValue::UNDEFINED } else { list.into_iter().collect::<Array>().into() };
        Ok((params, transfer))
    }

    /// Sends a call or notification. A message sent while nothing else is in
    /// flight or waiting goes out at once, so a lone call is never delayed.
    /// Otherwise messages of one turn (everything sent before the current
    /// microtasks run out) are gathered and go out together when they do:
    /// alone if there is one, as one batch if there are more. A burst of calls
    /// then costs the receiver one task instead of one per call.
    fn send_call(&self, message: JsValue, transfer: JsValue, id: Option<u64>) {
        {
            let Some(mut state) = self.state() else { return };
            let others_in_flight = state.pending.len() > usize::from(id.is_some());
            let alone = state.queue.is_empty() && !state.sent_alone && !others_in_flight;
            if !state.batching || alone {
                state.sent_alone = state.batching;
                drop(state);
                return self.post_call(&message, &transfer, id);
            }
            state.queue.push(Queued { message, transfer, id });
        };
        self.schedule_flush();
    }

    fn post_call(&self, message: &JsValue, transfer: &JsValue, id: Option<u64>) {
        if let Err(failure) = self.post(message.clone(), transfer) {
            if let Some(id) = id {
                let reason = concat(&["Request could not be sent: ", &describe(&failure)]);
                self.fail(id, &rpc_error(code::SEND_FAILED, &reason, &failure));
            }
        }
    }

    /// Sends what this turn gathered: the calls (one alone, several as a
    /// batch), then the batch answers that settled.
    fn flush(self: &Rc<Self>) {
        let announce = {
            let Some(mut state) = self.state() else { return };
            state.sent_alone = false;
            state.flush_scheduled = false;
            core::mem::take(&mut state.announce_components)
        };
        #[cfg(feature = "websocket")]
        if announce {
            self.announce_components();
        }
        let _ = announce;
        self.send_queued();
        let settled = self.state().map(|mut s| s.dispatcher.take_settled()).unwrap_or_default();
        for reply in settled {
            self.send_reply(reply);
        }
    }

    /// Sends the calls and notifications gathered so far: one alone, several as a batch.
    fn send_queued(&self) {
        let queued = match self.state() {
            Some(mut state) if !state.queue.is_empty() => core::mem::take(&mut state.queue),
            _ => return,
        };
        match queued.as_slice() {
            [] => {}
            [one] => self.post_call(&one.message, &one.transfer, one.id),
            many => {
                let batch: Array = many.iter().map(|q| &q.message).collect();
                let transfer: Array = many
                    .iter()
                    .filter(|q| !q.transfer.is_undefined())
                    .flat_map(|q| Array::from(&q.transfer).iter().collect::<Vec<_>>())
                    .collect();
                let transfer = if transfer.length() == 0 { JsValue::UNDEFINED } else { transfer.into() };
                // One unsendable member fails the whole batch: send each alone,
                // so only the culprit's call fails.
                if self.post(batch.into(), &transfer).is_err() {
                    for one in many {
                        self.post_call(&one.message, &one.transfer, one.id);
                    }
                }
            }
        }
    }

    fn watch_abort(self: &Rc<Self>, id: u64, signal: AbortSignal) {
        let weak = Rc::downgrade(self);
        let watched = signal.clone();
        let listener = Closure::<dyn FnMut()>::new(move || {
            let Some(endpoint) = weak.upgrade() else { return };
            let error = rpc_error(code::REQUEST_CANCELLED, "Request aborted", &watched.reason());
            if endpoint.fail(id, &error) {
                let params: JsValue = Object::new().into();
                set(&params, &keys::ID, &JsValue::from_f64(id as f64));
                let cancel = notification_message(&JsValue::from_str(CANCEL_REQUEST), &params);
                endpoint.send_call(cancel, JsValue::UNDEFINED, None);
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
        let Some(key) = id.as_f64().and_then(PendingTable::<Waiter>::key_of) else { return };
        let Some(waiter) = self.state().and_then(|mut s| s.pending.remove(key)) else { return };
        match outcome {
            Ok(result) => waiter.settle(true, &result),
            Err(error) => waiter.settle(false, &rpc_error_from(&error)),
        }
    }

    /// Rejects a pending call; returns whether it was still pending.
    fn fail(&self, id: u64, error: &JsValue) -> bool {
        let Some(waiter) = self.state().and_then(|mut s| s.pending.remove(id)) else { return false };
        waiter.settle(false, error);
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
        let handle = set_timeout(&self.on_timer, delay);
        state.timer = Some((handle, deadline));
    }

    /// One of the timers fired: the clock is read, calls waiting for a
    /// reading get their deadlines, those due fail, and the deadline timer
    /// is armed for the next one.
    fn expire(&self, fired: Fired) {
        let (expired, next) = {
            let Some(mut state) = self.state() else {
                return;
            };
            match fired {
                Fired::Deadline => state.timer = None,
                Fired::Tick => state.tick = None,
            }
            state.pending.expire(performance_now() as Deadline)
        };
        if let Some(next) = next {
            self.arm_timer(next);
        }
        for (_, waiter) in expired {
            let method = waiter.method.as_string().unwrap_or_default();
            let message = concat(&["Request timed out: ", &method]);
            let error = rpc_error(code::REQUEST_TIMEOUT, &message, &JsValue::UNDEFINED);
            waiter.settle(false, &error);
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
            if let Some(handle) = state.tick.take() {
                clear_timeout(&handle);
            }
            state.dispatcher.clear();
            state.queue.clear();
            state.pending.drain()
        };
        let handler: &JsValue = &self.on_message;
        call_optional(&self.transport, "offMessage", handler);
        call_optional(&self.transport, "destroy", &JsValue::UNDEFINED);
        let destroyed = || rpc_error(code::DESTROYED, "The endpoint was destroyed", &JsValue::UNDEFINED);
        self.abort_handlers(|_| true, &destroyed());
        for (_, waiter) in drained {
            waiter.settle(false, &destroyed());
        }
        // No longer reachable through the transport: from now on the endpoint
        // lives only as long as JS holds its object.
        let unsubscribed = self.subscribed.borrow_mut().take();
        drop(unsubscribed);
    }

    fn register(&self, name: &str, handler: JsValue, notification: bool) -> Result<(), JsValue> {
        self.register_described(name, handler, notification, &JsValue::UNDEFINED)
    }

    /// Registers a handler; a method's `info` (`{description, params, returns}`)
    /// is what introspection reports of it.
    fn register_described(
        &self,
        name: &str,
        handler: JsValue,
        notification: bool,
        info: &JsValue,
    ) -> Result<(), JsValue> {
        let Ok(handler) = handler.dyn_into::<Function>() else {
            return Err(type_error("handler must be a function"));
        };
        let catalog = {
            let mut state = self.state().ok_or_else(|| type_error("re-entrant call"))?;
            if notification {
                state.dispatcher.set_notification(name, handler);
                return Ok(());
            }
            state.dispatcher.set_method(name, handler);
            state.introspection.clone()
        };
        if let Some(catalog) = catalog {
            call_optional_2(&catalog, &keys::RECORD, &JsValue::from_str(name), info);
        }
        self.components_changed();
        Ok(())
    }

    /// A proxy whose calls are requests: see `remoteProxy` in remote.js.
    #[cfg(feature = "remote")]
    fn remote(self: &Rc<Self>) -> JsValue {
        let endpoint = self.clone();
        let request = Closure::<dyn FnMut(JsValue, JsValue) -> Promise>::new(move |method, args| {
            endpoint.request(method, args, None)
        });
        super::remote_proxy(&js_function(request))
    }

    /// Registers an object's public methods as `name.method`.
    #[cfg(feature = "remote")]
    fn expose(&self, instance: &JsValue, name: &str) -> Result<(), JsValue> {
        if !instance.is_object() {
            return Err(type_error("expose: instance must be an object"));
        }
        for pair in super::exposed_methods(instance, name).iter() {
            let pair: Array = pair.unchecked_into();
            let method = pair.get(0).as_string().unwrap_or_default();
            self.register(&method, pair.get(1), false)?;
        }
        Ok(())
    }

    fn pending_count(&self) -> usize {
        self.state().map_or(0, |s| s.pending.len())
    }

    /// `peer.on(event, listener)`: the transport's lifecycle events.
    fn on(&self, event: &str, listener: &JsValue) -> Result<JsValue, JsValue> {
        let on = js_sys::Reflect::get(&self.transport, &JsValue::from_str("on"))?;
        let on = on.dyn_ref::<Function>().ok_or_else(|| type_error("this transport has no events"))?;
        on.call2(&self.transport, &JsValue::from_str(event), listener)
    }

    /// Follows the connection of a transport that has one (a WebSocket):
    /// when it closes, calls waiting on it fail at once instead of timing out.
    fn watch_connection(self: &Rc<Self>) {
        let listen = |event: &str, f: fn(&Rc<Endpoint>)| {
            let weak = Rc::downgrade(self);
            let listener = js_function(Closure::<dyn FnMut()>::new(move || {
                if let Some(endpoint) = weak.upgrade() {
                    f(&endpoint);
                }
            }));
            self.on(event, &listener).is_ok()
        };
        if !listen("close", |endpoint| endpoint.connection_closed()) {
            return;
        }
        if self.jrpc_oo {
            listen("open", |endpoint| endpoint.components_changed());
        }
    }

    fn connection_closed(&self) {
        let drained = {
            let Some(mut state) = self.state() else { return };
            // Their calls are failing now: they must not go out on a new connection.
            state.queue.retain(|queued| queued.id.is_none());
            state.pending.drain()
        };
        let closed = || rpc_error(code::CONNECTION_CLOSED, "Connection closed", &JsValue::UNDEFINED);
        // Nobody is left to answer: running handlers may stop.
        self.abort_handlers(|_| true, &closed());
        for (_, waiter) in drained {
            waiter.settle(false, &closed());
        }
    }

    fn incoming_params(&self, params: Option<JsValue>) -> JsValue {
        let params = params.unwrap_or(JsValue::UNDEFINED);
        #[cfg(feature = "websocket")]
        if self.jrpc_oo {
            return super::websocket_glue::args_of(&params);
        }
        params
    }

    #[cfg_attr(not(feature = "websocket"), allow(unused_variables))]
    fn outgoing_params(&self, method: &JsValue, params: JsValue) -> JsValue {
        #[cfg(feature = "websocket")]
        if self.jrpc_oo {
            return super::websocket_glue::args_params(method, &params);
        }
        params
    }

    /// jrpc-oo peers list their methods to each other (`system.listComponents`)
    /// and call only what the other side listed.
    #[cfg(feature = "websocket")]
    fn serve_components(self: &Rc<Self>) -> Result<(), JsValue> {
        let weak = Rc::downgrade(self);
        let list = js_function(Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |_params: JsValue| {
            weak.upgrade().map_or(JsValue::NULL, |endpoint| endpoint.component_map())
        }));
        self.register("system.listComponents", list.into(), false)
    }

    #[cfg(feature = "websocket")]
    fn component_map(&self) -> JsValue {
        let names: Array = match self.state() {
            Some(state) => state.dispatcher.method_names().map(JsValue::from_str).collect(),
            None => Array::new(),
        };
        super::websocket_glue::component_map(&names)
    }

    /// Tells a jrpc-oo peer this side's methods, once per turn at most.
    fn components_changed(&self) {
        if !self.jrpc_oo {
            return;
        }
        if let Some(mut state) = self.state() {
            state.announce_components = true;
        }
        self.schedule_flush();
    }

    #[cfg(feature = "websocket")]
    fn announce_components(self: &Rc<Self>) {
        if get(&self.transport, &keys::CONNECTED).as_bool() != Some(true) {
            return; // the `open` event will
        }
        let map = self.component_map();
        let reply = self.request(JsValue::from_str("system.listComponents"), map, None);
        super::websocket_glue::ignore_rejection(&reply);
    }

    /// A handler's `emit(chunk)`: a `stream.chunk` for its request.
    #[cfg(feature = "streaming")]
    fn emit_chunk(&self, call: u32, chunk: JsValue) {
        let id = {
            let Some(mut state) = self.state() else { return };
            // After the answer, a chunk has no call to belong to.
            let Some(id) = state.dispatcher.request_id(crate::core::CallId(call)).cloned() else { return };
            if let Some(context) = state.contexts.iter_mut().find(|c| c.call == call) {
                context.streamed = true;
            }
            id
        };
        self.send_call(stream_message(crate::core::STREAM_CHUNK, &id, Some(&chunk)), JsValue::UNDEFINED, None);
    }

    /// A chunk of one of this side's calls: to that call's `onChunk` only.
    fn chunk_arrived(&self, id: &JsValue, chunk: Option<JsValue>) {
        let Some(key) = id.as_f64().and_then(PendingTable::<Waiter>::key_of) else { return };
        let on_chunk = self.state().and_then(|mut s| s.pending.get_mut(key).and_then(|w| w.on_chunk.clone()));
        if let Some(on_chunk) = on_chunk {
            let _ = on_chunk.call1(&JsValue::UNDEFINED, &chunk.unwrap_or(JsValue::UNDEFINED));
        }
    }

    /// `peer.stream()`: the request as an async iterator of its chunks.
    #[cfg(feature = "streaming")]
    fn stream(self: &Rc<Self>, method: JsValue, params: JsValue, options: JsValue) -> JsValue {
        let endpoint = self.clone();
        let start = Closure::once_into_js(move |options: JsValue| -> Promise {
            endpoint.request(method, params, options.dyn_into::<Object>().ok())
        });
        super::stream_call(&start, &options)
    }
}

/// `stream.chunk` / `stream.end` for the request `id`.
fn stream_message(method: &str, id: &JsValue, chunk: Option<&JsValue>) -> JsValue {
    let params: JsValue = Object::new().into();
    set(&params, &keys::ID, id);
    if let Some(chunk) = chunk {
        set(&params, &keys::CHUNK, chunk);
    }
    notification_message(&JsValue::from_str(method), &params)
}

/// Joins text without pulling `core::fmt` into the wasm build.
fn concat(parts: &[&str]) -> String {
    let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    parts.iter().for_each(|part| text.push_str(part));
    text
}

/// Hands a callback to JS for good: the JS function owns it from now on.
fn js_function<F: ?Sized + wasm_bindgen::closure::WasmClosure>(closure: Closure<F>) -> Function {
    closure.into_js_value().unchecked_into()
}

fn call_optional_2(target: &JsValue, key: &super::Key, a: &JsValue, b: &JsValue) {
    if let Some(function) = get(target, key).dyn_ref::<Function>() {
        let _ = function.call2(target, a, b);
    }
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

fn response_message(response: &Response<JsValue>, transfer: &mut Vec<JsValue>) -> JsValue {
    let null = JsValue::NULL;
    let id = response.id.as_ref().unwrap_or(&null);
    match &response.payload {
        Ok(result) => result_message(id, &unwrap_transfer(result, transfer)),
        Err(error) => {
            error_message(id, error.code as f64, &error.message, error.data.as_ref().unwrap_or(&JsValue::UNDEFINED))
        }
    }
}

#[cfg(feature = "remote")]
#[wasm_bindgen(typescript_custom_section)]
const REMOTE_TYPES: &'static str = r#"
/**
 * The remote side as an object: each function becomes a request with
 * positional params, each nested object a `Name.` prefix.
 */
export type Remote<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : T[K] extends object ? Remote<T[K]> : never;
};
export interface JSONRPCClient {
  /** The other side as an object: `remote<API>().Repo.get(1)` requests `Repo.get` with `[1]`. */
  remote<API = Record<string, unknown>>(): Remote<API>;
}
export interface JSONRPCServer {
  /**
   * Serves the object's public methods (own and inherited, not
   * underscore-prefixed) as `name.method`: positional params are spread as
   * arguments, named params passed as one object.
   */
  expose(instance: object, name: string): void;
}
export interface Peer {
  remote<API = Record<string, unknown>>(): Remote<API>;
  expose(instance: object, name: string): void;
}
"#;

#[cfg(feature = "streaming")]
#[wasm_bindgen(typescript_custom_section)]
const STREAMING_TYPES: &'static str = r#"
export interface RequestOptions {
  /** Receives the call's chunks (`stream.chunk`), in order, before it resolves. */
  onChunk?: (chunk: any) => void;
}
export interface CallContext {
  /**
   * Sends a chunk of the result ahead of it (`stream.chunk`); `stream.end`
   * follows before the response. Does nothing once the call has been answered.
   */
  readonly emit: (chunk: unknown) => void;
}
/** A streamed call: its chunks as an async iterator, its final result beside them. */
export interface StreamedCall<C = unknown, R = unknown> extends AsyncIterable<C> {
  /** The final result; rejects as `request` would (`REQUEST_CANCELLED` once cancelled). */
  readonly result: Promise<R>;
  /** Cancels the call: `$/cancelRequest` goes out, the handler's signal fires. */
  cancel(reason?: unknown): void;
}
export interface JSONRPCClient {
  /** A request whose chunks are iterated with `for await`; leaving the loop early cancels it. */
  stream<C = unknown, R = unknown>(method: string, params?: Params, options?: RequestOptions): StreamedCall<C, R>;
}
export interface Peer {
  stream<C = unknown, R = unknown>(method: string, params?: Params, options?: RequestOptions): StreamedCall<C, R>;
}
"#;

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
    pub fn request(&self, method: JsValue, params: JsValue, options: Option<Object>) -> Promise {
        self.endpoint.request(method, params, options)
    }

    /// Sends a notification: no id, no response.
    pub fn notify(&self, method: JsValue, params: JsValue, options: Option<Object>) -> Result<(), JsValue> {
        self.endpoint.notify(method, params, options)
    }

    /// Calls still waiting for a response.
    #[wasm_bindgen(getter)]
    pub fn pending(&self) -> usize {
        self.endpoint.pending_count()
    }

    /// A proxy whose calls are requests: `remote.Repo.get(1)` calls `Repo.get` with `[1]`.
    #[cfg(feature = "remote")]
    pub fn remote(&self) -> JsValue {
        self.endpoint.remote()
    }

    /// Listens to the transport's lifecycle events (`open`, `close`,
    /// `reconnecting`, `reconnected`, `error`); returns what removes the listener.
    pub fn on(&self, event: &str, listener: JsValue) -> Result<JsValue, JsValue> {
        self.endpoint.on(event, &listener)
    }

    /// A request whose chunks arrive as an async iterator, its result as `.result`.
    #[cfg(feature = "streaming")]
    pub fn stream(&self, method: JsValue, params: JsValue, options: JsValue) -> JsValue {
        self.endpoint.stream(method, params, options)
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
    pub fn method(&self, name: &str, handler: JsValue, info: JsValue) -> Result<(), JsValue> {
        self.endpoint.register_described(name, handler, false, &info)
    }

    /// Registers the handler of a notification.
    #[wasm_bindgen(js_name = onNotify)]
    pub fn on_notify(&self, name: &str, handler: JsValue) -> Result<(), JsValue> {
        self.endpoint.register(name, handler, true)
    }

    /// Serves an object's public methods as `name.method`.
    #[cfg(feature = "remote")]
    pub fn expose(&self, instance: JsValue, name: &str) -> Result<(), JsValue> {
        self.endpoint.expose(&instance, name)
    }

    /// Listens to the transport's lifecycle events (`open`, `close`,
    /// `reconnecting`, `reconnected`, `error`); returns what removes the listener.
    pub fn on(&self, event: &str, listener: JsValue) -> Result<JsValue, JsValue> {
        self.endpoint.on(event, &listener)
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
    pub fn request(&self, method: JsValue, params: JsValue, options: Option<Object>) -> Promise {
        self.endpoint.request(method, params, options)
    }

    /// Sends a notification: no id, no response.
    pub fn notify(&self, method: JsValue, params: JsValue, options: Option<Object>) -> Result<(), JsValue> {
        self.endpoint.notify(method, params, options)
    }

    /// Calls still waiting for a response.
    #[wasm_bindgen(getter)]
    pub fn pending(&self) -> usize {
        self.endpoint.pending_count()
    }

    /// A proxy whose calls are requests: `remote.Repo.get(1)` calls `Repo.get` with `[1]`.
    #[cfg(feature = "remote")]
    pub fn remote(&self) -> JsValue {
        self.endpoint.remote()
    }

    /// Registers the handler of a method: `(params) => result | Promise`.
    pub fn method(&self, name: &str, handler: JsValue, info: JsValue) -> Result<(), JsValue> {
        self.endpoint.register_described(name, handler, false, &info)
    }

    /// Registers the handler of a notification.
    #[wasm_bindgen(js_name = onNotify)]
    pub fn on_notify(&self, name: &str, handler: JsValue) -> Result<(), JsValue> {
        self.endpoint.register(name, handler, true)
    }

    /// Serves an object's public methods as `name.method`.
    #[cfg(feature = "remote")]
    pub fn expose(&self, instance: JsValue, name: &str) -> Result<(), JsValue> {
        self.endpoint.expose(&instance, name)
    }

    /// Listens to the transport's lifecycle events (`open`, `close`,
    /// `reconnecting`, `reconnected`, `error`); returns what removes the listener.
    pub fn on(&self, event: &str, listener: JsValue) -> Result<JsValue, JsValue> {
        self.endpoint.on(event, &listener)
    }

    /// A request whose chunks arrive as an async iterator, its result as `.result`.
    #[cfg(feature = "streaming")]
    pub fn stream(&self, method: JsValue, params: JsValue, options: JsValue) -> JsValue {
        self.endpoint.stream(method, params, options)
    }

    /// Rejects every pending call, stops serving, destroys the transport.
    pub fn destroy(&self) {
        self.endpoint.destroy();
    }
}

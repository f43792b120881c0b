//! One core [`Endpoint`] on one JS transport: feeds it what the transport
//! delivers, the calls JS makes and the time when a timer fires, and carries
//! out what it asks for (send, run a handler, settle a promise). Every
//! decision about the wire is the endpoint's; this owns only the JS
//! resources around it (timers, the transport's listener, handler signals).
//!
//! Here: opening, the drain loop, timers, registering and destroying;
//! `entry`: the exports every message comes in through; `receive`: what
//! comes in and what JS signals; `calls`: the calls JS makes and how they
//! settle; `send`: what goes out.

use crate::prelude::*;

use alloc::rc::{Rc, Weak};
use core::cell::{Cell, RefCell, RefMut};

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod calls;
mod entry;
mod options;
mod receive;
mod send;

use entry::{Expect, Handback, ENDPOINTS};

use calls::settle;
pub use calls::{call_options, CallOptions, Requested};

use super::boundary::{self as js, keys, opening, option};
use crate::core::{code, Deadline, Endpoint, Envelope, Event, Failure, Outcome, Roles, TICK_MS};

/// Handlers are numbers (`hooks.handlers` in JS); this side's calls are
/// known by their ids (`hooks.calls`), so they need no waiter.
type Core = Endpoint<JsValue, u32, ()>;

pub struct Binding {
    transport: JsValue,
    /// Speak JSON text: the transport says so, or it delivered text.
    text: Cell<bool>,
    /// The transport's `settled(id)`, if it has one: a transport that carries
    /// each message as a request of its own (HTTP) and reports the calls it
    /// got no response to. It is given the ids of the calls each message
    /// carries, and told by this when each call ends.
    settled: Option<Function>,
    /// The transport's `idle()`, if it has one: called whenever this side
    /// has answered every call it was serving (a service worker keeps
    /// itself alive until then).
    idle: Option<Function>,
    /// jrpc-oo's `{"args": [...]}` params (the core's `Dialect::JrpcOo`).
    jrpc_oo: bool,
    /// A thrown error's stack travels with it (`exposeStack`): off by default, paths leak.
    expose_stack: bool,
    default_timeout: f64,
    core: RefCell<Core>,
    /// `drain` is running (see there).
    draining: Cell<bool>,
    /// What the export feeding the core may hand back to its JS (see `drain`).
    expect: Cell<Option<Expect>>,
    handback: Cell<Handback>,
    /// The members of the batch being read (see `receive`).
    batch: RefCell<Option<Vec<Option<Envelope<JsValue>>>>>,
    /// What the endpoint's timers are armed for (the timers are JS's, in `hooks`).
    timers: Cell<Timers>,
    /// The endpoint's JS state (`handlerHooks` in serving.js): this side's
    /// calls, the handlers, the listeners on the transport and the timers,
    /// and `signal`, the one callback by which JS tells this binding
    /// anything (it calls the `wiggumSignal` export with the number the
    /// endpoint is known by, so a late call, a timer or a handler settling
    /// after destroy, finds nothing and does nothing).
    hooks: JsValue,
    /// The `trace` option's tracer: `None` costs nothing per message.
    pub(super) tracer: Option<JsValue>,
    /// The binding itself while it is subscribed to its transport: it lives
    /// as long as the transport can deliver to it, whether or not JS keeps its
    /// object. Cleared by `destroy()`.
    subscribed: RefCell<Option<Rc<Binding>>>,
}

#[derive(Clone, Copy, Default)]
struct Timers {
    tick: bool,
    deadline: Option<Deadline>,
}

fn now() -> Deadline {
    js::performance_now() as Deadline
}

/// The trace event of a call of this side's that ended without an answer.
fn failure_event(failure: Failure) -> &'static str {
    match failure {
        Failure::Timeout { .. } => "timeout",
        Failure::Cancelled => "cancel",
        Failure::Destroyed => "destroyed",
        Failure::ConnectionClosed => "connection-closed",
    }
}

fn destroyed_error() -> JsValue {
    js::rpc_error(code::DESTROYED, "The endpoint was destroyed", &JsValue::UNDEFINED)
}

impl Binding {
    pub fn open(transport: JsValue, roles: Roles, options: &JsValue) -> Result<Rc<Binding>, JsValue> {
        let options::Opening { config, flags, default_timeout, session } = options::read(&transport, options, roles)?;
        let said = |bit: u32| flags & bit != 0;
        let jrpc_oo = said(opening::JRPC_OO);
        let limits = config.limits;
        let text = said(opening::SPEAKS_TEXT);
        // A transport that holds a Web Lock while it lives names it: the hello carries it.
        let presence = said(opening::PRESENCE).then(|| js::named(&transport, "presence").as_string()).flatten();
        let tracer = match said(opening::TRACED) {
            false => None,
            true => Some(JsValue::from(js::tracer(&option(options, keys::TRACE))?)),
        };
        let traced = tracer.clone().unwrap_or(JsValue::UNDEFINED);
        let mut core = Endpoint::with_session(config, presence, session);
        if said(opening::CONNECTING) {
            core.connecting();
        }
        let binding = Rc::new_cyclic(|weak: &Weak<Binding>| {
            let weak = weak.clone();
            let number = f64::from(ENDPOINTS.enter(weak.clone()));
            let hooks = js::handler_hooks(&wasm_bindgen::exports(), number, &traced);
            Binding {
                transport: transport.clone(),
                text: Cell::new(text),
                settled: said(opening::SETTLED).then(|| js::method(&transport, "settled")).flatten(),
                idle: said(opening::IDLE).then(|| js::method(&transport, "idle")).flatten(),
                jrpc_oo,
                expose_stack: said(opening::EXPOSE_STACK),
                default_timeout,
                core: RefCell::new(core),
                draining: Cell::new(false),
                expect: Cell::new(None),
                handback: Cell::new(Handback::Nothing),
                batch: RefCell::new(None),
                timers: Cell::new(Timers::default()),
                tracer,
                hooks,
                subscribed: RefCell::new(None),
            }
        });
        js::listen(
            &binding.hooks,
            &binding.transport,
            js::names::table(),
            limits.max_message_bytes as f64,
            limits.max_depth as f64,
            i32::from(text),
            i32::from(binding.tracer.is_some()),
            i32::from(binding.settled.is_some()),
        );
        *binding.subscribed.borrow_mut() = Some(binding.clone());
        // The hello, if the transport asked for a handshake.
        binding.drain();
        Ok(binding)
    }

    /// The endpoint known by `number` (`hooks.endpoint`), while it is open.
    pub fn numbered(number: u32) -> Option<Rc<Binding>> {
        ENDPOINTS.get(number)
    }

    /// Whether the endpoint speaks JSON text (its transport said so, or delivered text).
    pub fn speaks_text(&self) -> bool {
        self.text.get()
    }

    /// The endpoint's JS state (`handlerHooks`): what its class holds.
    pub fn hooks(&self) -> &JsValue {
        &self.hooks
    }

    /// The core, unless this is a re-entrant call from inside a borrow (which
    /// the layer never makes itself): then nothing happens, rather than a
    /// panic that would take every peer in the page down.
    fn core(&self) -> Option<RefMut<'_, Core>> {
        self.core.try_borrow_mut().ok()
    }

    /// Gives the core an input, then carries out what it asks for.
    fn with_core(self: &Rc<Self>, input: impl FnOnce(&mut Core)) {
        let Some(mut core) = self.core() else { return };
        input(&mut core);
        drop(core);
        // The reader's look-up of the method was for this input only: the
        // events may run JS that feeds another endpoint (a transport that
        // delivers at once), whose name it must not be taken for.
        js::names::expect(None);
        self.drain();
    }

    /// Carries out the core's events, in order, then arms the timers it needs.
    /// Never re-entered: an input fed while events are being carried out (a
    /// handler that answers at once, a call made from a handler) leaves its
    /// events to the loop already running, so a batch of 10,000 synchronous
    /// handlers costs one stack frame, not 10,000.
    ///
    /// The export that fed the core may have said what its JS can carry out
    /// itself (`expect`): when the last event is that, it is handed back
    /// (`handback`) rather than carried out here, which saves a crossing out
    /// per message on the common path.
    fn drain(self: &Rc<Self>) {
        let expect = self.expect.take();
        if self.draining.replace(true) {
            return;
        }
        let mut session_ended = false;
        loop {
            let Some(mut core) = self.core() else { break };
            if let Some(handback) = expect.and_then(|expect| self.hand_back(&mut core, expect)) {
                self.handback.set(handback);
                break;
            }
            let Some(event) = core.poll() else { break };
            drop(core);
            match event {
                Event::Transmit(transmit) => self.transmit(transmit),
                Event::Invoke { call, handler, params } => self.invoke(call, handler, params),
                Event::Notify { handler, params } => {
                    js::notify_handler(&self.hooks, f64::from(handler), &params.unwrap_or(JsValue::UNDEFINED))
                }
                Event::Settled { id, outcome, .. } => {
                    if let (Some(tracer), Outcome::Failed(failure)) = (self.tracer(), &outcome) {
                        tracer.failed(failure_event(*failure), id as f64, &self.hooks, &JsValue::UNDEFINED);
                    }
                    if let Some(settled) = self.settled.as_ref().filter(|_| id != 0) {
                        let _ = settled.call1(&self.transport, &(id as f64).into());
                    }
                    settle(&self.hooks, id, outcome)
                }
                Event::Chunk { id, chunk, .. } => {
                    js::chunk(&self.hooks, id as f64, &chunk.unwrap_or(JsValue::UNDEFINED))
                }
                Event::Progress { id, value, .. } => js::progress(&self.hooks, id as f64, &value),
                Event::Cancelled { call } => {
                    let reason = js::rpc_error(code::REQUEST_CANCELLED, "Request cancelled", &JsValue::UNDEFINED);
                    js::abort_handlers(&self.hooks, &call.0.into(), &reason);
                }
                Event::CheckExpired { call } => {
                    let reason =
                        js::rpc_error(code::INTERNAL_ERROR, "Params validation timed out", &JsValue::UNDEFINED);
                    self.trace("check-timeout", &JsValue::UNDEFINED);
                    js::abort_handlers(&self.hooks, &call.0.into(), &reason);
                }
                Event::ScheduleFlush => js::flush_later(&self.hooks),
                Event::Unhandled { method } => {
                    if let Some(tracer) = self.tracer() {
                        let method = JsValue::from_str(&method);
                        tracer.local("unhandled-notification", &JsValue::UNDEFINED, &method, &JsValue::UNDEFINED);
                    }
                }
                Event::PeerReady(_) => {}
                Event::MayStream { call } => js::may_stream(&self.hooks, call.0 as f64),
                // A listener may destroy this endpoint (a hub forgets the client): told after this task's work.
                Event::SessionEnded => session_ended = true,
                Event::WatchPeer(presence) => {
                    // The transport watches the other side's presence and emits `close` when it goes.
                    if let Some(watch) = js::method(&self.transport, "watch") {
                        let _ = watch.call1(&self.transport, &JsValue::from_str(&presence));
                    }
                }
            }
        }
        self.draining.set(false);
        if session_ended {
            js::session_ended(&self.transport);
        }
        if let Some(idle) = &self.idle {
            if self.core().is_some_and(|core| !core.is_serving()) {
                let _ = idle.call0(&self.transport);
            }
        }
        self.arm_timers();
    }

    /// Nothing watches this endpoint's messages and calls in JS but the
    /// endpoint: the reader may carry out the common ones (see `hand_back`).
    pub(super) fn plain(&self) -> bool {
        self.tracer.is_none() && self.settled.is_none() && self.idle.is_none()
    }

    /// Keeps the tick armed while calls wait for a clock reading, and one
    /// timer for the earliest deadline: no timer work per call.
    fn arm_timers(&self) {
        let Some(wanted) = self.core().map(|core| core.poll_timeout()) else { return };
        let mut timers = self.timers.get();
        if wanted.reading && !timers.tick {
            timers.tick = true;
            js::arm(&self.hooks, js::signal::TICK as i32, TICK_MS as f64);
        }
        if let Some(at) = wanted.deadline.filter(|at| timers.deadline.is_none_or(|armed| *at < armed)) {
            timers.deadline = Some(at);
            js::arm(&self.hooks, js::signal::DEADLINE as i32, (at as f64 - js::performance_now()).max(0.0));
        }
        self.timers.set(timers);
    }

    /// A timer fired: the core gets a clock reading.
    fn clock(self: &Rc<Self>, tick: bool) {
        let mut timers = self.timers.get();
        match tick {
            true => timers.tick = false,
            false => timers.deadline = None,
        }
        self.timers.set(timers);
        self.with_core(|core| core.handle_timeout(now()));
    }

    // ---- the JS API --------------------------------------------------------

    /// Handler number `handler` (in `hooks.handlers`) serves `name`, a
    /// method's or a notification's.
    fn handle(&self, name: &JsValue, handler: u32, notification: bool) {
        let (Some(name), Some(mut core)) = (name.as_string(), self.core()) else { return };
        match notification {
            true => core.set_notification(&name, handler),
            false => core.set_method(&name, handler),
        }
    }

    fn pending(&self) -> usize {
        self.core().map_or(0, |core| core.pending())
    }

    fn session_id(&self) -> JsValue {
        self.core().and_then(|core| core.session_id().map(JsValue::from_str)).unwrap_or(JsValue::UNDEFINED)
    }

    pub fn destroy(self: &Rc<Self>) {
        if self.core().is_none_or(|core| core.is_destroyed()) {
            return;
        }
        js::detach(&self.hooks);
        self.timers.set(Timers::default());
        if let Some(destroy) = js::method(&self.transport, "destroy") {
            let _ = destroy.call0(&self.transport);
        }
        js::abort_handlers(&self.hooks, &JsValue::UNDEFINED, &destroyed_error());
        self.with_core(|core| core.destroy());
        js::retire_hooks(&self.hooks);
        // No longer reachable through the transport: from now on the binding
        // lives only as long as JS holds its object.
        let unsubscribed = self.subscribed.borrow_mut().take();
        drop(unsubscribed);
    }

    /// The `trace` option's tracer, if there is one.
    pub(super) fn tracer(&self) -> Option<&js::Tracer> {
        self.tracer.as_ref().map(JsCast::unchecked_ref)
    }

    /// Tells the tracer, if there is one, of something that happened here.
    pub(super) fn trace(&self, event: &str, detail: &JsValue) {
        if let Some(tracer) = self.tracer() {
            tracer.local(event, &JsValue::UNDEFINED, &JsValue::UNDEFINED, detail);
        }
    }
}

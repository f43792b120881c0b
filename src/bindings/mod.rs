//! The bindings: the protocol core for JS behind a narrow numeric ABI.
//! Exports take and return numbers; JS values cross as `u32`
//! handles into one JS table (`value`); strings cross as (ptr, len) in
//! linear memory; what an endpoint asks its host to do leaves in one drain
//! per export call (`events`): words written into `OUT`, carried out by
//! `js/module/abi.js` after the export returns. Every import goes through
//! wasm-bindgen from the module `./wiggum_rpc_glue.js` (abi.js, as the build
//! resolves it); the package's .wasm imports all of them, shims included,
//! from its one glue file, `./wiggum_rpc_bg.js` (scripts/glue.mjs).
//!
//! - `abi`: the numbers both sides share (checked against js/module/numbers.js at build time).
//! - `value`: `Handle`, a JS value, and the core's `Value` through imports.
//! - `events`: the drain: events and messages written as words.
//! - `open`: endpoints opened, destroyed, forgotten.
//! - `receive`: what the reader hands over (envelopes, batches, refusals).
//! - `tell`: the one export of an open endpoint's small inputs.
//! - `calls`: the calls this side makes and serves.
//! - `connection`: the transport's events, its hooks, sessions, the
//!   reconnect schedule.
//! - `types`: the build's checks of `ErrorCode`.
//! - `framed`: Content-Length framing for Node (feature `framing`).
//! - `references`: references' exports (feature `references`).
//! - `handoff`: sessions handed between processes (feature `handoff`).
//! - `tests`: the bindings with the package's glue, in headless browsers.
//!
//! The header (`hdr()`, twelve `u32`s) says where the buffers are: 0 `OUT`'s
//! address, 1 its length in words, 2 `FREED`'s address, 3 its length, 4 how
//! many words of `OUT` JS has carried out (JS writes it), 5 how many freed
//! handles JS has taken back (JS writes it), 6 `STR`'s address (the bytes
//! of the events' strings), 7 the scratch buffer's address, 8 the length of
//! a refusal's message written there (`calls`), 9 and 10 the limits of the
//! endpoint last opened (message bytes and depth: the reader applies them
//! to text before it parses), 11 where the heap begins (below it, the
//! module's static data: the core's own names, which JS decodes once).
//!
//! JS carries out the events after the export returns; a handler it runs
//! may call an export again (nested): its events are appended, and the
//! buffers are emptied only once JS says it has carried out all of them.

mod abi;
mod calls;
mod connection;
mod events;
#[cfg(feature = "framing")]
mod framed;
#[cfg(feature = "handoff")]
mod handoff;
mod open;
mod receive;
#[cfg(feature = "references")]
mod references;
mod tell;
#[cfg(all(test, feature = "bindings-test"))]
mod tests;
mod types;
mod value;

use crate::prelude::*;
use wasm_bindgen::prelude::wasm_bindgen;

use core::cell::UnsafeCell;

use crate::core::{Endpoint, Envelope, Transmit};
pub use value::Handle;
use value::FREED;

/// A global of the single-threaded module.
pub(crate) struct Global<T>(UnsafeCell<T>);

// SAFETY: the wasm build runs on one thread; no global is held across a
// call that could reach it again (see `get`).
unsafe impl<T> Sync for Global<T> {}

impl<T> Global<T> {
    pub const fn new(value: T) -> Self {
        Global(UnsafeCell::new(value))
    }

    /// Never held across a call that could reach the same global again.
    #[allow(clippy::mut_from_ref)]
    pub fn get(&self) -> &mut T {
        unsafe { &mut *self.0.get() }
    }
}

#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: crate::heap::Wasm = crate::heap::Wasm::new();

#[cfg_attr(not(feature = "bindings-test"), wasm_bindgen::prelude::wasm_bindgen(raw_module = "./wiggum_rpc_glue.js"))]
#[cfg_attr(feature = "bindings-test", wasm_bindgen::prelude::wasm_bindgen(module = "/target/bindings-test/glue.js"))]
extern "C" {
    /// `performance.now()`.
    fn now() -> f64;
}

fn clock() -> f64 {
    now()
}

/// Handlers are numbers (JS keeps the functions); this side's calls are
/// known by their ids (JS keeps the promises), so the waiter is unused.
type Core = Endpoint<Handle, u32, u32>;

#[derive(Clone, Copy, Default)]
struct Timers {
    tick: bool,
    deadline: Option<crate::core::Deadline>,
}

/// One endpoint and what the binding keeps beside it.
struct Slot {
    core: Core,
    timers: Timers,
    default_timeout: f64,
    expose_stack: bool,
    /// The transport has `idle()`: the drain says when nothing is served.
    idle: bool,
    /// The members of the batch being read.
    batch: Option<Vec<Option<Envelope<Handle>>>>,
    /// The `refs` of the next call or result this endpoint makes (`references::refs`).
    #[cfg(feature = "references")]
    refs: Option<Handle>,
}

static SLOTS: Global<Vec<Option<Slot>>> = Global::new(Vec::new());
static OUT: Global<Vec<f64>> = Global::new(Vec::new());
static STR: Global<Vec<u8>> = Global::new(Vec::new());
/// What went out this turn, by index (its endpoint and itself), for `transmit_failed`.
type Sent = Option<(u32, Transmit<Handle>)>;
static SENT: Global<Vec<Sent>> = Global::new(Vec::new());
static SCRATCH: Global<Vec<u8>> = Global::new(Vec::new());
static HDR: Global<[u32; 12]> = Global::new([0; 12]);

/// Empties the buffers JS has carried out (at the start of every export).
fn enter() {
    let hdr = HDR.get();
    if hdr[5] as usize == FREED.get().len() {
        FREED.get().clear();
        hdr[5] = 0;
    }
    if hdr[4] as usize == OUT.get().len() {
        OUT.get().clear();
        STR.get().clear();
        SENT.get().clear();
        hdr[4] = 0;
    }
}

/// Where the buffers are now (at the end of every export).
fn leave() {
    let hdr = HDR.get();
    hdr[0] = OUT.get().as_ptr() as u32;
    hdr[1] = OUT.get().len() as u32;
    hdr[2] = FREED.get().as_ptr() as u32;
    hdr[3] = FREED.get().len() as u32;
    hdr[6] = STR.get().as_ptr() as u32;
    hdr[7] = SCRATCH.get().as_ptr() as u32;
}

fn slot(ep: u32) -> Option<&'static mut Slot> {
    SLOTS.get().get_mut(ep as usize)?.as_mut()
}

/// Feeds endpoint `ep` one input, then drains what it asks for.
fn with(ep: u32, input: impl FnOnce(&mut Slot)) {
    enter();
    if let Some(slot) = slot(ep) {
        input(slot);
        events::drain(ep, slot);
    }
    leave();
}

extern "C" {
    /// Where the linker put the heap: the static data lies below it.
    static __heap_base: u8;
}

/// The header's address (see the module's doc).
#[wasm_bindgen]
pub fn hdr() -> *const u32 {
    leave();
    let hdr = HDR.get();
    hdr[11] = core::ptr::addr_of!(__heap_base) as u32;
    hdr.as_ptr()
}

/// A buffer of at least `n` bytes JS may write into (its address is also
/// in the header, until the next call).
#[wasm_bindgen]
pub fn scratch(n: usize) -> *mut u8 {
    let s = SCRATCH.get();
    if s.capacity() < n {
        s.reserve(n - s.len());
    }
    leave();
    s.as_mut_ptr()
}

/// The first `len` bytes of the scratch buffer, which JS wrote as UTF-8.
fn scratch_bytes(len: usize) -> &'static [u8] {
    let s = SCRATCH.get();
    unsafe { core::slice::from_raw_parts(s.as_ptr(), len) }
}

/// Text JS wrote (UTF-8, by `TextEncoder`). Bytes, not a `str` slice: a
/// slice of a `str` links the char-boundary panic's formatting (+3 KB gzip).
fn owned(bytes: &[u8]) -> String {
    String::from(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// Writes `text` at the scratch buffer's address: its length.
fn to_scratch(text: &str) -> i32 {
    let s = SCRATCH.get();
    s.clear();
    s.extend_from_slice(text.as_bytes());
    leave();
    text.len() as i32
}

/// Whole milliseconds at or after `ms`, when it is a time at all (`f64::ceil` needs std).
fn whole_ms(ms: f64) -> Option<u64> {
    (ms.is_finite() && ms > 0.0).then(|| {
        let whole = ms as u64;
        whole + u64::from((whole as f64) < ms)
    })
}

//! What JS tells an endpoint once it is open, through one export: `tell`.
//! wasm-bindgen's cost is per export (each has a shim), so the small
//! inputs share one, named by `what` (`abi::tell`), with `a` and `b` their
//! arguments as each says; each is carried out by its own function beside
//! the inputs of its kind (calls, connection, open, receive, references).

use wasm_bindgen::prelude::wasm_bindgen;

use super::abi::tell::*;
use super::{calls, connection, open, receive};

/// Input `what` for endpoint `ep` (the numbers of `abi::tell`, which say
/// what `a` and `b` carry): its answer where it has one, else 0.
#[wasm_bindgen]
pub fn tell(ep: u32, what: u32, a: u32, b: f64) -> f64 {
    // A handle crosses in `b` where `a` carries a call's number.
    let handle = b as u32;
    match what {
        FLUSH => calls::flush(ep),
        TIMER => calls::timer(ep, a, b),
        CANCEL => calls::cancel(ep, b),
        RESOLVE => calls::complete(ep, a, 1, handle),
        REJECT => calls::complete(ep, a, 0, handle),
        EMIT => return f64::from(calls::emit(ep, a, handle)),
        PROGRESS => calls::progress(ep, a, handle),
        CONSUMED => calls::consumed(ep, b, a),
        REJECT_PARAMS => calls::reject_params(ep, a, handle),
        REJECT_RESULT => calls::reject_result(ep, a),
        CHECKING => calls::checking(ep, a, b),
        CHECKED => calls::checked(ep, a),
        SET_METHOD => calls::set_method(ep, b as usize, a, 0),
        SET_NOTIFICATION => calls::set_method(ep, b as usize, a, 1),
        OPENED => connection::connection_opened(ep),
        LOST => return f64::from(connection::connection_lost(ep, a, b)),
        PENDING => return f64::from(connection::pending(ep)),
        WAITING => return f64::from(connection::waiting(ep, b)),
        SESSION_ID => return f64::from(connection::session_id(ep)),
        DESTROY => open::destroy(ep),
        CLOSE => open::close(ep),
        RECEIVE => receive::recv_value(ep, handle, a),
        REFUSED => receive::recv_refused(ep, a),
        BATCH => return f64::from(receive::batch_begin(ep, a, b != 0.0)),
        BATCH_END => receive::members_end(ep),
        META => receive::meta(ep, a, handle),
        SERVED_ID => return calls::served_id(ep, a),
        #[cfg(feature = "references")]
        MAX_REFERENCES => super::references::max_references(b),
        #[cfg(feature = "references")]
        REFS => super::references::refs(ep, handle),
        #[cfg(feature = "references")]
        RELEASE => super::references::release(ep, a, handle),
        #[cfg(feature = "references")]
        REFERENCES_HELD => return super::references::references_held(ep),
        _ => {}
    }
    0.0
}

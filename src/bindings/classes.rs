//! The exported classes: `JSONRPCClient` (calls), `JSONRPCServer` (serves)
//! and `Peer` (both), each a handle on one [`Binding`]. Each capability is
//! written once, as a macro that emits a `#[wasm_bindgen] impl` block, and
//! stamped onto the classes that have it.

use alloc::rc::Rc;
use alloc::string::String;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::binding::Binding;
use crate::core::Roles;

/// A class: its constructor, lifecycle events, `destroy()`.
macro_rules! endpoint_class {
    ($(#[$doc:meta])* $class:ident, $roles:expr) => {
        $(#[$doc])*
        #[wasm_bindgen(skip_typescript)]
        pub struct $class {
            binding: Rc<Binding>,
        }

        #[wasm_bindgen]
        impl $class {
            #[wasm_bindgen(constructor)]
            pub fn new(transport: JsValue, options: JsValue) -> Result<$class, JsValue> {
                Ok($class { binding: Binding::open(transport, $roles, &options)? })
            }

            /// Listens to the transport's lifecycle events (`open`, `close`,
            /// `reconnecting`, `reconnected`, `error`); returns what removes the listener.
            pub fn on(&self, event: &str, listener: JsValue) -> Result<JsValue, JsValue> {
                self.binding.on(event, &listener)
            }

            /// The id of the resumable session this side is in (a
            /// WebSocket that reconnects, and a hub), or undefined.
            #[wasm_bindgen(getter)]
            pub fn session(&self) -> Option<String> {
                self.binding.session_id()
            }

            /// Rejects every pending call, stops serving, removes the
            /// listener, destroys the transport.
            pub fn destroy(&self) {
                self.binding.destroy();
            }
        }
    };
}

/// The calling side: `request`, `notify`, `pending` (`remote()` and `stream()` are JS, added by their entries).
macro_rules! calls {
    ($class:ident) => {
        #[wasm_bindgen]
        impl $class {
            /// Sends a request; resolves with its result, rejects with `RPCError`.
            // `options` is optional here so that a call without them crosses
            // one JS value fewer (each takes and gives back a slot of the
            // module's table of JS values); anything given is read as before.
            pub fn request(&self, method: JsValue, params: JsValue, options: Option<js_sys::Object>) -> Promise {
                self.binding.request(method, params, options.as_deref())
            }

            /// Sends a notification: no id, no response.
            pub fn notify(
                &self,
                method: JsValue,
                params: JsValue,
                options: Option<js_sys::Object>,
            ) -> Result<(), JsValue> {
                self.binding.notify(method, params, options.as_deref())
            }

            /// Calls still waiting for a response.
            #[wasm_bindgen(getter)]
            pub fn pending(&self) -> usize {
                self.binding.pending()
            }
        }
    };
}

/// The serving side: `method`, `onNotify` (`expose()` is JS, added by `wiggum-rpc/remote`).
macro_rules! serves {
    ($class:ident) => {
        #[wasm_bindgen]
        impl $class {
            /// Registers the handler of a method: `(params, context?) => result | Promise`.
            pub fn method(&self, name: &str, handler: JsValue, info: JsValue) -> Result<(), JsValue> {
                self.binding.register(name, handler, false, &info)
            }

            /// Registers the handler of a notification (`info.params`: a schema its params must pass).
            #[wasm_bindgen(js_name = onNotify)]
            pub fn on_notify(&self, name: &str, handler: JsValue, info: JsValue) -> Result<(), JsValue> {
                self.binding.register(name, handler, true, &info)
            }
        }
    };
}

endpoint_class!(
    /// Calls methods on the other side of a transport.
    JSONRPCClient,
    Roles::CLIENT
);
endpoint_class!(
    /// Serves methods and notifications to the other side of a transport.
    JSONRPCServer,
    Roles::SERVER
);
endpoint_class!(
    /// Client and server on one transport, both directions at once.
    Peer,
    Roles::PEER
);
/// The session a client's first message presents to be resumed (a `$/ready`
/// naming one), or undefined: how a server of many clients finds the
/// session a new connection belongs to. `message` may be JSON text.
#[wasm_bindgen(js_name = presentedSession, skip_typescript)]
pub fn presented_session(message: JsValue) -> Option<String> {
    let message = match message.as_string() {
        Some(text) => js_sys::JSON::parse(&text).ok()?,
        None => message,
    };
    crate::core::presented_session(&message)
}

calls!(JSONRPCClient);
calls!(Peer);
serves!(JSONRPCServer);
serves!(Peer);

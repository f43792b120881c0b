//! What a dialect changes on the wire beyond the core's configuration:
//! jrpc-oo's `{"args": [...]}` params, both ways, and its handshake, by
//! which each side tells the other the methods it serves
//! (`system.listComponents`, answered by the dispatcher, announced here).

use super::{Dialect, Endpoint};
use crate::core::dispatch::LIST_COMPONENTS;
use crate::core::value::{Kind, Value};
use crate::core::wire::Message;

/// The member jrpc-oo's params carry positional arguments in.
const JRPC_OO_ARGS: &str = "args";

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// The params a call or notification goes out with, in the dialect's shape.
    pub(super) fn outgoing_params(&self, method: &V, params: Option<V>) -> Option<V> {
        if self.config.dialect != Dialect::JrpcOo || method.as_text().is_some_and(|m| m.starts_with("system.")) {
            return params;
        }
        match params {
            None => Some(V::object_of(JRPC_OO_ARGS, V::empty_array())),
            Some(array) if array.kind() == Kind::Array => Some(V::object_of(JRPC_OO_ARGS, array)),
            other => other,
        }
    }

    /// The params a handler gets, out of the dialect's shape.
    pub(super) fn incoming_params(&self, params: Option<V>) -> Option<V> {
        match params {
            Some(wrapped) if self.config.dialect == Dialect::JrpcOo && wrapped.kind() == Kind::Object => {
                match wrapped.member(JRPC_OO_ARGS) {
                    Some(args) if args.kind() == Kind::Array => Some(args),
                    _ => Some(wrapped),
                }
            }
            params => params,
        }
    }

    /// jrpc-oo: the methods this side serves changed, or a connection
    /// opened. The other side hears of it once, at the end of the turn
    /// (however many methods a turn registers), if a connection is open:
    /// one that opens later is told then.
    pub(super) fn components_changed(&mut self) {
        if self.config.dialect == Dialect::JrpcOo && self.config.roles.client && self.connected && !self.destroyed {
            self.components_due = true;
            self.schedule_flush();
        }
    }

    /// The end of the turn: the announcement due, as jrpc-oo makes it, a
    /// call of `system.listComponents` with this side's methods. Its answer
    /// (the other side's methods) settles nothing here: its id is one no
    /// call of this side's holds.
    pub(super) fn announce_components(&mut self) {
        if !core::mem::replace(&mut self.components_due, false) || !self.connected {
            return;
        }
        let id = self.calls.unused_id();
        let params = V::flags(self.dispatcher.method_names());
        let request = Message::Request {
            id,
            method: V::string(LIST_COMPONENTS),
            params: Some(params),
            meta: None,
            #[cfg(feature = "references")]
            refs: None,
        };
        self.send(request, None);
    }
}

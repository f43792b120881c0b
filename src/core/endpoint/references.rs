//! Functions and objects by reference, as one connection counts them: the
//! exports the peer holds and the imports this side holds, each by
//! introductions not yet released, and the rules of offering them.

use super::*;

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// This side offers references: a Peer (it must both call and serve
    /// them) in the plain dialect, configured to.
    pub(super) fn offers_references(&self) -> bool {
        self.config.references && self.config.roles == Roles::PEER && self.config.dialect == Dialect::Plain
    }

    /// References go both ways on this connection: this side offers them and the peer's hello did.
    pub fn takes_references(&self) -> bool {
        self.offers_references() && self.peer.is_some_and(|peer| peer.references)
    }
}

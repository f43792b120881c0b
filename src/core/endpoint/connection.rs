//! What the endpoint does as its connection comes and goes: closed, lost
//! (a session may go on), connecting and opened again, a session's end, and
//! destroy; and how the calls that waited on it fail.

use super::*;

impl<V: Value + PartialEq, H: Clone, W: Clone> Endpoint<V, H, W> {
    /// The connection closed: calls sent on it can no longer be answered.
    /// Queued notifications stay for a next connection; queued calls fail
    /// too. A session ends with it (see [`Endpoint::connection_lost`]).
    pub fn connection_closed(&mut self) {
        self.connected = false;
        if let Some(session) = &mut self.session {
            session.end();
        }
        self.fail_connection();
    }

    /// The connection dropped at `now`, and another may follow: a session
    /// goes on without it, its calls waiting, what is sent kept, until its
    /// grace runs out ([`Event::SessionEnded`]). Without a session, as
    /// [`Endpoint::connection_closed`]. Returns whether the session goes on.
    pub fn connection_lost(&mut self, now: Deadline) -> bool {
        self.connected = false;
        if self.destroyed {
            return false;
        }
        let goes_on = self.session.as_mut().is_some_and(|session| session.connection_lost(now));
        if !goes_on {
            self.fail_connection();
        }
        goes_on
    }

    /// What waited on the connection fails: calls sent and queued (queued
    /// notifications stay for a next connection).
    pub(super) fn fail_connection(&mut self) {
        self.unqueue(None);
        #[cfg(feature = "references")]
        self.drop_references();
        self.fail_all(Failure::ConnectionClosed);
    }

    /// The connection is not open yet (a WebSocket still connecting): what
    /// goes out only on an open connection waits for
    /// [`Endpoint::connection_opened`].
    pub fn connecting(&mut self) {
        self.connected = false;
    }

    /// A client's new connection is open: its hello presents the session
    /// (or asks for one), and what waited for a connection follows.
    pub fn connection_opened(&mut self) {
        if self.destroyed {
            return;
        }
        self.connected = true;
        self.components_changed();
        let Some(session) = &mut self.session else {
            // An open connection shows the other side is there, unless only its hello may say so.
            if self.config.handshake != Handshake::Await {
                self.peer_present();
            }
            return;
        };
        let Some(then) = session.connection_opened() else { return };
        let hello = session.hello();
        self.events.push_back(Event::Transmit(Transmit::Single(self.ready(false, hello))));
        self.transmit_again(then);
    }

    /// What a session numbered and kept already goes straight to the host.
    /// One push at a time: `VecDeque::extend` links its own copy of the
    /// queue's growth, for a path that runs once per reconnect.
    pub(super) fn transmit_again(&mut self, transmits: Vec<Transmit<V>>) {
        for transmit in transmits {
            self.events.push_back(Event::Transmit(transmit));
        }
    }

    /// The id of the session this side is in, whether or not a connection carries it now.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref().and_then(Session::id)
    }

    /// How many messages the session keeps now (sent and not acknowledged,
    /// or made while no connection carried it).
    pub fn session_kept(&self) -> usize {
        self.session.as_ref().map_or(0, Session::kept)
    }

    /// The session is over: what waits on it fails, and the host hears of it.
    pub(super) fn session_over(&mut self) {
        self.connection_closed();
        self.events.push_back(Event::SessionEnded);
    }

    /// Ends the endpoint: every waiting call settles with [`Failure::Destroyed`],
    /// calls being served will not be answered, and later inputs do nothing.
    pub fn destroy(&mut self) {
        if core::mem::replace(&mut self.destroyed, true) {
            return;
        }
        self.dispatcher.clear();
        self.bounds.clear();
        self.queue.clear();
        self.progress_tokens.clear();
        if let Some(session) = &mut self.session {
            session.end();
        }
        #[cfg(feature = "references")]
        self.drop_references();
        self.fail_all(Failure::Destroyed);
    }

    pub(super) fn fail_all(&mut self, failure: Failure) {
        self.fail_calls(&[], failure);
        self.awaiting_reading = false;
        self.earliest = None;
    }

    /// Every call but those `kept` settles with `failure`, in id order.
    pub(super) fn fail_calls(&mut self, kept: &[u64], failure: Failure) {
        let events = &mut self.events;
        self.calls.remove_where(
            |id| !kept.contains(&id),
            |id, call| {
                let outcome = Outcome::Failed(failure);
                events.push_back(Event::Settled { id, waiter: call.waiter, outcome });
            },
        );
    }
}

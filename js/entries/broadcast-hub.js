// A hub whose clients are the other peers on one BroadcastChannel
// (`broadcastHub`, exported by the `wiggum-rpc/hub` entry).

import { Hub } from "./hub-server.js";
import { CHANNEL, ChannelLink } from "../transports/broadcast.js";
import { holdLock, whenGone } from "../transports/locks.js";

/**
 * A hub whose clients are the other peers on one BroadcastChannel: each
 * peer says `hello` with its id when it joins (and answers each newcomer's),
 * and `bye` when its hub is destroyed. Where there are Web Locks, each peer
 * also holds one named after its id while it lives, so the others learn of a
 * peer that vanished without a word. Calls and their answers go to one peer
 * only; `notifyAll` and `requestAll` reach every peer there now.
 */
class BroadcastHub extends Hub {
  /** This peer's id on the channel. */
  id;
  #bus;
  #owned;
  #links = new Map();
  #onMessage = ({ data }) => this.#received(data);
  #closed = false;
  /** Ends this peer's lock, and the waits for the others'. */
  #leaving = new AbortController();

  constructor(channel, { id = crypto.randomUUID(), ...peerOptions } = {}) {
    super(peerOptions);
    this.id = String(id);
    this.#owned = typeof channel === "string";
    this.#bus = this.#owned ? new BroadcastChannel(channel) : channel;
    this.on("disconnection", (peer) => this.#links.delete(peer));
    this.#bus.addEventListener("message", this.#onMessage);
    // Hello once the lock is held: before, a peer waiting for it would get it at once.
    const hello = () => this.#post("hello");
    if (!holdLock(this.#lockOf(this.id), this.#leaving.signal, hello)) hello();
  }

  #lockOf(peer) {
    return `${CHANNEL}/${this.#bus.name}/${peer}`;
  }

  #post(kind, to, message) {
    this.#bus.postMessage({ [CHANNEL]: kind, from: this.id, to, message });
  }

  /** The link to peer `from`, made (and its client accepted) on first contact. */
  #link(from) {
    let link = this.#links.get(from);
    if (link === undefined) {
      link = new ChannelLink((message) => this.#post("message", from, message));
      this.#links.set(from, link);
      this.accept(link, from);
      whenGone(this.#lockOf(from), this.#leaving.signal, () => {
        if (this.#links.get(from) === link) this.drop(from);
      });
    }
    return link;
  }

  #received(data) {
    const kind = data?.[CHANNEL];
    if (kind === undefined || typeof data.from !== "string" || data.from === this.id) return;
    if (data.to !== undefined && data.to !== this.id) return;
    if (kind === "hello") {
      const known = this.#links.has(data.from);
      this.#link(data.from);
      // A newcomer learns of each peer already there.
      if (!known && data.to === undefined) this.#post("hello", data.from);
    } else if (kind === "bye") {
      this.drop(data.from);
    } else if (kind === "message") {
      this.#link(data.from).receive(data.message);
    }
  }

  /** Says `bye`, drops every peer, leaves the channel (closing it if it was opened by name). */
  destroy() {
    if (this.#closed) return;
    this.#closed = true;
    this.#bus.removeEventListener("message", this.#onMessage);
    try {
      this.#post("bye");
    } catch {
      // The channel is closed already: the others learn of it from the lock.
    }
    this.#leaving.abort();
    super.destroy();
    if (this.#owned) this.#bus.close();
  }
}

/**
 * The peers on one BroadcastChannel (`channel`, or its name) as a hub's
 * clients. `options.id` names this peer (a random UUID otherwise); the rest
 * are each link's Peer options.
 */
export function broadcastHub(channel, options) {
  return new BroadcastHub(channel, options);
}

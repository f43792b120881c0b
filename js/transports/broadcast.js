// The BroadcastChannel transport: the envelope every message of ours
// carries on a channel, and one other peer on the channel as a transport of
// its own (`ChannelLink`). `broadcastHub` (the hub entry) makes the peers
// on one channel the clients of each other's hubs.

import { Transport } from "./wiggum_rpc.js";

// The envelope of every message on a broadcast channel: ours carry this key
// (any other traffic on the channel is left alone), who sent it, whom it is
// for (everyone when absent), and what it is.
export const CHANNEL = "wiggum-rpc/broadcast";

/** One other peer on the channel, as a transport of its own. */
export class ChannelLink extends Transport {
  #post;

  constructor(post) {
    super();
    this.#post = post;
  }

  send(message) {
    this.#post(message);
  }

  /** Hands over a message the channel brought from this peer. */
  receive(message) {
    this.deliver(message);
  }

  release() {}
}

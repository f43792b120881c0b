// Sessions that move between the processes of a Redis cluster (redis.js):
// the relays that carry a client's socket, reconnected to one process, to
// the process whose Peer holds its session. The session's rules stay with
// that Peer (the core's: what is kept, acknowledged, replayed, and that the
// newer connection wins): a relay only moves frames, in order (one
// publishing connection per process), and hangs up when it cannot, so that
// the client redials and its session replays what was lost in between.

import { createHash } from "node:crypto";

const OPEN = 1;
const CLOSED = 3;

/** How a session id is known in Redis: its hash (the id itself resumes the session, so it stays out of keys). */
export function sessionHash(id) {
  return createHash("sha256").update(String(id)).digest("base64url");
}

/** A close code a `ws` socket may be closed with: the one given, or 1011. */
function sendable(code) {
  const valid = code === 1000 || (code >= 1001 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
  return valid ? code : 1011;
}

/** A client's socket on another process, relayed here: what the hub's WebSocket transport adopts. */
class RelayedSocket extends EventTarget {
  readyState = OPEN;
  #send;
  #hangUp;

  constructor(send, hangUp) {
    super();
    this.#send = send;
    this.#hangUp = hangUp;
  }

  send(text) {
    if (this.readyState !== OPEN) throw new Error("WebSocket is closed");
    this.#send(text);
  }

  close(code = 1000, reason = "") {
    if (this.readyState === CLOSED) return;
    this.#hangUp(code, reason);
    this.ended(code, reason);
  }

  /** A frame from the client. */
  received(data) {
    if (this.readyState === OPEN) this.dispatchEvent(Object.assign(new Event("message"), { data }));
  }

  /** The relay ended, here or at its other end. */
  ended(code, reason) {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.dispatchEvent(Object.assign(new Event("close"), { code, reason, wasClean: false }));
  }
}

/**
 * This process's relays, at either end: `node` is this process's id;
 * `publish(node, message)` sends to another process (resolving with how many
 * received it).
 */
export class Relays {
  /** Relay id → `{ node, deliver(data), end(code, reason) }`: `node` is the process at its other end. */
  #relays = new Map();
  #next = 0;
  #node;
  #publish;

  constructor(node, publish) {
    this.#node = node;
    this.#publish = publish;
  }

  get size() {
    return this.#relays.size;
  }

  /** Sends `message` down relay `id` to `node`; a message nobody received, or that could not go, ends the relay. */
  #sender(id, node, end) {
    return (message) => {
      this.#publish(node, { ...message, relay: id }).then(
        (receivers) => receivers === 0 && end(1012, "the session's other process is gone"),
        () => end(1013, "the cluster is unreachable: try again later"),
      );
    };
  }

  /**
   * The client's end: relays `socket` (its connection to this process) to
   * `home`, whose Peer holds the session it presented; `frames` came first.
   * A `home` that is leaving may hand the session over instead (`handed`):
   * `taken(handed, frames, missed)` then takes the socket, with every frame
   * it sent (none reached a Peer there) and the notifications to all that
   * the session missed while it moved (`fenced`).
   */
  open(home, socket, frames, taken) {
    const id = `${this.#node}/${++this.#next}`;
    const forget = () => {
      this.#relays.delete(id);
      socket.removeEventListener("message", onMessage);
      socket.removeEventListener("close", onClose);
    };
    const end = (code, reason) => {
      if (!this.#relays.has(id)) return;
      forget();
      try {
        socket.close(sendable(code), reason);
      } catch {
        // Closed already.
      }
    };
    const send = this.#sender(id, home, end);
    // Binary frames are not JSON-RPC here: the Peer at home would refuse them, so they are not carried.
    const onMessage = (event) => {
      if (typeof event.data !== "string") return;
      relay.frames?.push(event.data);
      send({ kind: "frame", data: event.data });
    };
    const onClose = (event) => {
      if (!this.#relays.has(id)) return;
      forget();
      send({ kind: "hangup", code: event.code, reason: event.reason });
    };
    socket.addEventListener("message", onMessage);
    socket.addEventListener("close", onClose);
    // `frames` until home answers: what a hand-over gives the Peer that takes the session.
    const relay = { node: home, deliver: (data) => socket.send(data), end, frames: [...frames], missed: undefined, own: undefined };
    relay.taken = (handed) => {
      forget();
      // What was heard after the fence, then this process's own not heard back yet (after it too).
      taken(handed, relay.frames, [...(relay.missed ?? []), ...(relay.own?.values() ?? [])]);
    };
    this.#relays.set(id, relay);
    send({ kind: "attach", from: this.#node, frames });
  }

  /**
   * The session's end: another process relays a socket whose first frame
   * presents a session; `resume(first, socket)` (the hub's) takes it if the
   * session is held here. Returns whether it was.
   */
  attached({ relay, from, frames }, resume) {
    if (typeof relay !== "string" || typeof from !== "string" || !Array.isArray(frames) || typeof frames[0] !== "string") return false;
    const end = (code, reason) => {
      if (this.#relays.get(relay)?.socket !== socket) return;
      this.#relays.delete(relay);
      socket.ended(code, reason);
    };
    const send = this.#sender(relay, from, end);
    const socket = new RelayedSocket((data) => send({ kind: "frame", data }), (code, reason) => {
      this.#relays.delete(relay);
      send({ kind: "hangup", code, reason });
    });
    this.#relays.set(relay, { node: from, socket, deliver: (data) => socket.received(data), end });
    let resumed = false;
    try {
      resumed = resume(frames[0], socket);
    } catch {
      // The client's transport is going (destroyed meanwhile): as if not held.
    }
    if (!resumed) {
      this.#relays.delete(relay);
      // The client redials, and is then given a session of its own.
      send({ kind: "hangup", code: 1012, reason: "session not held here" });
      return false;
    }
    for (const data of frames.slice(1)) if (typeof data === "string") socket.received(data);
    return true;
  }

  /** A frame or a hang-up from the other end of a relay. */
  heard({ kind, relay, data, code, reason }) {
    const one = this.#relays.get(relay);
    if (one === undefined) return;
    one.frames = undefined;
    one.missed = undefined;
    one.own = undefined;
    if (kind === "frame" && typeof data === "string") {
      try {
        one.deliver(data);
      } catch {
        one.end(1011, "the socket would not take a frame");
      }
    } else if (kind === "hangup") one.end(Number.isInteger(code) ? code : 1006, typeof reason === "string" ? reason : "");
  }

  /**
   * Home fenced relay `relay` for a hand-over: the notifications to all this
   * process hears from now on (but home's own) are kept for the session.
   */
  fenced(relay) {
    const one = this.#relays.get(relay);
    if (one?.frames !== undefined) one.missed = [];
  }

  /** A notification to all from `node`, heard: kept for each session being handed over from elsewhere. */
  heardAll(node, notification) {
    for (const one of this.#relays.values()) if (one.missed !== undefined && one.node !== node) one.missed.push(notification);
  }

  // This process's own notifications to all: it delivers them to its own
  // clients as it publishes them, which a session it is taking over is not
  // yet. Where each falls against the home's fence is known by its echo:
  // heard before the fence, home delivered it before handing the session
  // off; heard after, it is kept like any other's. One whose echo has not
  // come when the session arrives is after the fence (the fence came
  // before the session, and an echo comes in the order it was published),
  // so it is kept too: the session gets it after what was handed over.

  /** This process publishes notification `seq` to all: each session being handed over here notes it. */
  sentAll(seq, notification) {
    for (const one of this.#relays.values()) if (one.frames !== undefined) (one.own ??= new Map()).set(seq, notification);
  }

  /** This process's notification `seq` heard back: kept where it came after the fence. */
  heardOwn(seq) {
    for (const one of this.#relays.values()) {
      const notification = one.own?.get(seq);
      if (notification === undefined) continue;
      one.own.delete(seq);
      one.missed?.push(notification);
    }
  }

  /** Home handed the session of relay `relay` over (its first and only answer). */
  handed({ relay, client, session }) {
    const one = this.#relays.get(relay);
    if (one?.frames === undefined || typeof client !== "string" || session === null || typeof session !== "object") return;
    one.taken({ client, session });
  }

  /** The relays to or from `node`, gone, end. */
  gone(node) {
    for (const one of [...this.#relays.values()]) if (one.node === node) one.end(1012, "the session's other process is gone");
  }

  /**
   * Every relay ends, and the client at its other end is told (this process
   * leaves with the cluster still up: each client redials, elsewhere).
   */
  hangUpAll(code, reason) {
    for (const one of [...this.#relays.values()]) {
      if (one.socket === undefined) one.end(code, reason);
      else one.socket.close(code, reason);
    }
  }

  /** Every relay ends (this process leaves, or lost Redis: frames in between may be lost, which a redial replays). */
  endAll(code, reason) {
    for (const one of [...this.#relays.values()]) one.end(code, reason);
  }
}

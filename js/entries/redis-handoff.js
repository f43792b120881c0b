// Sessions handed over when a process of a Redis cluster leaves (redis.js,
// `hub.handOff()`): every client's socket is closed so that it redials,
// reaching another process; that process asks this one for the session (a
// relay's `attach`, redis-relays.js), and this one hands it over, once its
// handlers have answered: the session, with what it keeps, moves to the
// Peer of the process the client is connected to now. The core decides
// what moves (`Peer.handOff`); this moves it, exactly once, in order.
//
// Notifications to all cross the hand-over exactly once: this process
// publishes a fence on the channel to all and hands the session off as it
// hears the fence, so that the session has had every notification
// published before the fence and none after; the taking process keeps
// those it hears after the fence (redis-relays.js `fenced`), and the
// session gets them after what was handed over.

export class HandOver {
  /** Sessions handed over so far. */
  handed = 0;
  #node;
  #hub;
  #publish;
  #moved;
  /** Clients handed over whose new process has not announced them yet. */
  #unannounced = new Set();
  /** Fence id → what resolves once this process hears it. */
  #fences = new Map();
  #next = 0;
  #deadline = Infinity;

  /**
   * `publish(to, message)`: to one node's channel, or (`to` undefined) to
   * all; `moved(client)`: the client is no longer this node's.
   */
  constructor(node, hub, publish, moved) {
    this.#node = node;
    this.#hub = hub;
    this.#publish = publish;
    this.#moved = moved;
  }

  /**
   * Leaves: closes every client's socket (relays too, by `endRelays`), then
   * resolves once every session held here has been handed over and its
   * client announced by the process that took it, or `wait` ms have passed:
   * `{ handed, kept }`, `kept` the sessions no client came back for in time
   * (they end as this process does). Heard announced before this process
   * says it is gone, a moved client is never taken for gone elsewhere.
   */
  async leave(wait, endRelays) {
    this.#deadline = Date.now() + wait;
    this.#hub.away();
    endRelays();
    while ((this.#hub.sessions().length > 0 || this.#unannounced.size > 0) && Date.now() < this.#deadline) await sleep(20);
    return { handed: this.handed, kept: this.#hub.sessions().length };
  }

  /** Client `client` announced by another process (it may be one handed over from here). */
  joined(client) {
    this.#unannounced.delete(client);
  }

  /** A fence of this process's, heard back: what waits on it runs now, before the next message is read. */
  heard(fence) {
    this.#fences.get(fence)?.();
  }

  /**
   * Another process (`from`, relay `relay`) asks for the session its
   * client's first frame presents: handed over once no handler of the
   * client's runs here, until the deadline. Otherwise `relayed()`, as for a
   * process that stays: the session is not held here, or could not be
   * handed over in time (it is relayed here until this process ends).
   *
   * Each attempt publishes a fence and hands the session off as it hears
   * it, in the same turn: the session has then had every notification to
   * all published before the fence, and none after, which the taking
   * process keeps from that fence on (a later fence starts its list anew).
   */
  async attach({ relay, from, frames }, relayed) {
    const session = this.#hub.presented(frames[0]);
    if (session === undefined || !this.#hub.sessions().includes(session)) return relayed();
    while (Date.now() < this.#deadline) {
      const fence = `${this.#node}/${++this.#next}`;
      const outcome = new Promise((resolve) => this.#fences.set(fence, () => resolve(this.#handOff(session, from, relay))));
      let result;
      try {
        await this.#publish(undefined, { kind: "fence", node: this.#node, relay, fence });
        result = await Promise.race([outcome, sleep(Math.max(0, this.#deadline - Date.now()))]);
      } catch {
        // Redis is unreachable: the session cannot move.
      } finally {
        this.#fences.delete(fence);
      }
      if (result === "handed") return undefined;
      if (result !== "busy") break;
      await sleep(10);
    }
    return relayed();
  }

  /** Hands `session` off to node `from`'s relay `relay`: "handed", "busy" (a handler of its client's runs), or "refused". */
  #handOff(session, from, relay) {
    let handed;
    try {
      handed = this.#hub.handOff(session, from);
    } catch (refused) {
      return refused?.data?.reason === "busy" ? "busy" : "refused";
    }
    if (handed === undefined) return "refused";
    this.handed += 1;
    this.#unannounced.add(handed.client);
    this.#publish(from, { kind: "handed", relay, ...handed }).catch(() => {});
    this.#moved(handed.client);
    return "handed";
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Sessions handed between processes (the Node build, whose module has the
// Cargo feature `handoff`): a server Peer's `handOff()` takes its session
// out, in the JSON form src/core/endpoint/handoff.rs describes, for a Peer
// of another process to take over (a transport whose `session` has it as
// `handed`: endpoints.js). The core decides what moves and when it may.

import { RPCError } from "./glue.js";
import { opt, run, scratch, x } from "./abi.js";
import { Peer, stateOf } from "./endpoints.js";
import { extensions } from "./extensions.js";

const isObject = (value) => value !== null && typeof value === "object";

const REFUSED = {
  [-1]: ["no-session", "this endpoint holds no session granted to a client"],
  [-2]: ["busy", "a call of the client's is being served, or a message waits to be sent"],
  [-3]: ["references", "the client holds references to this side's objects"],
};

/**
 * Takes this server Peer's session out for another process's Peer to take
 * over: its JSON form (plain data). Its own calls waiting on the client
 * fail with `CONNECTION_CLOSED`; the Peer keeps no session after, and is
 * destroyed by its owner. Throws an `RPCError` whose `data.reason` says why
 * not: `"busy"` (try again once its handlers have answered),
 * `"no-session"`, `"references"`.
 */
Peer.prototype.handOff = function handOff() {
  const hooks = stateOf(this);
  if (hooks.retired) throw new RPCError(-32098, "The endpoint was destroyed");
  const code = x.$hand_off(hooks.endpoint);
  run();
  const { handed } = hooks;
  hooks.handed = undefined;
  if (code !== 0) {
    const [reason, why] = REFUSED[code] ?? REFUSED[-1];
    throw new RPCError(-32603, `The session cannot be handed off: ${why}`, { reason });
  }
  return handed;
};

// Makes `handed` (a handed session's JSON form: src/core/endpoint/handoff.rs)
// endpoint `ep`'s session; whether it was taken. The module checks what it
// says (its counts, its sends); a count that is no number crosses as NaN.
extensions.takeOver = (ep, handed) => {
  if (!isObject(handed) || typeof handed.id !== "string") return false;
  const { sent, received, grace, maxKept, nextCall, unacked, held } = handed;
  const counts = [sent, received, grace, maxKept, nextCall].map((n) => (typeof n === "number" ? n : NaN));
  const [idLen] = scratch([handed.id]);
  return x.$take_over(ep, ...counts, idLen, opt(unacked), opt(held)) === 1;
};

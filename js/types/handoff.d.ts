// The Node build's sessions handed between processes (js/module/handoff.js),
// appended to its `wiggum_rpc.d.ts` by scripts/glue.mjs (without this header), where
// `interface Peer` adds to the class `Peer` declared there.

/**
 * A server's session as one Peer hands it to another (plain JSON data): its
 * id and settings, what each side has counted, and the sends it keeps (each
 * a message, or a batch array) as they go on the wire.
 */
export interface HandedSession {
  id: string;
  grace: number;
  maxKept: number;
  sent: number;
  received: number;
  nextCall: number;
  unacked: unknown[];
  held: unknown[];
}

export interface Peer {
  /**
   * Takes this server Peer's session out for a Peer of another process to
   * take over (a server transport whose `session` is `{ id, handed }`). Its
   * own calls waiting on the client fail with `CONNECTION_CLOSED`. Throws an
   * `RPCError` whose `data.reason` is `"busy"` (a call of the client's is
   * being served, or a message waits), `"no-session"` or `"references"`.
   */
  handOff(): HandedSession;
}

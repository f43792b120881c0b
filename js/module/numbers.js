// The numbers the module (src/bindings) and its JS share, in a module of
// their own (no imports: a bundler inlines each where it is used). abi.rs
// checks the first part against this file at build time, in its order.

// Events (the first word of each; the second, the endpoint's number).
export const E_SEND = 1;
export const E_INVOKE = 2;
export const E_NOTIFY = 3;
export const E_SETTLED = 4;
export const E_PROGRESS = 5;
export const E_CHUNK = 6;
export const E_CANCELLED = 7;
export const E_EXPIRED = 8;
export const E_MAY_STREAM = 9;
export const E_WATCH = 10;
export const E_SESSION_ENDED = 11;
export const E_FLUSH = 12;
export const E_UNHANDLED = 13;
export const E_IDLE = 14;
export const E_ARM = 15;
export const E_UNDELIVERED = 16;
export const E_REFERENCE = 17;
export const E_HANDED = 18;
// What an E_REFERENCE says (its third word).
export const R_STUBS = 0;
export const R_INVOKE = 1;
export const R_FREED = 2;
export const R_DROPPED = 3;
// The messages of an E_SEND.
export const M_REQUEST = 1;
export const M_NOTIFICATION = 2;
export const M_RESULT = 3;
export const M_ERROR = 4;
export const M_CANCEL = 5;
export const M_CHUNK = 6;
export const M_END = 7;
export const M_CREDIT = 8;
export const M_PROGRESS = 9;
export const M_READY = 10;
export const M_ACK = 11;
export const M_REFS = 12;
export const M_RELEASE = 13;
export const M_OFFERS = 14;
export const M_KEPT = 15;
// Envelope flags: the kind in bits 0-2, VERSION_2, the id's kind + 1 from
// ID_SHIFT, METHOD, the params' kind + 1 from PARAMS_SHIFT, RESULT, ERROR, TEXT.
export const OBJECT = 5;
export const VERSION_2 = 1 << 3;
export const ID_SHIFT = 4;
export const METHOD = 1 << 7;
export const PARAMS_SHIFT = 8;
export const RESULT = 1 << 11;
export const ERROR = 1 << 12;
export const TEXT = 1 << 13;
// `open`'s flags.
export const JRPC_OO = 1;
export const MCP = 2;
export const HOLD = 4;
export const ANNOUNCE = 8;
export const EXPOSE_STACK = 32;
export const CONNECTING = 64;
export const IDLE = 256;
export const REFERENCES = 512;
export const PACKED = 1024;
export const AWAIT = 2048;

// What JS tells an endpoint through its state's one callback,
// `hooks.signal(what, n, value)` (endpoints.js, `signalled`): JS only.
export const TICK = 0;
export const DEADLINE = 1;
export const FLUSH = 2;
export const ABORT = 3;
export const RESOLVED = 4;
export const REJECTED = 5;
export const CHUNK = 6;
export const CLOSED = 7;
export const OPENED = 10;
export const CHECKING = 11;
export const CHECKED = 12;
export const INVALID_PARAMS = 13;
export const INVALID_RESULT = 14;
export const UNDELIVERED = 15;
export const CONSUMED = 16;
export const PROGRESS = 17;

// A request's options bits (calls.rs).
export const CALL_PROGRESS = 1;
export const CALL_NO_RESET = 2;

// What `tell` is told (abi.rs `tell`, tell.rs): the small inputs of an
// open endpoint through one export, `x.$tell(ep, what, a, b)`.
export const T_FLUSH = 1;
export const T_TIMER = 2;
export const T_CANCEL = 3;
export const T_RESOLVE = 4;
export const T_REJECT = 5;
export const T_EMIT = 6;
export const T_PROGRESS = 7;
export const T_CONSUMED = 8;
export const T_REJECT_PARAMS = 9;
export const T_REJECT_RESULT = 10;
export const T_CHECKING = 11;
export const T_CHECKED = 12;
export const T_SET_METHOD = 13;
export const T_SET_NOTIFICATION = 14;
export const T_OPENED = 15;
export const T_LOST = 16;
export const T_PENDING = 17;
export const T_WAITING = 18;
export const T_SESSION_ID = 19;
export const T_DESTROY = 20;
export const T_CLOSE = 21;
export const T_RECEIVE = 22;
export const T_REFUSED = 23;
export const T_BATCH = 24;
export const T_BATCH_END = 25;
export const T_MAX_REFERENCES = 26;
export const T_REFS = 27;
export const T_RELEASE = 28;
export const T_REFERENCES_HELD = 29;
export const T_META = 30;
export const T_SERVED_ID = 31;

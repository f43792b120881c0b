// An endpoint's message reader: JSON text parsed once (within the
// endpoint's limits), a message object's envelope read here and handed to
// the module in one call (`recv`), a batch member by member, anything else
// whole; and what an observer sees of it.

import { kindOf, opt, put, run, x } from "./abi.js";
import { ERROR, ID_SHIFT, METHOD, OBJECT, PARAMS_SHIFT, RESULT, TEXT, T_BATCH, T_BATCH_END, T_META, T_RECEIVE, T_REFUSED, VERSION_2 } from "./numbers.js";

// A message object (or a batch's member, `member`) with its envelope read:
// the members classification looks at, and their kinds. `text`: TEXT or 0.
function envelopeOf(message, text) {
  const { id, method, params, result, error } = message;
  let flags = OBJECT | text;
  if (message.jsonrpc === "2.0") flags |= VERSION_2;
  if (id !== undefined) flags |= (kindOf(id) + 1) << ID_SHIFT;
  if (method !== undefined) flags |= METHOD;
  if (params !== undefined) flags |= (kindOf(params) + 1) << PARAMS_SHIFT;
  // A structured clone keeps a member whose value is undefined: the Wiggum
  // spec's reference server answers a handler that returns nothing with
  // `{ result: undefined }`, and that is an answer (the caller gets undefined).
  if (result !== undefined || (method === undefined && error === undefined && "result" in message)) flags |= RESULT;
  if (error !== undefined) flags |= ERROR;
  return flags;
}

// Hands a message's envelope to export `to` (x.$recv, or x.$member for a
// batch's): its flags, a handle for each member, the id's number, in one
// call; its metadata (an object) is told just before, apart, so a message
// without it costs one property read.
function handOver(to, ep, message, flags) {
  const { meta } = message;
  if (meta !== undefined && isObject(meta)) tellMeta(ep, meta);
  return to(ep, flags, opt(message.id), opt(message.method), opt(message.params),
    flags & RESULT ? put(message.result) : 0, opt(message.error), typeof message.id === "number" ? message.id : 0);
}

// A batch in the packed form (src/core/wire.rs, `PACKED`): each place read
// as the member it stands for, in one call each, as a batch's members are.
// False when `message` is not one, or this side does not take it (it is
// then read as any other object: an invalid request).
function readPacked(ep, message, text) {
  const { packed, id } = message;
  const calls = packed === "calls";
  const values = calls ? message.method : packed === "results" ? message.result : undefined;
  const params = calls ? message.params : undefined;
  const n = Array.isArray(id) ? id.length : -1;
  if (message.jsonrpc !== "2.0" || !Array.isArray(values) || values.length !== n || (calls && (!Array.isArray(params) || params.length !== n))) return false;
  // Not taken member by member (past this side's limit, or a form it did not offer): whole, an invalid request.
  if (x.$tell(ep, T_BATCH, n, 1) !== 1) return false;
  const flags = OBJECT | text | VERSION_2 | (calls ? METHOD : RESULT);
  const metas = calls && Array.isArray(message.meta) ? message.meta : undefined;
  for (let i = 0; i < n; i++) {
    const one = id[i];
    const idBits = one === undefined ? 0 : (kindOf(one) + 1) << ID_SHIFT;
    const number = typeof one === "number" ? one : 0;
    if (calls) {
      const given = params[i];
      if (metas !== undefined && isObject(metas[i])) tellMeta(ep, metas[i]);
      const paramsBits = given === undefined ? 0 : (kindOf(given) + 1) << PARAMS_SHIFT;
      x.$member(ep, flags | idBits | paramsBits, opt(one), put(values[i]), opt(given), 0, 0, number);
    } else x.$member(ep, flags | idBits, opt(one), 0, 0, put(values[i]), 0, number);
  }
  x.$tell(ep, T_BATCH_END);
  return true;
}

// The clock's reading as the message being read arrived, read once for it
// (and only for one with metadata): a deadline in it counts from then.
let arrival;
const tellMeta = (ep, meta) => x.$tell(ep, T_META, (arrival ??= performance.now()), put(meta));

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const hasRefs = (one) => isObject(one) && one.refs !== undefined;

/**
 * An endpoint's message handler: parses JSON text once (text past the
 * endpoint's limits, `maxBytes` of UTF-8 and `maxDepth` of nesting, is not
 * parsed, and neither are bytes on a text transport), reads a message
 * object's envelope and hands it over in one call; a batch member by
 * member when the endpoint asks for them. An observer sees every message.
 */
export function envelopeReader(hooks, maxBytes, maxDepth, textTransport) {
  const ep = hooks.endpoint;
  // Only an endpoint that takes references reads `refs`; to any other it is data, as the core reads it.
  const referring = WITH_REFERENCES && hooks.takesReferences;
  return (message) => {
    if (hooks.retired) return;
    arrival = undefined;
    let text = 0;
    if (textTransport && (message instanceof ArrayBuffer || ArrayBuffer.isView(message))) {
      refused(hooks, 3);
      return;
    }
    if (typeof message === "string") {
      const why = textRefused(message, maxBytes, maxDepth);
      if (why !== 0) {
        refused(hooks, why);
        return;
      }
      try {
        message = JSON.parse(message);
      } catch {
        refused(hooks, 0);
        return;
      }
      text = TEXT;
      hooks.text = true;
    }
    if (hooks.observer !== undefined) observeIn(hooks, message, text);
    // A message with references goes whole (the module reads its `refs`), and so does a batch with one.
    if (Array.isArray(message)) {
      if (!(WITH_REFERENCES && referring && message.some(hasRefs)) && x.$tell(ep, T_BATCH, message.length) === 1) {
        for (const one of message) {
          if (!isObject(one)) x.$member(ep, kindOf(one), 0, 0, 0, 0, 0, 0);
          else handOver(x.$member, ep, one, envelopeOf(one, text));
        }
        x.$tell(ep, T_BATCH_END);
      } else x.$tell(ep, T_RECEIVE, text, put(message));
    } else if (!isObject(message)) x.$tell(ep, T_RECEIVE, text, opt(message));
    else if (WITH_REFERENCES && referring && message.refs !== undefined) x.$tell(ep, T_RECEIVE, text, put(message));
    else if (message.packed === undefined || !readPacked(ep, message, text)) handOver(x.$recv, ep, message, envelopeOf(message, text));
    run();
  };
}

// Text not read: 0 not JSON, 1 too large, 2 too deep, 3 not text.
function refused(hooks, why) {
  hooks.observer?.local("parse-error", undefined, undefined, undefined);
  x.$tell(hooks.endpoint, T_REFUSED, why);
  run();
}

// The observer sees what came in, if it is ours, with the calls of this
// side's it answers as the core reads it (for their round-trip times).
function observeIn(hooks, message, text) {
  const answers = (one, framing) => {
    const flags = envelopeOf(one, framing);
    const id = handOver(x.$answers, hooks.endpoint, one, flags);
    return id === 0 ? undefined : id;
  };
  if (Array.isArray(message)) {
    // Every member of a batch is ours, whatever the framing.
    hooks.observer.received(message, message.map((one) => (isObject(one) ? answers(one, TEXT) : undefined)));
  } else if (isObject(message) && (text !== 0 || message.jsonrpc === "2.0")) {
    hooks.observer.received(message, answers(message, text));
  } else if (text !== 0) hooks.observer.received(message, undefined);
}

// 1 too large, 2 too deep, or 0. Each UTF-16 unit is 1 to 3 bytes of UTF-8,
// so only text between maxBytes / 3 and maxBytes units is counted; and text
// of fewer than 2 × maxDepth units cannot nest that deep, so most is never scanned.
function textRefused(text, maxBytes, maxDepth) {
  const units = text.length;
  if (units > maxBytes) return 1;
  if (units * 3 > maxBytes && utf8Length(text) > maxBytes) return 1;
  if (units <= 2 * maxDepth) return 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < units; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash: skip what it escapes
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > maxDepth) return 2;
    } else if (c === 93 || c === 125) depth--;
  }
  return 0;
}

function utf8Length(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? (i++, 4) : 3;
  }
  return bytes;
}

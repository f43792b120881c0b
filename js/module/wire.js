// What goes on the wire, built as the endpoint in wasm decides (which
// message, and when): each message of the protocol and its extensions, the
// transfer() marker, and the post that unwraps it and speaks JSON text to a
// text transport.

// A value to send with a transfer list (zero-copy moves of ArrayBuffers, ports).
export class Transfer {
  constructor(value, transfer) {
    this.value = value;
    this.transfer = transfer;
  }
}

// Marks a handler's result (or a request's params) to be sent with `list` transferred.
export function transfer(value, list) {
  return new Transfer(value, Array.from(list));
}

export function requestMessage(method, params, id) {
  return params === undefined ? { jsonrpc: "2.0", method, id } : { jsonrpc: "2.0", method, params, id };
}

export function notificationMessage(method, params) {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

// A success response; a handler that returned nothing answers `result: null`.
export function resultMessage(id, result) {
  return { jsonrpc: "2.0", result: result === undefined ? null : result, id };
}

export function errorMessage(id, code, message, data) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: "2.0", error, id };
}

// The extensions' messages (`$/ready`, a cancel, `stream.chunk`, `stream.end`),
// their methods as the core names them.
export function readyMessage(method, ack, batches, splitBatchAnswers, maxBatch, streamCredit, progress, presence, session) {
  const params = { ack, batches, splitBatchAnswers, maxBatch, streamCredit, progress };
  if (presence !== undefined) params.presence = presence;
  if (session !== undefined) params.session = session;
  return { jsonrpc: "2.0", method, params };
}

export function sessionMember(id, received, resumed, grace) {
  const session = id === undefined ? { received } : { id, received };
  if (resumed !== undefined) session.resumed = resumed;
  if (grace !== undefined) session.grace = grace;
  return session;
}

export function withMember(object, name, value) {
  return { ...object, [name]: value };
}

export function ackMessage(method, received) {
  return { jsonrpc: "2.0", method, params: { received } };
}

// `member`: the member of the params that names the request (MCP's `requestId`).
export function cancelMessage(method, member, id) {
  return { jsonrpc: "2.0", method, params: { [member]: id } };
}

export function chunkMessage(method, id, chunk) {
  return { jsonrpc: "2.0", method, params: { id, chunk } };
}

export function streamEndMessage(method, id) {
  return { jsonrpc: "2.0", method, params: { id } };
}

export function creditMessage(method, id, credit) {
  return { jsonrpc: "2.0", method, params: { id, credit } };
}

// Sends a message or a batch: transfer() markers in params and results are
// unwrapped into the transfer list; text transports get JSON text; a
// transport that reports undelivered calls gets the ids of the calls it
// carries. A tracer sees the message just before it goes (transferred
// buffers are detached after). Throws what the transport throws (a DataCloneError).
export function post(transport, text, message, tracer, calls) {
  let transfer;
  if (Array.isArray(message)) for (const one of message) transfer = unwrapTransfers(one, transfer);
  else transfer = unwrapTransfers(message, transfer);
  tracer?.out(message);
  const sent = text ? JSON.stringify(message) : message;
  if (calls !== undefined) transport.send(sent, transfer, calls);
  else if (transfer !== undefined) transport.send(sent, transfer);
  else transport.send(sent);
}

// Replaces a transfer() marker in `message`'s params or result by its value;
// returns the transfer list with its buffers added (undefined while there is none).
function unwrapTransfers(message, transfer) {
  const { params, result } = message;
  if (params instanceof Transfer) {
    message.params = params.value;
    (transfer ??= []).push(...params.transfer);
  }
  if (result instanceof Transfer) {
    message.result = result.value;
    (transfer ??= []).push(...result.transfer);
  }
  return transfer;
}

// The two messages of every round trip, built and sent in one crossing,
// which returns 0, or 1 when the transport threw: what it threw is kept
// for `takeSendFailure`. (A crossing that may throw into wasm needs a shim
// that wraps every call in a closure; the failure is the rare path.)
let sendFailure;

export function postRequest(transport, text, method, params, id) {
  return postOne(transport, text, requestMessage(method, params, id), params);
}

export function postResult(transport, text, id, result) {
  return postOne(transport, text, resultMessage(id, result), result);
}

// `payload`: the one member a transfer() marker may be in; without one, the
// message goes straight to the transport.
export function postOne(transport, text, message, payload) {
  try {
    if (payload instanceof Transfer) post(transport, text, message);
    else transport.send(text ? JSON.stringify(message) : message);
    return 0;
  } catch (error) {
    sendFailure = error;
    return 1;
  }
}

// A batch's requests and results, built onto its array in one crossing each.
export function pushRequest(batch, method, params, id) {
  batch.push(requestMessage(method, params, id));
}

export function pushResult(batch, id, result) {
  batch.push(resultMessage(id, result));
}

export function takeSendFailure() {
  const error = sendFailure;
  sendFailure = undefined;
  return error;
}

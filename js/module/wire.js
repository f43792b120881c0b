// What goes on the wire, as the endpoint in wasm decides (which message,
// and when; abi.js builds each): the transfer() marker, and the post that
// unwraps it and speaks JSON text to a text transport.

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

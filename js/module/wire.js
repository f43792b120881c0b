// What goes on the wire, as the endpoint in wasm decides (which message,
// and when; abi.js builds each, unwrapping transfer() markers as it goes):
// the transfer() marker, and the post that speaks JSON text to a text transport.

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

// Sends a message or a batch (its transfer() markers already unwrapped
// into `transfer`, the list of what moves with it): text transports get
// JSON text; a transport that reports undelivered calls gets the ids of the
// calls it carries. An observer sees the message just before it goes
// (transferred buffers are detached after). Throws what the transport
// throws (a DataCloneError).
export function post(transport, text, message, observer, calls, transfer) {
  observer?.out(message);
  const sent = text ? JSON.stringify(message) : message;
  if (calls !== undefined) transport.send(sent, transfer, calls);
  else if (transfer !== undefined) transport.send(sent, transfer);
  else transport.send(sent);
}

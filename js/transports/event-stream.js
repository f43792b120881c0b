// Reading what an HTTP server replies, for the HTTP transports (http.js,
// sse.js): whether a reply is an event stream, a body read to its end, JSON
// that may be one message or a batch, and an SSE body's events.

/** Whether a reply is an SSE stream. */
export function isEventStream(response) {
  return response.ok && (response.headers.get("content-type") ?? "").includes("text/event-stream");
}

/**
 * Reads a reply's body to its end and drops it: a body cut short (cancelled)
 * shows in a browser's devtools as a failed request, which it was not.
 */
export function drain(response) {
  return response.text().catch(() => "");
}

/** A body's JSON (one message, or an array of them), or none. */
export function parsed(text) {
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

/**
 * Reads an SSE body, calling `onData` with each event's data and type
 * (`"message"` unless the event named one) and keeping the stream's last
 * event id and retry delay in `stream`. Resolves when the body ends, rejects
 * when it breaks or `onData` throws.
 */
export async function readEvents(body, stream, onData) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let data = [];
  let type = "";
  const dispatch = () => {
    // An event with no data (a priming event: only its id and retry) carries no message.
    const text = data.join("\n");
    if (text.trim() !== "") onData(text, type || "message");
    data = [];
    type = "";
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop();
    for (const line of lines) {
      if (line === "") {
        dispatch();
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const content = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(content);
      else if (field === "event") type = content;
      else if (field === "id" && !content.includes("\0")) stream.lastEventId = content;
      else if (field === "retry" && /^\d+$/.test(content)) stream.retry = Number(content);
    }
  }
}

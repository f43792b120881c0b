// OpenTelemetry for every call, the package's `wiggum-rpc/otel` entry,
// through the official API (`@opentelemetry/api`, a peer dependency): a
// client span around each call this side makes and a server span around
// each call it serves, with the semantic conventions for JSON-RPC, and the
// trace context carried in the call's metadata (W3C `traceparent`,
// `tracestate`), so that a chain of calls across workers, frames, sockets
// and processes is one trace. A page that does not import it pays nothing.

import { SpanKind, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api";
// The chains it adds its halves to.
import "./middleware.js";

const SYSTEM = "jsonrpc";

/**
 * The interceptor and the middleware that trace calls with `tracer` (by
 * default the global provider's `wiggum-rpc` tracer). The server span is
 * the active span while the chain and the handler's synchronous part run,
 * so a call the handler makes from there is its child (after an `await`,
 * only where a context manager carries it: Node's async hooks, a zone).
 */
export function tracing({ tracer = trace.getTracer("wiggum-rpc") } = {}) {
  const interceptor = (call, next) => {
    const span = tracer.startSpan(call.method, { kind: SpanKind.CLIENT, attributes: attributes(call.method) });
    const active = trace.setSpan(context.active(), span);
    propagation.inject(active, call.meta);
    const outcome = context.with(active, next);
    if (call.id !== undefined) span.setAttribute("rpc.jsonrpc.request_id", String(call.id));
    return ended(span, outcome);
  };
  const middleware = (call, next) => {
    const parent = propagation.extract(context.active(), call.meta ?? {});
    const kind = call.notification ? SpanKind.CONSUMER : SpanKind.SERVER;
    const span = tracer.startSpan(call.method, { kind, attributes: attributes(call.method) }, parent);
    if (call.id !== undefined && call.id !== null) span.setAttribute("rpc.jsonrpc.request_id", String(call.id));
    return ended(span, context.with(trace.setSpan(parent, span), next));
  };
  return { interceptor, middleware };
}

/** Traces every call `endpoint` makes and serves (a Peer, a client, a server); returns it. */
export function instrument(endpoint, options) {
  const { interceptor, middleware } = tracing(options);
  if (typeof endpoint.intercept === "function") endpoint.intercept(interceptor);
  if (typeof endpoint.use === "function") endpoint.use(middleware);
  return endpoint;
}

const attributes = (method) => ({ "rpc.system": SYSTEM, "rpc.method": method, "rpc.jsonrpc.version": "2.0" });

// Ends `span` as `outcome` settles: an error's code on the span, its status ERROR.
function ended(span, outcome) {
  return outcome.then(
    (result) => {
      span.end();
      return result;
    },
    (error) => {
      if (typeof error?.code === "number") span.setAttribute("rpc.jsonrpc.error_code", error.code);
      if (typeof error?.message === "string") span.setAttribute("rpc.jsonrpc.error_message", error.message);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message });
      span.end();
      throw error;
    },
  );
}

// Types of `wiggum-rpc/otel`: OpenTelemetry around every call.
/**
 * OpenTelemetry spans around every call made and served, and the trace
 * context carried in the calls' metadata (`@opentelemetry/api`, a peer dependency).
 *
 * @module wiggum-rpc/otel
 */
import type { Tracer } from "@opentelemetry/api";
import type { Interceptor, Middleware } from "./wiggum_rpc.js";
import "./middleware.js";

export interface TracingOptions {
  /** The tracer spans are made with (by default the global provider's `wiggum-rpc`). */
  tracer?: Tracer;
}

/**
 * An interceptor (a client span per call, its trace context in the call's
 * metadata) and a middleware (a server span per call served, the child of
 * the caller's span): `rpc.system` "jsonrpc", `rpc.method`,
 * `rpc.jsonrpc.request_id`, and on failure `rpc.jsonrpc.error_code`.
 */
export function tracing(options?: TracingOptions): { interceptor: Interceptor; middleware: Middleware };

/** Traces every call `endpoint` makes and serves; returns it. */
export function instrument<E extends object>(endpoint: E, options?: TracingOptions): E;

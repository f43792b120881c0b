// OpenTelemetry's SDK as a web app sets it up, for the browser otel test's
// page and worker: spans to an in-memory exporter, the web SDK's
// StackContextManager (the active span for synchronous code), W3C trace
// context; and the spans it finished, as plain data.
import { context, propagation, trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { StackContextManager } from "@opentelemetry/sdk-trace-web";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

export function startTracing(where) {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new StackContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
  const STATUSES = ["UNSET", "OK", "ERROR"];
  return () => exporter.getFinishedSpans().map((span) => ({
    where,
    name: span.name,
    kind: KINDS[span.kind],
    trace: span.spanContext().traceId,
    id: span.spanContext().spanId,
    parent: span.parentSpanContext?.spanId ?? span.parentSpanId,
    attributes: { ...span.attributes },
    status: STATUSES[span.status.code],
  }));
}

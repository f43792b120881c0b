// OpenTelemetry's newest SDK (3.x, on API 1.10) as a web app sets it up,
// for the browser otel test's pages built against it: as tracing.js, with
// SDK 3's names and options (TracerProvider, SimpleSpanProcessor({
// exporter }); its StackContextManager in the same package) and its
// exporter flushed before the spans are read.
import { context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, StackContextManager, TracerProvider } from "@opentelemetry/sdk-trace";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

export function startTracing(where) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new StackContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
  const STATUSES = ["UNSET", "OK", "ERROR"];
  return async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans().map((span) => ({
      where,
      name: span.name,
      kind: KINDS[span.kind],
      trace: span.spanContext().traceId,
      id: span.spanContext().spanId,
      parent: span.parentSpanContext?.spanId,
      attributes: { ...span.attributes },
      status: STATUSES[span.status.code],
    }));
  };
}

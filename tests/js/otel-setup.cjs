// OpenTelemetry's SDK as an app sets it up in Node, for the otel tests: a
// provider whose spans go to an in-memory exporter, the async-hooks context
// manager, W3C trace context; and the spans it finished, as plain data.
const { context, propagation, trace } = require("@opentelemetry/api");
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { AsyncLocalStorageContextManager } = require("@opentelemetry/context-async-hooks");
const { W3CTraceContextPropagator } = require("@opentelemetry/core");

/** Registers the SDK globally; returns its exporter (`where`: what its spans say they come from). */
function startTracing(where) {
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  exporter.where = where;
  return exporter;
}

const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
const STATUSES = ["UNSET", "OK", "ERROR"];

/** The spans `exporter` has, as plain data (they cross a worker's port). */
function exportedSpans(exporter) {
  return exporter.getFinishedSpans().map((span) => ({
    where: exporter.where,
    name: span.name,
    kind: KINDS[span.kind],
    trace: span.spanContext().traceId,
    id: span.spanContext().spanId,
    parent: span.parentSpanContext?.spanId ?? span.parentSpanId,
    start: span.startTime[0] * 1e3 + span.startTime[1] / 1e6,
    attributes: { ...span.attributes },
    status: STATUSES[span.status.code],
  }));
}

module.exports = { exportedSpans, startTracing };

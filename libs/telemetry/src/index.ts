export {
  type MetricsConfig,
  type OtlpProtocol,
  readMetricsConfig,
  readTelemetryConfig,
  type TelemetryConfig,
} from './config.js';
export { codesiftMetrics, degradedSide, observeQueueDepth, secondsSince } from './metrics.js';
export {
  contextFromTraceparent,
  type TraceHeaders,
  traceparentFromContext,
  withRemoteParent,
} from './propagation.js';
export { codesiftTracer, recordError, type SpanOptions, withSpan } from './spans.js';
export {
  startTelemetry,
  type Telemetry,
  type TelemetryOptions,
  telemetryForThreads,
} from './start.js';

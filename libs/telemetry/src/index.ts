export { type OtlpProtocol, readTelemetryConfig, type TelemetryConfig } from './config.js';
export {
  contextFromTraceparent,
  type TraceHeaders,
  traceparentFromContext,
} from './propagation.js';
export { codesiftTracer, recordError, type SpanOptions, withSpan } from './spans.js';
export { startTelemetry, type Telemetry, type TelemetryOptions } from './start.js';

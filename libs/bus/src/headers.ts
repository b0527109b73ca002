// Header names carried on every codesift message (transport metadata only;
// the payload stays a plain protobuf message).
export const HEADER = {
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  job: 'codesift-job',
} as const;

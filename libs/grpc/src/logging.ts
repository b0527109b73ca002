import { logVerbosity, setLogVerbosity } from '@grpc/grpc-js';

/**
 * grpc-js prints its own errors on stderr (e.g. "E No address added out of
 * total 1 resolved" before a bind error reaches us). A CLI reports those
 * errors itself with a hint, so it turns grpc-js's logging off, unless the
 * user asked for it with GRPC_VERBOSITY.
 */
export function quietGrpcLogs(env: NodeJS.ProcessEnv = process.env): void {
  if (!env.GRPC_VERBOSITY) setLogVerbosity(logVerbosity.NONE);
}

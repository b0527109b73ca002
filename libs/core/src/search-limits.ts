// How many results a search returns: the engine's defaults, and the cap
// every surface (gRPC, the wire mapping) enforces, defined once here so the
// packages that only translate requests need not load the engine.
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

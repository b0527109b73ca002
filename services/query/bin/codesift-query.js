#!/usr/bin/env node
// The cluster's query service as its own process: codesift-query (configured
// from the environment; --help lists it). Plain JavaScript so the entry
// point needs no build step of its own.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`codesift-query: Node ${process.versions.node} is too old; use Node 22`);
  process.exit(1);
}
const { main } = await import('../dist/main.js');
const code = await main(process.argv.slice(2));
// Model sessions and NATS timers may hold the event loop open after a clean stop.
process.exit(code);

#!/usr/bin/env node
// Runs one pipeline stage as its own process: codesift-worker <stage>.
// Plain JavaScript so the entry point needs no build step of its own.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`codesift-worker: Node ${process.versions.node} is too old; use Node 22`);
  process.exit(1);
}
const { main } = await import('../dist/main.js');
const code = await main(process.argv.slice(2));
// Libraries (onnxruntime, timers of the NATS client) may hold the event loop
// open after a clean stop; the stage is done, so leave now.
process.exit(code);

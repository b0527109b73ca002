/** Resolves with the name of the first SIGINT or SIGTERM; the listeners go away either way. */
export function untilStopSignal(abort?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (name: NodeJS.Signals) => {
      done();
      resolve(name);
    };
    const done = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    abort?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs async jobs one at a time, in call order. Inference sessions already
 * use every core for one batch; overlapping batches would only add memory.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.tail.then(job, job);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every job queued so far has settled. */
  async drain(): Promise<void> {
    await this.tail;
  }
}

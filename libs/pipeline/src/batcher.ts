/**
 * Holds files whose chunks wait for vectors. Texts of many files are packed
 * into full embedding batches (the model is fastest on full batches), and a
 * file is released, in arrival order, once every one of its chunks has its
 * vector. Up to `maxInFlight` batches are embedded while the caller goes on
 * chunking the next files, so the CPU-bound chunking overlaps the model; two
 * let an embedder in another thread start the next batch as soon as one ends,
 * without waiting for the main thread to hand it over.
 */
export interface Pending<T> {
  item: T;
  texts: string[];
  vectors: (Float32Array | undefined)[];
  remaining: number;
}

export type EmbedFn = (texts: string[]) => Promise<Float32Array[]>;

export class EmbedBatcher<T> {
  private readonly queue: { owner: Pending<T>; index: number }[] = [];
  private readonly order: Pending<T>[] = [];
  /** Batches being embedded; each removes itself when it settles. */
  private readonly inFlight = new Set<Promise<void>>();
  private failed: { error: unknown } | undefined;

  constructor(
    private readonly embed: EmbedFn,
    private readonly batchSize: number,
    private readonly maxInFlight = 1,
  ) {}

  /** Adds a file; resolves once there is room (at most `maxInFlight` batches in flight). */
  async add(item: T, texts: string[]): Promise<void> {
    const owner: Pending<T> = {
      item,
      texts,
      vectors: new Array(texts.length),
      remaining: texts.length,
    };
    this.order.push(owner);
    for (let i = 0; i < texts.length; i++) this.queue.push({ owner, index: i });
    while (this.queue.length >= this.batchSize) await this.launch();
  }

  /** Files whose vectors are all in, in the order they were added. */
  takeReady(): Pending<T>[] {
    const ready: Pending<T>[] = [];
    while (this.order.length > 0 && this.order[0]!.remaining === 0) ready.push(this.order.shift()!);
    return ready;
  }

  /** Embeds everything still queued and waits for it. */
  async flush(): Promise<void> {
    while (this.queue.length > 0) await this.launch();
    while (this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.throwIfFailed();
  }

  get pendingFiles(): number {
    return this.order.length;
  }

  private async launch(): Promise<void> {
    // Whichever batch ends first frees a slot: with several model workers,
    // waiting for the oldest would leave a worker that finished early idle.
    while (this.inFlight.size >= Math.max(1, this.maxInFlight)) await Promise.race(this.inFlight);
    this.throwIfFailed();
    const slice = this.queue.splice(0, this.batchSize);
    const texts = slice.map((s) => s.owner.texts[s.index]!);
    const batch = this.embed(texts).then((vectors) => {
      if (vectors.length !== slice.length) {
        throw new Error(`embedder returned ${vectors.length} vectors for ${slice.length} texts`);
      }
      slice.forEach((s, i) => {
        s.owner.vectors[s.index] = vectors[i];
        s.owner.remaining--;
      });
    });
    // A failure surfaces at the next launch or flush rather than as an unhandled rejection.
    const tracked: Promise<void> = batch
      .catch((error: unknown) => {
        this.failed ??= { error };
      })
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private throwIfFailed(): void {
    if (this.failed) throw this.failed.error;
  }
}

/**
 * Holds files whose chunks wait for vectors. Texts of many files are packed
 * into full embedding batches (the model is fastest on full batches), and a
 * file is released, in arrival order, once every one of its chunks has its
 * vector. One batch is embedded while the caller goes on chunking the next
 * files, so the CPU-bound chunking overlaps the model's native threads.
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
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly embed: EmbedFn,
    private readonly batchSize: number,
  ) {}

  /** Adds a file; resolves once there is room (at most one batch in flight). */
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
    if (this.inFlight) await this.inFlight;
    this.inFlight = null;
  }

  get pendingFiles(): number {
    return this.order.length;
  }

  private async launch(): Promise<void> {
    if (this.inFlight) await this.inFlight;
    const slice = this.queue.splice(0, this.batchSize);
    const texts = slice.map((s) => s.owner.texts[s.index]!);
    this.inFlight = this.embed(texts).then((vectors) => {
      if (vectors.length !== slice.length) {
        throw new Error(`embedder returned ${vectors.length} vectors for ${slice.length} texts`);
      }
      slice.forEach((s, i) => {
        s.owner.vectors[s.index] = vectors[i];
        s.owner.remaining--;
      });
    });
    // Surface failures at the next await rather than as an unhandled rejection.
    this.inFlight.catch(() => {});
  }
}

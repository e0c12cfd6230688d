/**
 * Long synchronous work done in slices (a campaign batch renders hundreds of copies of content a
 * tenant wrote, each up to the render budget): once a slice's time is spent, the next step waits
 * for a macrotask turn, so the requests waiting for the event loop (every tenant's) are served
 * between steps instead of after the whole batch. One step is never cut: its own bound is the
 * template budget (docs/email.md, "The template sandbox").
 */
export const SLICE_MS = 10;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class TimeSlice {
  private started = performance.now();

  constructor(private readonly ms = SLICE_MS) {}

  /** Resolves at once while the slice lasts; after it, on the next macrotask turn, starting a new slice. */
  async next(): Promise<void> {
    if (performance.now() - this.started < this.ms) return;
    await turn();
    this.started = performance.now();
  }
}

/** `items.map(fn)`, letting the event loop turn whenever a slice of work is spent. */
export async function mapInSlices<T, R>(items: readonly T[], fn: (item: T) => R, ms = SLICE_MS): Promise<R[]> {
  const slice = new TimeSlice(ms);
  const out: R[] = [];
  for (const item of items) {
    await slice.next();
    out.push(fn(item));
  }
  return out;
}

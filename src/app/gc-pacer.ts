import type { TrafficCounter } from "../metrics/traffic-counter.ts";

/** How often the pacer looks at the traffic. */
export const PACER_PERIOD_MS = 100;

/**
 * Asks for a concurrent garbage collection each period while requests keep coming.
 * JavaScriptCore starts a full collection only once the heap has grown by about its
 * live size, and the datasets' buffers count as live: under load, per-request garbage
 * piled up before each stop-the-world full collection. Collecting as the garbage comes
 * keeps peak RSS down at the same throughput (figures in docs/benchmarks.md). Idle servers
 * are left alone.
 */
export class GcPacer {
  private servedAtLastCollection: number;

  constructor(
    private readonly traffic: TrafficCounter,
    private readonly collect: () => void = () => Bun.gc(false),
    /** Fewer requests than this since the last collection: leave it to the engine. */
    private readonly minRequests = 2_000,
  ) {
    this.servedAtLastCollection = traffic.served;
  }

  tick(): void {
    if (this.traffic.served - this.servedAtLastCollection < this.minRequests) return;
    this.servedAtLastCollection = this.traffic.served;
    this.collect();
  }
}

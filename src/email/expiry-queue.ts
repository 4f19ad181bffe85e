/**
 * Targets by the instant their line ends, soonest first: a binary heap, so that a line added
 * or an end passed costs O(log n) however many lines there are. An entry whose line changed
 * meanwhile is the reader's to skip (it compares the line's end as it is now).
 */
export class ExpiryQueue {
  private readonly ends: number[] = [];
  private readonly targets: string[] = [];

  clear(): void {
    this.ends.length = 0;
    this.targets.length = 0;
  }

  add(endMs: number, target: string): void {
    const { ends, targets } = this;
    let at = ends.push(endMs) - 1;
    targets.push(target);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (ends[parent] <= endMs) break;
      ends[at] = ends[parent];
      targets[at] = targets[parent];
      at = parent;
    }
    ends[at] = endMs;
    targets[at] = target;
  }

  /** The target of the soonest end at or before `nowMs`, taken out; null when none has come. */
  takeEnded(nowMs: number): { readonly endMs: number; readonly target: string } | null {
    const { ends, targets } = this;
    if (ends.length === 0 || ends[0] > nowMs) return null;
    const taken = { endMs: ends[0], target: targets[0] };
    const lastEnd = ends.pop()!;
    const lastTarget = targets.pop()!;
    if (ends.length > 0) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= ends.length) break;
        const child = left + 1 < ends.length && ends[left + 1] < ends[left] ? left + 1 : left;
        if (ends[child] >= lastEnd) break;
        ends[at] = ends[child];
        targets[at] = targets[child];
        at = child;
      }
      ends[at] = lastEnd;
      targets[at] = lastTarget;
    }
    return taken;
  }
}

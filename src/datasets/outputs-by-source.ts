import type { Snapshot } from "./snapshot.ts";

/** The outputs each source feeds in this version; a superseded source feeds none. */
export function outputsBySource(snapshot: Snapshot): Map<string, string[]> {
  const usedBy = new Map<string, string[]>();
  for (const [output, record] of Object.entries(snapshot.outputs)) {
    for (const source of record.sources) usedBy.set(source, [...(usedBy.get(source) ?? []), output]);
  }
  return usedBy;
}

import type { OutputRecord, SourceRecord } from "../manifest.ts";
import type { SourceOutcome } from "./source-outcome.ts";

export interface ShrinkCheck {
  readonly name: string;
  readonly before: OutputRecord | null;
  readonly after: OutputRecord | null;
}

interface Context {
  readonly outcomes: readonly SourceOutcome[];
  /** The current version's sources, for what each had before. */
  readonly previous: Readonly<Record<string, SourceRecord>>;
}

/**
 * One line for every output the new version would shrink by more than `maxShrink` of
 * what the current version serves, naming its counts and what happened to each source
 * that fed it or feeds it now.
 */
export function shrinkRefusals(checks: readonly ShrinkCheck[], maxShrink: number, context: Context): string[] {
  const refusals: string[] = [];
  for (const { name, before, after } of checks) {
    if (!before || before.count === 0) continue;
    const count = after?.count ?? 0;
    if (count >= before.count * (1 - maxShrink)) continue;
    const loss = Math.round((1 - count / before.count) * 100);
    const involved = [...new Set([...before.sources, ...(after?.sources ?? [])])].map((source) => ({
      source,
      what: what(source, before, after, context),
    }));
    const changed = involved.filter((i) => i.what !== null).map((i) => `${i.source} (${i.what})`);
    const unchanged = involved.length - changed.length;
    const others = unchanged ? `; ${unchanged} other source${unchanged === 1 ? "" : "s"} unchanged` : "";
    refusals.push(
      `${name} would shrink from ${before.count} to ${count} (−${loss} %, more than --max-shrink ${maxShrink}); ` +
        `its sources: ${changed.join(", ") || "none changed"}${others}`,
    );
  }
  return refusals;
}

/** What happened to a source's part in the output; null when nothing did. */
function what(
  source: string,
  before: OutputRecord,
  after: OutputRecord | null,
  { outcomes, previous }: Context,
): string | null {
  const outcome = outcomes.find((o) => o.name === source);
  const had = previous[source]?.entries;
  const was = had === undefined ? "" : `, was ${had} entries`;
  if (!after?.sources.includes(source))
    return outcome?.outcome === "removed" ? `removed from the sources file${was}` : `no longer feeds it${was}`;
  if (!before.sources.includes(source)) return `added, ${outcome?.entries ?? "?"} entries`;
  return outcome?.outcome === "updated" ? `updated from ${had ?? "?"} to ${outcome.entries} entries` : null;
}

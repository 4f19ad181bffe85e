import { overrideFor } from "../email/overrides.ts";
import type { SourceRecord } from "./manifest.ts";
import type { RefreshState } from "./refresh-scheduler.ts";
import type { Snapshot } from "./snapshot.ts";
import { describeGroup, groupProblems, someNames } from "./source-problems.ts";

/** When an update last reached any source over the network (not the bundled packages); null: never. */
export function lastRefreshedFromNetwork(sources: Readonly<Record<string, SourceRecord>>): number | null {
  const times = Object.values(sources)
    .filter((s) => !s.url?.startsWith("npm:"))
    .map((s) => Date.parse(s.checkedAt))
    .filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) : null;
}

/** The command lines the warnings name, as the operator can paste them (built where the program knows how it was run). */
export interface WarningCommands {
  /** Refreshes this server's data by hand. */
  readonly update: string;
  /** Settles a disputed name: NAME is the user's to fill in. */
  readonly settle: string;
  /** The flag or variable that switched the automatic refresh off. */
  readonly refreshOffBy: string;
}

/** For a program whose command line is not known: the commands by their names alone. */
export const GENERIC_WARNING_COMMANDS: WarningCommands = {
  update: "riskcheck update",
  settle: 'riskcheck email deny NAME --reason "why"',
  refreshOffBy: "RISKCHECK_UPDATE_EVERY=off",
};

const days = (ms: number) => Math.floor(ms / 86_400_000);

/**
 * What an operator should know about the data being served, one sentence per kind of
 * problem (with counts, never one per source): no reputation feed loaded, sources in use
 * older than their publishers' cadence, the last refresh failed or was refused, sources it
 * could not fetch (grouped by why), or automatic refresh off for data never refreshed.
 * `refresh` is null when automatic refresh is off.
 */
export function datasetWarnings(
  snapshot: Snapshot,
  refresh: RefreshState | null,
  nowMs: number,
  commands: WarningCommands = GENERIC_WARNING_COMMANDS,
): string[] {
  const warnings: string[] = [];
  if (!(snapshot.outputs["reputation-index"]?.count > 0)) {
    const fix = refresh ? "the automatic refresh fetches the feeds" : `run: ${commands.update}`;
    warnings.push(
      `no reputation feed is loaded: IP verdicts rest on network kinds alone, and "ok" means no data rather than clean; ${fix}`,
    );
  }
  const stale = staleSources(snapshot, nowMs);
  if (stale) warnings.push(stale);
  const unsettled = [...snapshot.email.heldBack].filter(
    (name) => overrideFor(snapshot.email.overrides, name) === undefined,
  );
  if (unsettled.length) {
    const shown = unsettled.slice(0, 5).join(", ") + (unsettled.length > 5 ? " …" : "");
    warnings.push(
      `${unsettled.length} disputed disposable names held back by update, not yet settled (${shown}): see ` +
        `current/email/disputed.txt and settle each with: ${commands.settle} (or email allow)`,
    );
  }
  const last = refresh?.last;
  if (last?.error)
    warnings.push(`the last refresh (${new Date(last.finishedAt).toISOString()}) installed nothing: ${last.error}`);
  for (const group of groupProblems(last?.failedSources ?? []))
    warnings.push(`the last refresh could not fetch ${describeGroup(group)}; ${group.fix}`);
  if (!refresh && lastRefreshedFromNetwork(snapshot.sources) === null) {
    warnings.push(
      `automatic refresh is off (${commands.refreshOffBy}) and the data has never been refreshed from the network; run: ${commands.update}`,
    );
  }
  return warnings;
}

/** One sentence for every source in use older than its publisher's cadence, those of one date together, the oldest first; null for none. */
function staleSources(snapshot: Snapshot, nowMs: number): string | null {
  const inUse = new Set(Object.values(snapshot.outputs).flatMap((o) => o.sources));
  const byDate = new Map<string, { names: string[]; cadences: Set<number> }>();
  let count = 0;
  for (const [name, source] of Object.entries(snapshot.sources)) {
    if (!inUse.has(name) || !source.cadenceMs) continue;
    const dated = (source.dataDate ?? source.fetchedAt).slice(0, 10);
    if (nowMs - Date.parse(dated) <= source.cadenceMs) continue;
    const group = byDate.get(dated) ?? { names: [], cadences: new Set() };
    group.names.push(name);
    group.cadences.add(days(source.cadenceMs) || 1);
    byDate.set(dated, group);
    count++;
  }
  if (count === 0) return null;
  const parts = [...byDate.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([date, g]) =>
        `${someNames(g.names)}: ${date}, ${days(nowMs - Date.parse(date))} days old (cadence ` +
        `${[...g.cadences].sort((a, b) => a - b).join("/")} days)`,
    );
  return (
    `${count} source${count === 1 ? "" : "s"} in use ${count === 1 ? "is" : "are"} older than the cadence ` +
    `${count === 1 ? "its publisher keeps" : "their publishers keep"}: ${parts.join("; ")}`
  );
}

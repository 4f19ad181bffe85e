/** A source an update could not refresh: why, and the date of the data it keeps (null: it has none yet). */
export interface SourceProblem {
  readonly name: string;
  readonly detail: string;
  readonly keeps?: string | null;
}

/** Sources that failed for one kind of reason, with what may help. */
export interface ProblemGroup {
  readonly kind: string;
  readonly fix: string;
  readonly names: readonly string[];
  /** How many of them have no data at all yet. */
  readonly withoutData: number;
}

interface Kind {
  readonly test: RegExp;
  readonly kind: (match: RegExpExecArray) => string;
  readonly fix: string;
}

const NETWORK_FIX =
  "check this machine's network and DNS; behind a proxy, set HTTPS_PROXY (and HTTP_PROXY); to use only the " +
  "bundled data, set RISKCHECK_UPDATE_EVERY=off or give --sources a file without network sources";

/** The first kind whose pattern matches a source's detail; the last one takes anything. */
const KINDS: readonly Kind[] = [
  {
    test: /getaddrinfo|ENOTFOUND|EAI_AGAIN|DNS/i,
    kind: () => "the host name could not be resolved (no network, or no DNS)",
    fix: NETWORK_FIX,
  },
  {
    test: /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|Unable to connect|timed? ?out|socket connection was closed/i,
    kind: () => "the connection failed or timed out",
    fix: NETWORK_FIX,
  },
  {
    test: /needs (.+) in the environment/,
    kind: (m) => `needs ${m[1]} in the environment`,
    fix: "set those variables (see the source in sources.json), or leave the source out of --sources",
  },
  {
    test: /^HTTP (\d{3})/,
    kind: (m) => `the server answered HTTP ${m[1]}`,
    fix: "the publisher refused or failed: try again later, or leave the source out of --sources",
  },
  // What was refused and why is particular to the source: kept whole.
  {
    test: /^refused: (.*)$/,
    kind: (m) => `the download was refused: ${m[1]}`,
    fix: "the publisher's file is not what the source declares; see the update's table; --force accepts it",
  },
  { test: /[\s\S]*/, kind: (m) => m[0], fix: "see the update's table for each source" },
];

function classify(detail: string): { kind: string; fix: string } {
  for (const k of KINDS) {
    const match = k.test.exec(detail);
    if (match) return { kind: k.kind(match), fix: k.fix };
  }
  return { kind: detail, fix: "" };
}

/** Groups failed sources by the kind of problem, the largest group first. */
export function groupProblems(problems: readonly SourceProblem[]): ProblemGroup[] {
  const groups = new Map<string, { kind: string; fix: string; names: string[]; withoutData: number }>();
  for (const p of problems) {
    const { kind, fix } = classify(p.detail);
    const group = groups.get(kind) ?? { kind, fix, names: [], withoutData: 0 };
    group.names.push(p.name);
    if (p.keeps === null) group.withoutData++;
    groups.set(kind, group);
  }
  return [...groups.values()].sort((a, b) => b.names.length - a.names.length);
}

/** "a, b, c" or "a, b and 5 more". */
export function someNames(names: readonly string[], shown = 3): string {
  return names.length <= shown
    ? names.join(", ")
    : `${names.slice(0, shown - 1).join(", ")} and ${names.length - shown + 1} more`;
}

/**
 * One sentence for a group: "29 sources (geolite2-city-ipv4, … and 27 more; 29 have no data yet): the host name could
 * not be resolved …".
 */
export function describeGroup(group: ProblemGroup): string {
  const count = `${group.names.length} source${group.names.length === 1 ? "" : "s"}`;
  const data =
    group.withoutData === 0
      ? group.names.length === 1
        ? "it keeps the data it had"
        : "each keeps the data it had"
      : group.withoutData === group.names.length
        ? group.names.length === 1
          ? "it has no data yet"
          : "none has data yet"
        : `${group.withoutData} have no data yet, the others keep theirs`;
  return `${count} (${someNames(group.names)}; ${data}): ${group.kind}`;
}

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { normaliseDomain } from "../../email/domain-name.ts";
import { type Witness, evidenceStrength } from "../../email/evidence-rule.ts";
import type { OutputInput } from "./outputs.ts";
import { type EvidenceEntries, evidenceText, parseEvidenceFile } from "../email-evidence-file.ts";
import { linkOrCopy, writeFileAtomically } from "../staged-files.ts";

/** A disposable list being composed into the version. */
export interface EmailListInput {
  readonly input: OutputInput;
  readonly changed: boolean;
  readonly wildcard: boolean;
  readonly verifies: boolean;
  /** For a rolling list: how long its names are remembered after it last carried them, in seconds. */
  readonly retentionSeconds: number | null;
  /** When an update last confirmed the list as the current version holds it (seconds), or null. */
  readonly lastChecked: number | null;
}

/** What a rolling list's memory holds after this update: the summary's line and the bound's count. */
export interface ListMemory {
  readonly source: string;
  /** Names the list no longer carries, still disposable. */
  readonly remembered: number;
  /** Names that left the list in this update. */
  readonly left: number;
  /** Names forgotten in this update: absent for longer than the retention, or past the bound. */
  readonly forgotten: number;
  readonly retentionSeconds: number;
  /** The earliest last sighting of a remembered name, in seconds; null when none is remembered. */
  readonly oldest: number | null;
}

/**
 * The most names one rolling list remembers: a bound on the version's size whatever a list
 * does. Castle's top 1,000 sheds 100–180 names a day, about 55,000 a year; past the bound the
 * names last seen longest ago go first.
 */
export const MAX_REMEMBERED = 250_000;

/**
 * Writes one evidence file per disposable list into `dir` (`<source>.txt`): each name it
 * lists, normalised, with when an update first saw it there. An unchanged list keeps its
 * file; a changed one inherits first-seen times from the current version's file. A rolling
 * list also keeps the names it no longer carries, with when it last did, until they have been
 * absent for its retention. Returns every list's entries (remembered names included) for the
 * disputed-names check, what each rolling list remembers, and the current version's files it read
 * (by file name), so that the check does not parse them again.
 */
export function composeEmailEvidence(
  lists: readonly EmailListInput[],
  currentDir: string | null,
  dir: string,
  nowSeconds: number,
): { listed: Map<string, Map<string, number>>; memory: ListMemory[]; current: Map<string, EvidenceEntries> } {
  mkdirSync(dir, { recursive: true });
  const listed = new Map<string, Map<string, number>>();
  const memory: ListMemory[] = [];
  const current = new Map<string, EvidenceEntries>();
  for (const list of lists) {
    const { input, changed, retentionSeconds } = list;
    const file = `${input.name}.txt`;
    const before = currentDir === null ? null : join(currentDir, file);
    const previous: EvidenceEntries =
      before && existsSync(before)
        ? parseEvidenceFile(readFileSync(before, "utf8"))
        : { firstSeen: new Map(), lastSeen: new Map() };
    if (before && existsSync(before)) current.set(file, previous);
    const expired = (last: number) => retentionSeconds !== null && last < nowSeconds - retentionSeconds;
    const expiring = [...previous.lastSeen.values()].some(expired);
    if (before && existsSync(before) && !changed && !expiring) {
      linkOrCopy(before, join(dir, file));
      listed.set(input.name, previous.firstSeen);
      if (retentionSeconds !== null) memory.push(memoryOf(input.name, previous, 0, 0, retentionSeconds));
      continue;
    }
    const entries: EvidenceEntries = { firstSeen: new Map(), lastSeen: new Map() };
    const carried = changed
      ? input.parsed("domain-list")
      : [...previous.firstSeen.keys()].filter((n) => !previous.lastSeen.has(n));
    for (const raw of carried) {
      const domain = normaliseDomain(raw.startsWith("*.") ? raw.slice(2) : raw);
      if (domain !== null && !entries.firstSeen.has(domain))
        entries.firstSeen.set(domain, previous.firstSeen.get(domain) ?? nowSeconds);
    }
    let left = 0;
    let forgotten = 0;
    if (retentionSeconds !== null) {
      // A name that left: last carried when an update last confirmed the list with it.
      const leftAt = list.lastChecked ?? nowSeconds;
      const kept: [string, number, number][] = [];
      for (const [domain, first] of previous.firstSeen) {
        if (entries.firstSeen.has(domain)) continue;
        const last = previous.lastSeen.get(domain) ?? leftAt;
        if (!previous.lastSeen.has(domain)) left++;
        if (expired(last)) forgotten++;
        else kept.push([domain, first, last]);
      }
      if (kept.length > MAX_REMEMBERED) {
        kept.sort((a, b) => b[2] - a[2]);
        forgotten += kept.length - MAX_REMEMBERED;
        kept.length = MAX_REMEMBERED;
      }
      for (const [domain, first, last] of kept) {
        entries.firstSeen.set(domain, first);
        entries.lastSeen.set(domain, last);
      }
      memory.push(memoryOf(input.name, entries, left, forgotten, retentionSeconds));
    }
    writeFileAtomically(join(dir, file), evidenceText(entries));
    listed.set(input.name, entries.firstSeen);
  }
  return { listed, memory, current };
}

/**
 * Whether the evidence file at `file` remembers a name for longer than `retentionSeconds`: the next update forgets it,
 * even if no source changed.
 */
export function memoryExpires(file: string, nowSeconds: number, retentionSeconds: number): boolean {
  if (!existsSync(file)) return false;
  for (const last of parseEvidenceFile(readFileSync(file, "utf8")).lastSeen.values())
    if (last < nowSeconds - retentionSeconds) return true;
  return false;
}

function memoryOf(
  source: string,
  entries: EvidenceEntries,
  left: number,
  forgotten: number,
  retentionSeconds: number,
): ListMemory {
  let oldest: number | null = null;
  for (const last of entries.lastSeen.values()) if (oldest === null || last < oldest) oldest = last;
  return { source, remembered: entries.lastSeen.size, left, forgotten, retentionSeconds, oldest };
}

/** Why a name is disputed, as the summary and `disputed.txt` say it. */
export const DISPUTE = {
  publicSuffix: "a public suffix",
  free: "on the free-provider list",
  popularFree: "a popular free provider",
} as const;

/** What contradicts a disposable listing. */
export interface Contradictions {
  /** On a free-provider list: real people's mailboxes. */
  isFree(domain: string): boolean;
  /** On a list of widely used providers (a popularity rank), or the operator's own free providers. */
  isPopularFree(domain: string): boolean;
  isPublicSuffix(domain: string): boolean;
  isRelay(domain: string): boolean;
  isAllowlisted(domain: string): boolean;
}

/** A disputed name: what it contradicts, the lists that name it, and what the evidence decided. */
export interface DisputedName {
  readonly domain: string;
  readonly why: string;
  readonly sources: readonly string[];
  /** Why it is served anyway; absent for a name held back. */
  readonly decided?: string;
}

export interface DisputedNames {
  /** Disputed names the evidence does not settle: held back from the lists served, most likely disposable first. */
  readonly heldBack: readonly DisputedName[];
  /** Disputed names the evidence settles as disposable: served, and reported with why. */
  readonly servedAnyway: readonly DisputedName[];
  /** New listings that the allowlist or the relay list overrules. */
  readonly allowOverruled: number;
}

/** Why the evidence outweighs what the name contradicts. */
const DECIDED = {
  strong: "a verifying list or two independent lists name it",
  longTail: "a list that copies no other names it, against the free list's long tail (no popular provider)",
} as const;

/**
 * The names this version would newly serve as disposable (not in `known`), or that an
 * earlier update held back, which contradict what else riskcheck knows: a free provider
 * or a public suffix. The evidence decides what it can: a verifying list or two
 * independent lists outweigh either; one list that copies no other outweighs a listing
 * by the free list's long tail (its scraped providers, no popularity rank), not a popular
 * provider's or the operator's. What remains is held back for a person, ranked by its
 * evidence. Allowlisted names and privacy relays are only counted: never disposable anyway.
 */
export function disputedNames(
  lists: ReadonlyMap<string, ReadonlyMap<string, number>>,
  witnesses: ReadonlyMap<string, Witness>,
  known: ReadonlySet<string>,
  previouslyHeld: ReadonlySet<string>,
  contradicts: Contradictions,
): DisputedNames {
  const held: { name: DisputedName; rank: number }[] = [];
  const servedAnyway: DisputedName[] = [];
  let allowOverruled = 0;
  const seen = new Set<string>();
  for (const entries of lists.values()) {
    for (const domain of entries.keys()) {
      if (seen.has(domain)) continue;
      seen.add(domain);
      if (known.has(domain) && !previouslyHeld.has(domain)) continue;
      if (contradicts.isRelay(domain) || contradicts.isAllowlisted(domain)) {
        allowOverruled++;
        continue;
      }
      const popular = contradicts.isPopularFree(domain);
      const why = contradicts.isPublicSuffix(domain)
        ? DISPUTE.publicSuffix
        : popular
          ? DISPUTE.popularFree
          : contradicts.isFree(domain)
            ? DISPUTE.free
            : null;
      if (why === null) continue;
      const listing = [...lists].filter(([, e]) => e.has(domain)).map(([name]) => name);
      const strength = evidenceStrength(listing.flatMap((name) => witnesses.get(name) ?? []));
      const decided =
        strength === "verified" || strength === "independent"
          ? DECIDED.strong
          : strength === "single" && why === DISPUTE.free
            ? DECIDED.longTail
            : null;
      if (decided) servedAnyway.push({ domain, why, sources: listing, decided });
      // Most likely disposable first: the stronger listing, then more lists, then a lesser contradiction.
      else
        held.push({
          name: { domain, why, sources: listing },
          rank: (strength === "single" ? 100 : 0) + listing.length * 10 + (why === DISPUTE.free ? 1 : 0),
        });
    }
  }
  held.sort((a, b) => b.rank - a.rank || (a.name.domain < b.name.domain ? -1 : 1));
  return { heldBack: held.map((h) => h.name), servedAnyway, allowOverruled };
}

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { normaliseDomain } from "../../email/domain-name.ts";
import { type Witness, evidenceStrength } from "../../email/evidence-rule.ts";
import type { OutputInput } from "./outputs.ts";
import { evidenceText, parseEvidenceFile } from "../email-evidence-file.ts";
import { linkOrCopy, writeFileAtomically } from "../staged-files.ts";

/** A disposable list being composed into the version. */
export interface EmailListInput {
  readonly input: OutputInput;
  readonly changed: boolean;
  readonly wildcard: boolean;
  readonly verifies: boolean;
}

/**
 * Writes one evidence file per disposable list into `dir` (`<source>.txt`): each name it
 * lists, normalised, with when an update first saw it there. An unchanged list keeps its
 * file; a changed one inherits first-seen times from the current version's file. Returns
 * every list's entries for the disputed-names check.
 */
export function composeEmailEvidence(
  lists: readonly EmailListInput[],
  currentDir: string | null,
  dir: string,
  nowSeconds: number,
): Map<string, Map<string, number>> {
  mkdirSync(dir, { recursive: true });
  const all = new Map<string, Map<string, number>>();
  for (const { input, changed } of lists) {
    const file = `${input.name}.txt`;
    const before = currentDir === null ? null : join(currentDir, file);
    if (before && existsSync(before) && !changed) {
      linkOrCopy(before, join(dir, file));
      all.set(input.name, parseEvidenceFile(readFileSync(before, "utf8")));
      continue;
    }
    const previous =
      before && existsSync(before) ? parseEvidenceFile(readFileSync(before, "utf8")) : new Map<string, number>();
    const entries = new Map<string, number>();
    for (const raw of input.parsed("domain-list")) {
      const domain = normaliseDomain(raw.startsWith("*.") ? raw.slice(2) : raw);
      if (domain !== null && !entries.has(domain)) entries.set(domain, previous.get(domain) ?? nowSeconds);
    }
    writeFileAtomically(join(dir, file), evidenceText(entries));
    all.set(input.name, entries);
  }
  return all;
}

/** Why a name is disputed, as the summary and `disputed.txt` say it. */
export const DISPUTE = {
  relay: "a privacy relay",
  publicSuffix: "a public suffix",
  free: "on the free-provider list",
} as const;

/** What contradicts a disposable listing. */
export interface Contradictions {
  /** On a free-provider list: real people's mailboxes. */
  isFree(domain: string): boolean;
  isPublicSuffix(domain: string): boolean;
  isRelay(domain: string): boolean;
  isAllowlisted(domain: string): boolean;
}

export interface DisputedNames {
  /** Disputed names with weak evidence: held back from the lists served. */
  readonly heldBack: readonly { domain: string; why: string; sources: readonly string[] }[];
  /** Disputed names that a verifying list or two independent lists name: served, and reported. */
  readonly servedAnyway: readonly { domain: string; why: string; sources: readonly string[] }[];
  /** New listings that the allowlist overrules. */
  readonly allowOverruled: number;
}

/**
 * The names this version would newly serve as disposable (not in `known`), or that an
 * earlier update held back, which contradict what else riskcheck knows: a free provider,
 * a public suffix, a privacy relay. Allowlisted ones are only counted: the allowlist
 * overrules them anyway.
 */
export function disputedNames(
  lists: ReadonlyMap<string, ReadonlyMap<string, number>>,
  witnesses: ReadonlyMap<string, Witness>,
  known: ReadonlySet<string>,
  previouslyHeld: ReadonlySet<string>,
  contradicts: Contradictions,
): DisputedNames {
  const heldBack: DisputedNames["heldBack"][number][] = [];
  const servedAnyway: DisputedNames["heldBack"][number][] = [];
  let allowOverruled = 0;
  const seen = new Set<string>();
  for (const entries of lists.values()) {
    for (const domain of entries.keys()) {
      if (seen.has(domain)) continue;
      seen.add(domain);
      if (known.has(domain) && !previouslyHeld.has(domain)) continue;
      const relay = contradicts.isRelay(domain);
      if (!relay && contradicts.isAllowlisted(domain)) {
        allowOverruled++;
        continue;
      }
      const why = relay
        ? DISPUTE.relay
        : contradicts.isPublicSuffix(domain)
          ? DISPUTE.publicSuffix
          : contradicts.isFree(domain)
            ? DISPUTE.free
            : null;
      if (why === null) continue;
      const listing = [...lists].filter(([, e]) => e.has(domain)).map(([name]) => name);
      const strength = evidenceStrength(listing.flatMap((name) => witnesses.get(name) ?? []));
      (strength === "verified" || strength === "independent" ? servedAnyway : heldBack).push({
        domain,
        why,
        sources: listing,
      });
    }
  }
  return { heldBack, servedAnyway, allowOverruled };
}

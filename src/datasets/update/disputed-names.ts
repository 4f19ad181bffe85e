import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseDomainListText } from "../../email/domain-lists.ts";
import { isPublicSuffix } from "../../email/public-suffix.ts";
import { nearest, normaliseDomain } from "../../email/domain-name.ts";
import type { Witness } from "../../email/evidence-rule.ts";
import { relayServiceOf } from "../../email/relay-services.ts";
import { dataFiles, versionFiles } from "../data-layout.ts";
import { loadEmailLists } from "../load-email-lists.ts";
import { type EvidenceEntries, parseEvidenceFile } from "../email-evidence-file.ts";
import { type DisputedNames, type ListMemory, composeEmailEvidence, disputedNames } from "./email-evidence.ts";
import type { OutputInput, OutputName } from "./outputs.ts";
import type { Source } from "./sources.ts";
import { writeFileAtomically } from "../staged-files.ts";

const DISPUTED_HEADER = '# disputed names held back by riskcheck update; "riskcheck email allow|deny" settles each\n';

interface DisputeInputs {
  readonly inputsOf: Readonly<Record<OutputName, readonly OutputInput[]>>;
  readonly held: ReadonlyMap<string, { readonly source: Source; readonly changed: boolean }>;
  readonly force: boolean;
  readonly currentRoot: string | null;
  readonly out: ReturnType<typeof versionFiles>;
  readonly dataDir: string;
  readonly nowSeconds: number;
  /** When an update last confirmed each source, as the current version records it. */
  readonly previousChecks: ReadonlyMap<string, string>;
}

/**
 * Writes the version's per-list evidence, then holds back the new disposable names that
 * contradict a free provider the current version serves or a public suffix, where the
 * evidence does not settle them (disputedNames): they go to `email/disputed.txt`, most likely
 * disposable first, which the served lists leave out until an operator's override settles each.
 */
export async function checkDisputedNames(d: DisputeInputs): Promise<DisputedNames & { memory: ListMemory[] }> {
  const emailLists = [
    ...d.inputsOf["disposable-domains"].map((input) => ({ input, wildcard: false })),
    ...d.inputsOf["disposable-wildcards"].map((input) => ({ input, wildcard: true })),
  ].map((l) => {
    const held = d.held.get(l.input.name)!;
    const checked = d.previousChecks.get(l.input.name);
    return {
      ...l,
      changed: d.force || held.changed,
      verifies: held.source.verifies,
      retentionSeconds: held.source.kind === "rolling" ? Math.floor(held.source.retentionMs / 1000) : null,
      lastChecked: checked === undefined ? null : Math.floor(Date.parse(checked) / 1000),
    };
  });
  const current = d.currentRoot === null ? null : versionFiles(d.currentRoot);
  const {
    listed,
    memory,
    current: read,
  } = composeEmailEvidence(
    emailLists,
    current === null ? null : current.emailEvidence,
    d.out.emailEvidence,
    d.nowSeconds,
  );
  // The first version has nothing to contradict: what it lists is what riskcheck starts from.
  if (current === null) {
    writeFileAtomically(d.out.disputedDomains, DISPUTED_HEADER);
    return { heldBack: [], servedAnyway: [], allowOverruled: 0, memory };
  }
  const witnesses = new Map<string, Witness>(
    emailLists.map(({ input, verifies }) => [
      input.name,
      { name: input.name, verifies, copies: new Set(d.held.get(input.name)!.source.includes) },
    ]),
  );
  const previouslyHeld =
    current && existsSync(current.disputedDomains)
      ? new Set(parseDomainListText(readFileSync(current.disputedDomains, "utf8")))
      : new Set<string>();
  // The free providers the current version serves: the free list less what the lists and the name rules already refuse.
  const free = (await loadEmailLists(d.dataDir, d.currentRoot!)).lists.free;
  const allow = namesOf(d.inputsOf["allowed-domains"], operatorList(dataFiles(d.dataDir).allowedDomains));
  const popular = namesOf(
    d.inputsOf["free-domains"].filter((input) => d.held.get(input.name)!.source.popular),
    operatorList(dataFiles(d.dataDir).freeSupplement),
  );
  const disputed = disputedNames(listed, witnesses, knownNames(current, read), previouslyHeld, {
    isFree: (domain) => free.has(domain),
    isPopularFree: (domain) => popular.has(domain) && free.has(domain),
    isPublicSuffix,
    isRelay: (domain) => relayServiceOf(domain) !== null,
    isAllowlisted: (domain) => nearest(domain, (name) => (allow.has(name) ? true : undefined)) === true,
  });
  const lines = disputed.heldBack.map((n) => `${n.domain} # ${n.why}; listed by ${n.sources.join(", ")}`);
  writeFileAtomically(d.out.disputedDomains, `${DISPUTED_HEADER}${lines.join("\n")}\n`);
  return { ...disputed, memory };
}

/**
 * The names the current version already lists, less those it held back; a version made before lists were kept apart
 * gives its union. `read`: its evidence files already parsed, by file name.
 */
function knownNames(
  current: ReturnType<typeof versionFiles> | null,
  read: ReadonlyMap<string, EvidenceEntries>,
): Set<string> {
  const known = new Set<string>();
  if (current === null) return known;
  if (existsSync(current.emailEvidence)) {
    for (const file of readdirSync(current.emailEvidence)) {
      const entries = read.get(file) ?? parseEvidenceFile(readFileSync(join(current.emailEvidence, file), "utf8"));
      for (const name of entries.firstSeen.keys()) known.add(name);
    }
  } else {
    for (const file of [current.disposableDomains, current.disposableWildcards]) {
      if (!existsSync(file)) continue;
      for (const entry of parseDomainListText(readFileSync(file, "utf8"))) {
        const domain = normaliseDomain(entry.startsWith("*.") ? entry.slice(2) : entry);
        if (domain !== null) known.add(domain);
      }
    }
  }
  if (existsSync(current.disputedDomains))
    for (const name of parseDomainListText(readFileSync(current.disputedDomains, "utf8"))) known.delete(name);
  return known;
}

function operatorList(file: string): string[] {
  return existsSync(file) ? parseDomainListText(readFileSync(file, "utf8")) : [];
}

function namesOf(inputs: readonly OutputInput[], extra: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const entry of [...inputs.flatMap((i) => i.parsed("domain-list")), ...extra]) {
    const domain = normaliseDomain(entry.startsWith("*.") ? entry.slice(2) : entry);
    if (domain !== null) names.add(domain);
  }
  return names;
}

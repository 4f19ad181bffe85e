import { existsSync } from "node:fs";
import { type CompiledEvidence, compileEvidence } from "../email/compiled-evidence.ts";
import type { SourceInput } from "../email/disposable-evidence.ts";
import {
  type DomainLists,
  type DroppedCounts,
  type FreeListReport,
  buildDomainLists,
  parseDomainListText,
} from "../email/domain-lists.ts";
import { DEFAULT_EVIDENCE_RULE, type EvidenceRule } from "../email/evidence-rule.ts";
import { dataFilesAt, versionFiles } from "./data-layout.ts";
import { parseEvidenceFile } from "./email-evidence-file.ts";
import { parseMailServersFile } from "./mail-servers-file.ts";
import { CheckedFiles } from "./checked-files.ts";
import { readEvidencePack, writeEvidencePack } from "./email-evidence-pack.ts";
import { type Manifest, readManifest } from "./manifest.ts";
import { type TextDataset, readTextDataset } from "./read-text-dataset.ts";

export interface EmailLists {
  readonly lists: DomainLists;
  readonly dropped: DroppedCounts;
  readonly free: FreeListReport;
  /** The operator's allowlist, the version's feed allowlist and the operator's free supplement, where present. */
  readonly allow: TextDataset | null;
  readonly feedAllow: TextDataset | null;
  readonly supplement: TextDataset | null;
}

/**
 * The email lists as a version serves them: its compiled lists with the operator's
 * allowlist and free supplement, without the IP datasets. Without `root`, the current version.
 */
export async function loadEmailLists(
  dataDir: string,
  root?: string,
  rule: EvidenceRule = DEFAULT_EVIDENCE_RULE,
  givenManifest?: Manifest,
): Promise<EmailLists> {
  const files = dataFilesAt(dataDir, root);
  const manifest = givenManifest ?? (await readManifest(files.manifest));
  const compiled = await versionEvidence(files, manifest);
  // With each list apart (compiled), the unions are not read: they are kept for the riskcheck before this one.
  const [disposable, wildcard, free, allow, feedAllow, supplement, disputed, mailServers] = await Promise.all([
    compiled ? null : readTextDataset(files.disposableDomains),
    compiled ? null : readTextDataset(files.disposableWildcards),
    readTextDataset(files.freeDomains),
    readTextDataset(files.allowedDomains, { optional: true }),
    readTextDataset(files.feedAllowedDomains, { optional: true }),
    readTextDataset(files.freeSupplement, { optional: true }),
    readTextDataset(files.disputedDomains, { optional: true }),
    readTextDataset(files.mailServers, { optional: true }),
  ]);
  const lines = (dataset: TextDataset | null) => (dataset ? parseDomainListText(dataset.text) : []);
  const built = buildDomainLists({
    disposable: lines(disposable),
    disposableWildcard: lines(wildcard),
    free: lines(free),
    freeSupplement: lines(supplement),
    allow: [...lines(allow), ...lines(feedAllow)],
    ...(compiled ? { compiled } : {}),
    rule,
    heldBack: lines(disputed),
    allowReasons: allow ? lineComments(allow.text) : new Map(),
    mailObservations: mailServers ? parseMailServersFile(mailServers.text) : [],
  });
  return { ...built, allow, feedAllow, supplement };
}

/**
 * The disposable lists compiled: as `update` wrote them, or, for a version made before it
 * did, compiled from the evidence files now; null for a version made before lists were kept
 * apart (its union then counts as one list).
 */
async function versionEvidence(
  files: ReturnType<typeof dataFilesAt>,
  manifest: Manifest | null,
): Promise<CompiledEvidence | null> {
  if (existsSync(files.emailEvidencePack)) {
    const checked = CheckedFiles.of(files.versions);
    const pack = readEvidencePack(files.emailEvidencePack, checked);
    checked.save();
    return pack;
  }
  const sources = await listedSources(files.emailEvidence, manifest);
  return sources && compileEvidence(sources);
}

/**
 * Compiles the disposable lists of the version at `root` into its pack, as `update` does for
 * each version it makes; false for a version made before lists were kept apart.
 */
export async function writeVersionEvidencePack(root: string): Promise<boolean> {
  const files = versionFiles(root);
  const sources = await listedSources(files.emailEvidence, await readManifest(files.manifest));
  if (sources === null) return false;
  writeEvidencePack(files.emailEvidencePack, compileEvidence(sources));
  return true;
}

/**
 * Each disposable list apart, from the version's evidence files and its manifest's
 * declarations; null for a version made before lists were kept apart.
 */
async function listedSources(dir: string, manifest: Manifest | null): Promise<SourceInput[] | null> {
  if (manifest === null || !existsSync(dir)) return null;
  const kinds = [
    ["disposable-domains", false],
    ["disposable-wildcards", true],
  ] as const;
  const listed = kinds.flatMap(([output, wildcard]) =>
    (manifest.outputs[output]?.sources ?? []).map((name) => ({ name, wildcard })),
  );
  return Promise.all(
    listed.map(async ({ name, wildcard }) => {
      const dataset = await readTextDataset(`${dir}/${name}.txt`);
      const record = manifest.sources[name];
      const { firstSeen, lastSeen } = parseEvidenceFile(dataset!.text);
      return {
        name,
        verifies: record?.verifies ?? false,
        includes: record?.includes ?? [],
        wildcard,
        entries: firstSeen,
        lastSeen,
        checkedAt: record?.checkedAt ?? null,
      };
    }),
  );
}

/** `domain # why` lines: the why, by domain. */
function lineComments(text: string): Map<string, string> {
  const reasons = new Map<string, string>();
  for (const line of text.split("\n")) {
    const hash = line.indexOf("#");
    const domain = (hash === -1 ? line : line.slice(0, hash)).trim().toLowerCase();
    if (domain !== "" && hash !== -1) reasons.set(domain, line.slice(hash + 1).trim());
  }
  return reasons;
}

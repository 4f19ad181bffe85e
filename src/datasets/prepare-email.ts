/**
 * The email half of a load (`prepare-datasets.ts` has the IP half): apart, so that a Worker
 * that prepares the email lists alone loads none of the IP code.
 */

import { DisposableEvidence } from "../email/disposable-evidence.ts";
import type { DomainLists } from "../email/domain-lists.ts";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { ListedNames } from "../email/listed-names.ts";
import { PackedDomainSet } from "../email/packed-domain-set.ts";
import { dataFilesAt } from "./data-layout.ts";
import { loadEmailLists } from "./load-email-lists.ts";
import { readManifest } from "./manifest.ts";
import type { PreparedEmail } from "./prepared-email.ts";
import { readServedEmail, servedEmailKey, writeServedEmail } from "./served-email-file.ts";

/**
 * A version's email lists under `rule`, their packed sets handed over as arrays: read from the
 * version's served lists when those were made from the same inputs, else made and written there
 * for the next load.
 */
export async function prepareEmailPart(
  dataDir: string,
  root: string | undefined,
  rule: EvidenceRule,
): Promise<PreparedEmail> {
  const served = root === undefined ? null : readServedEmail(dataDir, root, rule);
  if (served?.prepared) return served.prepared;
  const notes = served?.damaged
    ? [`${served.damaged}: the email lists were made again from the version's files, and the file written anew`]
    : [];
  const prepared = { ...(await makeEmailPart(dataDir, root, rule)), notes };
  // Written only when nothing it is made from changed while it was made.
  if (root !== undefined && served?.key && servedEmailKey(dataDir, root, rule) === served.key)
    writeServedEmail(root, served.key, prepared);
  return prepared;
}

/** The email lists made from the version's files and the operator's. */
async function makeEmailPart(
  dataDir: string,
  root: string | undefined,
  rule: EvidenceRule,
): Promise<Omit<PreparedEmail, "notes">> {
  const manifest = await readManifest(dataFilesAt(dataDir, root).manifest);
  const e = await loadEmailLists(dataDir, root, rule, manifest ?? undefined);
  const { disposable: _, ...l } = e.lists;
  return {
    lists: {
      ...l,
      free: (l.free as PackedDomainSet).parts,
      evidence: l.evidence.sources.map((source) => ({ ...source, entries: source.entries.parts })),
      listed: { exact: l.listed.exact.parts, wildcard: l.listed.wildcard.parts },
    },
    dropped: e.dropped,
    freeReport: e.free,
    allowList: e.allow && { modified: e.allow.modified },
    feedAllow: e.feedAllow && { modified: e.feedAllow.modified },
    supplement: e.supplement && { modified: e.supplement.modified },
  };
}

/** The email lists from what `prepareEmailPart` packed. */
export function assembleEmailLists(e: PreparedEmail): DomainLists {
  const l = e.lists;
  const exact = ListedNames.fromParts(l.listed.exact);
  return {
    ...l,
    disposable: exact.served(l.rule, l.heldBack),
    listed: { exact, wildcard: ListedNames.fromParts(l.listed.wildcard) },
    free: PackedDomainSet.fromParts(l.free),
    evidence: new DisposableEvidence(
      l.evidence.map((source) => ({ ...source, entries: PackedDomainSet.fromParts(source.entries) })),
    ),
  };
}

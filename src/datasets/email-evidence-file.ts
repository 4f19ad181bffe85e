/**
 * A disposable list's evidence file: each name, when an update first saw it there, and, for a name a rolling list no
 * longer carries, when it last did.
 */
export interface EvidenceEntries {
  /** Every name, with the second an update first saw it listed (0: unknown). */
  readonly firstSeen: Map<string, number>;
  /** The names a rolling list no longer carries (remembered), with the second it last did. */
  readonly lastSeen: Map<string, number>;
}

/** One `domain<TAB>first-seen-second[<TAB>last-seen-second]` a line; the third field only for a remembered name. */
export function parseEvidenceFile(text: string): EvidenceEntries {
  const firstSeen = new Map<string, number>();
  const lastSeen = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [domain, first, last] = line.split("\t", 3);
    firstSeen.set(domain, Number(first) || 0);
    if (last !== undefined && Number(last) > 0) lastSeen.set(domain, Number(last));
  }
  return { firstSeen, lastSeen };
}

/** The lines parseEvidenceFile reads. */
export function evidenceText({ firstSeen, lastSeen }: EvidenceEntries): string {
  let text = "";
  for (const [domain, first] of firstSeen) {
    const last = lastSeen.get(domain);
    text += last === undefined ? `${domain}\t${first}\n` : `${domain}\t${first}\t${last}\n`;
  }
  return text;
}

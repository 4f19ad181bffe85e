/** One `domain<TAB>first-seen-second` a line: what a disposable list says, and since when this appliance knows it. */
export function parseEvidenceFile(text: string): Map<string, number> {
  const entries = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const tab = line.indexOf("\t");
    const domain = tab === -1 ? line : line.slice(0, tab);
    entries.set(domain, tab === -1 ? 0 : Number(line.slice(tab + 1)) || 0);
  }
  return entries;
}

/** The lines parseEvidenceFile reads. */
export function evidenceText(entries: ReadonlyMap<string, number>): string {
  let text = "";
  for (const [domain, firstSeen] of entries) text += `${domain}\t${firstSeen}\n`;
  return text;
}

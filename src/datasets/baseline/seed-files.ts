/**
 * The files of a new data directory besides its dataset versions: the default sources, the
 * curated lists and the operator's starting lists (the ones committed under data/). The
 * binary carries them; a data directory gets each one it lacks, never a changed copy.
 */
export const SEED_FILE_GLOBS = [
  "sources.json",
  "curated/*",
  "email/allowlist.txt",
  "email/free-providers.txt",
  "ip/*.txt",
] as const;

/** The binary's embedded files that hold its dataset version, each file of it compressed apart: `baseline~<path>.zst`. */
const EMBEDDED_PREFIX = "baseline~";
const EMBEDDED_SUFFIX = ".zst";

/** The embedded file's name for a path of the version ("geo/city-ipv4.table"): no folders, which embedding flattens. */
export function embeddedName(path: string): string {
  return `${EMBEDDED_PREFIX}${path.replaceAll("/", "~")}${EMBEDDED_SUFFIX}`;
}

/** The version's path an embedded file's name stands for, or null for another embedded file. */
export function embeddedPath(name: string): string | null {
  return name.startsWith(EMBEDDED_PREFIX) && name.endsWith(EMBEDDED_SUFFIX)
    ? name.slice(EMBEDDED_PREFIX.length, -EMBEDDED_SUFFIX.length).replaceAll("~", "/")
    : null;
}

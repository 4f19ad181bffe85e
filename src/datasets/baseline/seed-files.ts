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

/** Where the binary's archive keeps the dataset version's files. */
export const ARCHIVE_VERSION = "version/";
/** The archive's name among the binary's embedded files. */
export const BASELINE_ARCHIVE = "baseline.tar.zst";

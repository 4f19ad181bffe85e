/** What `bun run build` wrote into the binary: the commit, and the dataset version it carries. */
export interface BuildInfo {
  readonly commit: string;
  /** The digests of the code that makes each file kept beside the data (`DIGESTED_MODULES`), by module. */
  readonly codeDigests: Readonly<Record<string, string>>;
  /** The newest release date of the bundled packages it embeds (YYYY-MM-DD). */
  readonly dataDate: string;
  /** The bundled packages' versions, by name. */
  readonly packages: Readonly<Record<string, string>>;
  /** The name of the embedded dataset version (made at build time by the postinstall's code). */
  readonly version: string;
  /** Files of the version that are the same file as another (a hard link), each stored once: path → the stored path. */
  readonly links: Readonly<Record<string, string>>;
  /** The files a data directory starts with (sources.json, the curated lists …), by path inside it: small text files. */
  readonly seed: Readonly<Record<string, string>>;
}

declare const RISKCHECK_BUILD: BuildInfo | undefined;

/** Set by build.ts (`define`) in the compiled binary; null when Bun runs the sources. */
export const BUILD_INFO: BuildInfo | null = typeof RISKCHECK_BUILD === "undefined" ? null : RISKCHECK_BUILD;

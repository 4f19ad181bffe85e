import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILD_INFO } from "../../runtime/build-info.ts";
import type { Manifest } from "../manifest.ts";
import { type PackageFiles, nodeModulesPackages, packageName } from "../update/package-files.ts";
import { ARCHIVE_VERSION, BASELINE_ARCHIVE, SEED_FILE_GLOBS } from "./seed-files.ts";

/** What the postinstall composes a data directory's first version from: the installed packages and data/'s committed files. */
export interface Baseline {
  readonly packages: PackageFiles;
  /** The seed files by their path inside the data directory. */
  readonly seed: ReadonlyMap<string, Uint8Array | string>;
}

/** A checkout's baseline: the packages `npm install` put in node_modules and the files committed under data/. */
export function checkoutBaseline(root: string): Baseline {
  return { packages: nodeModulesPackages(join(root, "node_modules")), seed: readSeedFiles(join(root, "data")) };
}

/** The seed files under a checkout's data/ (SEED_FILE_GLOBS). */
export function readSeedFiles(dir: string): Map<string, Uint8Array> {
  const seed = new Map<string, Uint8Array>();
  for (const pattern of SEED_FILE_GLOBS) {
    for (const path of [...new Bun.Glob(pattern).scanSync({ cwd: dir })].sort())
      seed.set(path, readFileSync(join(dir, path)));
  }
  return seed;
}

/** The project's own folder when Bun runs the sources. */
const CHECKOUT = resolve(import.meta.dir, "../../..");

/** The checkout's baseline when Bun runs the sources beside an installed node_modules; null otherwise (and in the binary). */
export function checkoutBaselineHere(): Baseline | null {
  return !BUILD_INFO && existsSync(join(CHECKOUT, "node_modules")) ? checkoutBaseline(CHECKOUT) : null;
}

/** The seed files the binary carries (build.ts); null outside the binary. */
export function embeddedSeed(): ReadonlyMap<string, string> | null {
  return BUILD_INFO && new Map(Object.entries(BUILD_INFO.seed));
}

/** The archive the binary carries (build.ts): the dataset version the postinstall's code made from the bundled packages; null outside the binary. */
export async function embeddedArchive(): Promise<Bun.Archive | null> {
  const archive = Bun.embeddedFiles.find((file) => (file as Blob & { name?: string }).name === BASELINE_ARCHIVE);
  return archive && BUILD_INFO ? new Bun.Archive(Bun.zstdDecompressSync(await archive.bytes())) : null;
}

/**
 * The bundled packages as the binary's `update` reads them: their versions, and each file
 * from the embedded version's kept copy (unpacked only when a data directory's copy is of
 * another package version, after the binary was replaced); null outside the binary.
 */
export function embeddedPackages(): PackageFiles | null {
  if (!BUILD_INFO) return null;
  const info = BUILD_INFO;
  return {
    where: `the data built into this binary, of ${info.dataDate}`,
    version: (name) => info.packages[name] ?? null,
    async read(path) {
      const files = await (await embeddedArchive())?.files();
      const manifestFile = files?.get(`${ARCHIVE_VERSION}manifest.json`);
      if (!files || !manifestFile) return null;
      const manifest = JSON.parse(await manifestFile.text()) as Manifest;
      const origin = `npm ${path} ${info.packages[packageName(path)]}`;
      const record = Object.values(manifest.sources).find((r) => r.origin === origin);
      if (!record) return null;
      const rawPath = `raw/${record.raw}`;
      const raw = files.get(ARCHIVE_VERSION + (info.links[rawPath] ?? rawPath));
      return raw ? await raw.bytes() : null;
    },
  };
}

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILD_INFO } from "../../runtime/build-info.ts";
import type { Manifest } from "../manifest.ts";
import { type PackageFiles, nodeModulesPackages, packageName } from "../update/package-files.ts";
import { SEED_FILE_GLOBS, embeddedPath } from "./seed-files.ts";

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

/** The dataset version the binary carries (build.ts), each file by its path in the version, compressed apart; null outside the binary. */
export function embeddedVersionFiles(): ReadonlyMap<string, Blob> | null {
  if (!BUILD_INFO) return null;
  const files = new Map<string, Blob>();
  for (const file of Bun.embeddedFiles) {
    const path = embeddedPath((file as Blob & { name?: string }).name ?? "");
    if (path !== null) files.set(path, file);
  }
  return files;
}

/** An embedded file's content, decompressed as it streams: never held whole. */
export function decompressed(file: Blob): Response {
  return new Response(file.stream().pipeThrough(new DecompressionStream("zstd")));
}

/**
 * The bundled packages as the binary's `update` reads them: their versions, and each file
 * from the embedded version's kept copy (decompressed only when a data directory's copy is of
 * another package version, after the binary was replaced); null outside the binary.
 */
export function embeddedPackages(): PackageFiles | null {
  if (!BUILD_INFO) return null;
  const info = BUILD_INFO;
  return {
    where: `the data built into this binary, of ${info.dataDate}`,
    version: (name) => info.packages[name] ?? null,
    async read(path) {
      const files = embeddedVersionFiles();
      const manifestFile = files?.get("manifest.json");
      if (!files || !manifestFile) return null;
      const manifest = (await decompressed(manifestFile).json()) as Manifest;
      const origin = `npm ${path} ${info.packages[packageName(path)]}`;
      const record = Object.values(manifest.sources).find((r) => r.origin === origin);
      if (!record) return null;
      const rawPath = `raw/${record.raw}`;
      const raw = files.get(info.links[rawPath] ?? rawPath);
      return raw ? await decompressed(raw).bytes() : null;
    },
  };
}

import { readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { BUILD_INFO } from "./build-info.ts";

/** A module's imports: static and dynamic, and a require call's. */
const IMPORT = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']([^"']+)["']/g;

/**
 * A digest of the source module `entry` and every module it imports, followed through relative
 * paths, with the version of each package they import (and of the packages those depend on) and
 * Bun's: what the result of running that code on the same input can depend on. build.ts writes it
 * into the binary, whose sources are bytecode; from source it is worked out from the files as
 * they are.
 */
export function codeDigest(entry: string): string {
  const parts: string[] = [`bun ${Bun.version}`];
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    parts.push(`${relative(dirname(entry), file)} ${Bun.hash.xxHash3(text).toString(16)}`);
    for (const [, specifier] of text.matchAll(IMPORT)) {
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(file), specifier);
        // The pattern also matches import-like text in comments and strings; a real import of a missing file fails at load anyway.
        if (statSync(target, { throwIfNoEntry: false })?.isFile()) visit(target);
      } else if (!specifier.startsWith("node:") && !specifier.startsWith("bun:")) packages.add(packageOf(specifier));
    }
  };
  visit(resolve(entry));
  // With the packages they depend on, whose versions a range leaves open.
  const seenPackages = new Set<string>();
  const visitPackage = (name: string, from: string) => {
    const file = Bun.resolveSync(`${name}/package.json`, from);
    if (seenPackages.has(file)) return;
    seenPackages.add(file);
    const { version, dependencies = {} } = JSON.parse(readFileSync(file, "utf8")) as {
      version: string;
      dependencies?: Record<string, string>;
    };
    parts.push(`${name} ${version}`);
    for (const dependency of Object.keys(dependencies).sort()) visitPackage(dependency, dirname(file));
  };
  for (const name of [...packages].sort()) visitPackage(name, dirname(entry));
  return Bun.hash.xxHash3(parts.join("\n")).toString(16);
}

/** The package an import names: "tldts" of "tldts/dist/x", "@scope/name" of "@scope/name/x". */
function packageOf(specifier: string): string {
  return specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
}

/** The modules, by path under src/, whose results are kept in files beside the data: their files are keyed by the code. */
export const DIGESTED_MODULES = ["datasets/prepare-email.ts", "datasets/compiled-curated-ranges.ts"] as const;

const digests = new Map<string, string>();

/** `codeDigest` of `module`: the binary's, as build.ts worked it out; from source, of the sources now (once a process). */
export function moduleCode(module: (typeof DIGESTED_MODULES)[number]): string {
  let digest = BUILD_INFO?.codeDigests[module] ?? digests.get(module);
  if (digest === undefined) digests.set(module, (digest = codeDigest(join(import.meta.dir, "..", module))));
  return digest;
}

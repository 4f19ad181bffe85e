import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Where the `npm:` sources are read from: the node_modules an `npm install` made, or the
 * packages the compiled binary carries. `path` is the package's name and a file in it.
 */
export interface PackageFiles {
  /** Where they are, for messages. */
  readonly where: string;
  /** The installed version of a package, or null when it is not there. */
  version(name: string): string | null;
  /** A file of an installed package, or null. */
  read(path: string): Promise<Uint8Array | null>;
}

/** The packages installed in a node_modules directory. */
export function nodeModulesPackages(dir: string): PackageFiles {
  return {
    where: dir,
    version(name) {
      const manifest = join(dir, name, "package.json");
      return existsSync(manifest) ? String(JSON.parse(readFileSync(manifest, "utf8")).version) : null;
    },
    async read(path) {
      const file = join(dir, path);
      return existsSync(file) ? readFileSync(file) : null;
    },
  };
}

/** The package a `npm:` path names ("@scope/name/file" → "@scope/name"). */
export function packageName(path: string): string {
  return path.startsWith("@") ? path.split("/", 2).join("/") : path.split("/", 1)[0];
}

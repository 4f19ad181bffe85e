import { join } from "node:path";

/** Where each dataset lives inside the data directory. */
export function dataFiles(dataDir: string) {
  return {
    disposableDomains: join(dataDir, "email", "disposable.txt"),
    disposableWildcards: join(dataDir, "email", "disposable-wildcard.txt"),
    freeDomains: join(dataDir, "email", "free.txt"),
    allowedDomains: join(dataDir, "email", "allowlist.txt"),
  } as const;
}

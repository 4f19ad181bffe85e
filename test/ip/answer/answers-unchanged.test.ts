import { expect, test } from "bun:test";
import { Answers } from "../../../src/checks/answers.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { type AnswerDigests, DIGESTS_FILE, answerDigests, sampleAddresses } from "../../support/ip-answer-sample.ts";
import { BUNDLED_DATA_DIR } from "../../support/bundled-data.ts";
import { testSnapshot } from "../../support/test-app.ts";

/**
 * The IP answers on the bundled data, with and without ?explain=1, byte for byte as they were
 * before the lookups were reworked: the first CHECKED addresses of the seeded sample against
 * the digests made then. `bun bench/ip-answers.ts` checks all 100,000 and, with `--dump`,
 * writes the answers to compare a differing chunk's.
 */
const CHECKED = 10_000;
const expected: AnswerDigests = await Bun.file(DIGESTS_FILE).json();
// The bundled IP datasets the other tests of the process share (the bundled data has no list
// with evidence, the one part of an answer that the snapshot's sources change).
const snapshot = await testSnapshot();
const addresses = await sampleAddresses(BUNDLED_DATA_DIR, expected.seed, CHECKED);

test("the digests cover 100,000 addresses of the bundled data's packages", async () => {
  expect(expected.count).toBe(100_000);
  expect(expected.digests).toHaveLength(expected.count / expected.chunk);
  const { dependencies } = await Bun.file(`${import.meta.dir}/../../../package.json`).json();
  // New bundled data changes answers: the digests are then rewritten with `bun bench/ip-answers.ts --write`.
  for (const [name, version] of Object.entries(expected.data))
    expect({ name, version: dependencies[name] }).toEqual({ name, version });
});

test("the sample reaches both families and located, owned and kinded networks", () => {
  const answers = new Answers(snapshot, false);
  const found = { v6: 0, located: 0, v6Located: 0, owned: 0, kinded: 0 };
  for (const address of addresses) {
    const { facts } = answers.lookUp(parseIpAddress(address)!);
    const v6 = address.includes(":");
    if (v6) found.v6++;
    if (facts === null) continue;
    if (facts.located.geo.country_code !== "") {
      found.located++;
      if (v6) found.v6Located++;
    }
    if (facts.owner.asn !== 0) found.owned++;
    if (facts.reputation.kind.length > 0) found.kinded++;
  }
  expect(found.v6).toBeGreaterThan(CHECKED / 10);
  expect(found.located).toBeGreaterThan(CHECKED / 2);
  expect(found.v6Located).toBeGreaterThan(CHECKED / 50);
  expect(found.owned).toBeGreaterThan(CHECKED / 2);
  expect(found.kinded).toBeGreaterThan(CHECKED / 5);
});

test(`the first ${CHECKED.toLocaleString("en")} addresses' answers, plain and explained, are byte for byte the recorded ones`, () => {
  const digests = answerDigests(snapshot, addresses, expected.chunk);
  const differing = digests.flatMap((d, i) =>
    d === expected.digests[i]
      ? []
      : [
          `chunk ${i} (addresses ${i * expected.chunk}–${(i + 1) * expected.chunk - 1}, from ${addresses[i * expected.chunk]})`,
        ],
  );
  expect(differing).toEqual([]);
  expect(digests).toHaveLength(CHECKED / expected.chunk);
});

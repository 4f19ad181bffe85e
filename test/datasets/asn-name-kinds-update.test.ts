import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OUTPUTS } from "../../src/datasets/update/outputs.ts";
import { hasCurrentNameKinds } from "../../src/ip/indexes/asn-index.ts";
import { decodeIndexFile, encodeIndexFile, readIndexFile } from "../../src/ip/indexes/range-index-file.ts";
import { indexWithoutTables } from "../support/index-without-tables.ts";
import { BUNDLED_SOURCES, makeDataDir, runCliAsync } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// A real `riskcheck update` on the bundled sources, whose ASN input is unchanged, over a current
// version written before the ASN index carried its names' kinds (the same index, stripped of them)
// and before the reputation index carried its bucket tables.
setDefaultTimeout(scaled(90_000));

const dir = makeDataDir();
const feeds = mkdtempSync(join(tmpdir(), "rk-asn-kinds-feeds-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(feeds, { recursive: true, force: true });
});
writeFileSync(join(feeds, "a-list.txt"), "new-throwaway.example-listed.com\n");
writeFileSync(
  join(dir, "sources.json"),
  JSON.stringify({
    sources: [
      ...BUNDLED_SOURCES,
      {
        name: "a-list",
        url: `file://${join(feeds, "a-list.txt")}`,
        format: "domain-list",
        feeds: "disposable",
        licence: "made by the test",
      },
    ],
  }),
);
const asnIndexOf = (version: string) => join(dir, version, "ip", "asn.idx");
const before = asnIndexOf(readlinkSync(join(dir, "current")));
const bytes = readFileSync(before);
const file = decodeIndexFile(
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  before,
  "asn",
);
const { nameKinds: _, ...olderMeta } = file.meta;
// The version's files are hard links to the bundled data's: replaced, never written through.
rmSync(before);
writeFileSync(before, encodeIndexFile({ ...file, meta: olderMeta }));
// And a reputation index without its bucket tables, as a riskcheck before them wrote it.
const reputationOf = (version: string) => join(dir, version, "ip", "reputation.idx");
const reputationBefore = reputationOf(readlinkSync(join(dir, "current")));
const reputation = decodeIndexFile(readFileSync(reputationBefore), reputationBefore, "reputation");
rmSync(reputationBefore);
writeFileSync(reputationBefore, indexWithoutTables(reputation));
const run = await runCliAsync(["update", "--data-dir", dir]);

test("an unchanged ASN input whose index predates its names' kinds is built again", async () => {
  expect(run.code).toBe(0);
  const after = asnIndexOf(readlinkSync(join(dir, "current")));
  expect(after).not.toBe(before);
  expect(hasCurrentNameKinds(await readIndexFile(before, "asn"))).toBe(false);
  expect(hasCurrentNameKinds(await readIndexFile(after, "asn"))).toBe(true);
  expect(statSync(after).ino).not.toBe(statSync(before).ino);
});

test("an unchanged reputation input whose index has no bucket tables is built again", async () => {
  const after = reputationOf(readlinkSync(join(dir, "current")));
  expect(after).not.toBe(reputationBefore);
  expect((await readIndexFile(reputationBefore, "reputation")).columns.buckets).toBeUndefined();
  expect((await readIndexFile(after, "reputation")).columns.buckets).toBeDefined();
});

test("an ASN index without its bucket tables is not kept as built as now", () => {
  const [now, older] = [join(feeds, "now.idx"), join(feeds, "older.idx")];
  writeFileSync(now, encodeIndexFile(file));
  writeFileSync(older, indexWithoutTables(file));
  expect(decodeIndexFile(readFileSync(older), older, "asn").columns.buckets).toBeUndefined();
  expect(OUTPUTS["asn-index"].builtAsNow!(now)).toBe(true);
  expect(OUTPUTS["asn-index"].builtAsNow!(older)).toBe(false);
});

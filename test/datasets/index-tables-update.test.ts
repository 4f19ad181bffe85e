import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { composeEvidence } from "../../src/datasets/update/evidence.ts";
import { OUTPUTS, type OutputInput } from "../../src/datasets/update/outputs.ts";
import { rangeOfCidr } from "../../src/ip/address/address-range.ts";
import { EvidenceIndex, EvidenceIndexBuilder } from "../../src/ip/indexes/evidence-index.ts";
import {
  type IndexFile,
  type IndexKind,
  decodeIndexFile,
  encodeIndexFile,
} from "../../src/ip/indexes/range-index-file.ts";
import { indexWithoutTables } from "../support/index-without-tables.ts";

// An index an older riskcheck wrote has no bucket tables; `update` builds it again even from unchanged
// inputs, so that one update after an upgrade leaves none (and a later release can stop reading them).
const dir = mkdtempSync(join(tmpdir(), "rk-index-tables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const u32 = (...values: number[]) => Uint32Array.from(values);
/** One IPv4 range over one entry of `words` payload words. */
const indexOf = (kind: IndexKind, words: number): IndexFile => ({
  kind,
  columns: {
    v4Starts: u32(16777216),
    v4Ends: u32(16777471),
    v4Values: u32(0),
    v6Starts: u32(),
    v6Ends: u32(),
    v6Values: u32(),
  },
  payload: new Uint32Array(words),
  text: new Uint8Array(0),
  meta: {},
});

describe("an index output without its bucket tables is not built as now", () => {
  test.each([
    ["reputation-index", indexOf("reputation", 7)],
    ["infrastructure-labels", indexOf("labels", 1)],
    ["declared-locations", indexOf("places", 1)],
  ] as const)("%s", (name, file) => {
    const [now, older] = [join(dir, `${name}-now.idx`), join(dir, `${name}-older.idx`)];
    writeFileSync(now, encodeIndexFile(file));
    writeFileSync(older, indexWithoutTables(file));
    expect(OUTPUTS[name].builtAsNow!(now)).toBe(true);
    expect(OUTPUTS[name].builtAsNow!(older)).toBe(false);
  });
});

test("an unchanged list's evidence index without its tables is written anew, its first-seen times kept", async () => {
  const [current, next] = [join(dir, "current-evidence"), join(dir, "next-evidence")];
  mkdirSync(current);
  mkdirSync(next);
  const range = rangeOfCidr("1.0.0.0/24");
  const builder = new EvidenceIndexBuilder();
  builder.add(range, { count: 3, firstSeen: 1_700_000_000 });
  writeFileSync(join(current, "a-list.idx"), indexWithoutTables(builder.build({ source: "a-list" })));
  const input = {
    name: "a-list",
    ipEntries: () => ({ entries: [{ range, count: 3 }], clipped: 0 }),
  } as unknown as OutputInput;
  await composeEvidence([{ input, changed: false }], current, next, 1_800_000_000);
  const written = decodeIndexFile(readFileSync(join(next, "a-list.idx")), "a-list.idx", "evidence");
  expect(written.columns.buckets).toBeDefined();
  expect(new EvidenceIndex(written).atStartOf(range)).toEqual({ count: 3, firstSeen: 1_700_000_000 });
});

import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataFilesAt, versionFiles } from "../../src/datasets/data-layout.ts";
import { CheckedFiles } from "../../src/datasets/checked-files.ts";
import { decodeEvidencePack, encodeEvidencePack, readEvidencePack } from "../../src/datasets/email-evidence-pack.ts";
import { type EmailLists, loadEmailLists, writeVersionEvidencePack } from "../../src/datasets/load-email-lists.ts";
import { compileEvidence } from "../../src/email/compiled-evidence.ts";
import { EVIDENCE_RULES } from "../../src/email/evidence-rule.ts";
import { LISTED_STRENGTHS } from "../../src/email/listed-names.ts";
import { DatasetError } from "../../src/ip/dataset-error.ts";
import { writeSectionedFile } from "../../src/ip/sectioned-file.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";

// The bundled version's email lists (its manifest, lists and evidence files), copied so that
// its compiled pack can be removed, damaged and written again.
const work = mkdtempSync(join(tmpdir(), "rk-evidence-pack-"));
const root = join(work, "datasets", "v1");
const bundled = dataFilesAt(BUNDLED_DATA_DIR);
mkdirSync(root, { recursive: true });
cpSync(bundled.manifest, join(root, "manifest.json"));
cpSync(join(bundled.current, "email"), join(root, "email"), { recursive: true });
const pack = versionFiles(root).emailEvidencePack;
rmSync(pack, { force: true });
afterAll(() => rmSync(work, { recursive: true, force: true }));

const load = (rule: (typeof EVIDENCE_RULES)[number]) => loadEmailLists(work, root, rule);
const sorted = (names: Iterable<string>) => [...names].sort();
const SAMPLE = ["mailinator.com", "10minutemail.com", "guerrillamail.com", "gmail.com", "yopmail.com", "example.com"];

function sameLists(a: EmailLists, b: EmailLists): void {
  const x = a.lists;
  const y = b.lists;
  expect(y.disposable.size).toBe(x.disposable.size);
  expect(sorted(y.disposable)).toEqual(sorted(x.disposable));
  expect(sorted(y.disposableWildcard)).toEqual(sorted(x.disposableWildcard));
  expect(sorted(y.disposableSuffixes)).toEqual(sorted(x.disposableSuffixes));
  expect(sorted(y.free)).toEqual(sorted(x.free));
  expect(y.belowEvidence).toBe(x.belowEvidence);
  expect(b.free).toEqual(a.free);
  const listings = (l: typeof x, name: string) =>
    [false, true].flatMap((wildcard) =>
      l.evidence
        .listings(name, wildcard)
        .map((s) => [s.source.name, s.source.verifies, [...s.source.copies], s.firstSeen]),
    );
  for (const name of [...SAMPLE, ...[...x.disposable].filter((_, i) => i % 5000 === 0)])
    expect(listings(y, name)).toEqual(listings(x, name));
}

describe("the compiled email lists of a version", async () => {
  const fromEvidence = await Promise.all(EVIDENCE_RULES.map(load));
  const written = await writeVersionEvidencePack(root);
  const fromPack = await Promise.all(EVIDENCE_RULES.map(load));

  test("are written for a version whose lists are kept apart", () => {
    expect(written).toBe(true);
    expect(existsSync(pack)).toBe(true);
  });

  test.each(EVIDENCE_RULES.map((rule, i) => [rule, i] as const))(
    "serve under %s exactly what compiling the evidence files at load serves",
    (_, i) => {
      expect(fromEvidence[i].lists.disposable.size).toBeGreaterThan(5_000);
      sameLists(fromEvidence[i], fromPack[i]);
    },
  );

  test("the rules differ on these lists, so the pack does not serve one rule for all", () => {
    const sizes = fromPack.map((e) => e.lists.disposable.size);
    expect(new Set(sizes).size).toBeGreaterThan(1);
    expect(fromPack.map((e) => e.lists.belowEvidence)).toEqual(fromEvidence.map((e) => e.lists.belowEvidence));
  });

  test("decode(encode(x)) keeps every list, name, first- and last-seen time, strength and family", () => {
    const compiled = compileEvidence([
      {
        name: "a",
        verifies: false,
        includes: [],
        wildcard: false,
        entries: new Map([
          ["x.com", 5],
          ["y.com", 0],
          ["m1.fam.com", 1],
          ["m2.fam.com", 1],
        ]),
        lastSeen: new Map([["x.com", 11]]),
        checkedAt: null,
      },
      {
        name: "b",
        verifies: true,
        includes: ["a"],
        wildcard: false,
        entries: new Map([["y.com", 7]]),
        checkedAt: "2026-01-01",
      },
      { name: "w", verifies: false, includes: [], wildcard: true, entries: new Map([["z.com", 9]]), checkedAt: null },
    ]);
    const back = decodeEvidencePack(encodeEvidencePack(compiled));
    expect([...back.exact.names]).toEqual(["x.com", "y.com", "m1.fam.com", "m2.fam.com"]);
    expect(back.evidence.listings("x.com", false)).toEqual([expect.objectContaining({ firstSeen: 5, lastSeen: 11 })]);
    expect(back.families).toEqual(compiled.families);
    expect(back.families.map((f) => f.domain)).toEqual(["fam.com"]);
    expect([...back.exact.strengths]).toEqual([...compiled.exact.strengths]);
    expect([...back.wildcard.names]).toEqual(["z.com"]);
    expect(
      back.evidence.listings("y.com", false).map((l) => [l.source.name, l.firstSeen, [...l.source.copies]]),
    ).toEqual([
      ["a", 0, []],
      ["b", 7, ["a"]],
    ]);
    expect(back.evidence.sources[1].checkedAt).toBe("2026-01-01");
  });

  test("a format-1 pack (before last-seen times and families) still reads, with neither", () => {
    const compiled = compileEvidence([
      { name: "a", verifies: false, includes: [], wildcard: false, entries: new Map([["x.com", 5]]), checkedAt: null },
    ]);
    // Format 1 as riskcheck wrote it: no last-seen section per list, no families in the index.
    const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const arrays = (p: { bytes: Uint8Array; starts: Uint32Array; slots: Int32Array }) => [p.bytes, p.starts, p.slots];
    const source = compiled.evidence.sources[0];
    const index = {
      sources: [
        {
          name: "a",
          verifies: false,
          copies: [],
          wildcard: false,
          checkedAt: null,
          size: 1,
          mask: source.entries.parts.mask,
        },
      ],
      exact: { size: compiled.exact.names.size, mask: compiled.exact.names.parts.mask },
      wildcard: { size: compiled.wildcard.names.size, mask: compiled.wildcard.names.parts.mask },
      suffixes: [],
    };
    const sections = [
      new TextEncoder().encode(JSON.stringify(index)),
      ...arrays(source.entries.parts),
      source.firstSeen,
      ...[compiled.exact, compiled.wildcard].flatMap((l) => [...arrays(l.names.parts), l.strengths]),
    ].map(bytesOf);
    const body = writeSectionedFile([0x50455352, 1, sections.length], sections);
    const file = new Uint8Array(body.length + 8);
    file.set(body);
    new DataView(file.buffer).setBigUint64(body.length, Bun.hash.xxHash3(body), true);
    const back = decodeEvidencePack(file);
    expect(back.evidence.listings("x.com", false)).toEqual([expect.objectContaining({ firstSeen: 5, lastSeen: 0 })]);
    expect(back.families).toEqual([]);
  });

  const intact = readFileSync(pack);
  const damagedBy = (change: (bytes: Uint8Array) => Uint8Array) => async () => {
    writeFileSync(pack, change(new Uint8Array(intact)));
    try {
      const error = await load("corroborated").then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(DatasetError);
      expect((error as DatasetError).file).toBe(pack);
      expect((error as DatasetError).message).toContain("damaged compiled email lists");
      expect((error as DatasetError).message).toContain("riskcheck update --force");
    } finally {
      writeFileSync(pack, intact);
    }
  };
  test(
    "a byte changed anywhere is refused, naming the file",
    damagedBy((b) => {
      b[Math.floor(b.length / 2)] ^= 0x20;
      return b;
    }),
  );
  test(
    "a file cut short is refused, naming the file",
    damagedBy((b) => b.subarray(0, b.length - 1000)),
  );
  test(
    "an empty file is refused, naming the file",
    damagedBy(() => new Uint8Array(0)),
  );

  test("a record that does not name this program's strengths lets no load skip their check", () => {
    const versions = join(work, "record");
    mkdirSync(versions, { recursive: true });
    const file = join(versions, "evidence.pack");
    const compiled = compileEvidence([
      { name: "a", verifies: false, includes: [], wildcard: false, entries: new Map([["x.com", 5]]), checkedAt: null },
    ]);
    // A strength a table one longer would know: the checksum matches, the code is not this program's.
    compiled.exact.strengths[0] = LISTED_STRENGTHS.length;
    writeFileSync(file, encodeEvidencePack(compiled));
    // As the builds before this one recorded a pack whose whole decode passed, under whatever table they had.
    const earlier = CheckedFiles.of(versions);
    earlier.note(file, "xxhash3");
    earlier.save();
    expect(() => readEvidencePack(file, CheckedFiles.of(versions))).toThrow(DatasetError);

    // What a full check records names every strength, so another table is another check.
    const intactCopy = join(versions, "intact.pack");
    writeFileSync(intactCopy, intact);
    const checked = CheckedFiles.of(versions);
    readEvidencePack(intactCopy, checked);
    checked.save();
    const record = Object.values(JSON.parse(readFileSync(join(versions, ".checked-files.json"), "utf8"))) as {
      check: string;
    }[];
    const checks = record.map((entry) => entry.check).filter((check) => check !== "xxhash3");
    expect(checks).toHaveLength(1);
    for (const strength of LISTED_STRENGTHS) expect(checks[0]).toContain(strength);
  });

  test("a version whose lists are not kept apart has none to write", async () => {
    const old = join(work, "datasets", "v0");
    mkdirSync(join(old, "email"), { recursive: true });
    expect(await writeVersionEvidencePack(old)).toBe(false);
    expect(existsSync(versionFiles(old).emailEvidencePack)).toBe(false);
  });
});

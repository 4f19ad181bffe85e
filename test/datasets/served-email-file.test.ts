import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataFilesAt } from "../../src/datasets/data-layout.ts";
import { prepareEmailPart } from "../../src/datasets/prepare-email.ts";
import {
  decodeServedEmail,
  readServedEmail,
  servedEmailFile,
  servedEmailKey,
  writeServedEmail,
} from "../../src/datasets/served-email-file.ts";
import { startFirstLoad } from "../../src/datasets/start-load.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { makeDataDir } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// Each case makes the bundled version's email lists at least once: seconds on a loaded machine.
setDefaultTimeout(scaled(60_000));

// The bundled version's email files and the data directory's operator files, copied so that each
// can be changed, damaged and written again.
const work = mkdtempSync(join(tmpdir(), "rk-served-email-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const bundled = dataFilesAt(BUNDLED_DATA_DIR);
let made = 0;

/** A data directory of its own, with the bundled version's email lists and the bundled operator files. */
function dataDir(): { dir: string; root: string } {
  const dir = join(work, `d${made++}`);
  const root = join(dir, "datasets", "v1");
  mkdirSync(root, { recursive: true });
  cpSync(bundled.manifest, join(root, "manifest.json"));
  cpSync(join(bundled.current, "email"), join(root, "email"), { recursive: true });
  rmSync(servedEmailFile(root), { force: true });
  cpSync(join(BUNDLED_DATA_DIR, "email"), join(dir, "email"), { recursive: true });
  return { dir, root };
}

/** Writes `text` as a new file over `file` (as an editor or `update` does), leaving the copy it came from alone. */
function replace(file: string, text: string | Uint8Array): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

describe("a version's served email lists", () => {
  test("are written by the load that makes them, and read by the next as the same lists", async () => {
    const { dir, root } = dataDir();
    expect(readServedEmail(dir, root, "corroborated")).toEqual({
      prepared: null,
      key: expect.any(String),
      damaged: null,
    });
    const made = await prepareEmailPart(dir, root, "corroborated");
    expect(statSync(servedEmailFile(root)).size).toBeGreaterThan(10_000);
    const read = readServedEmail(dir, root, "corroborated").prepared;
    expect(read).not.toBeNull();
    expect(read!.lists.free.size).toBeGreaterThan(1_000);
    expect(read!.lists.families.size).toBeGreaterThan(0);
    expect(read).toEqual(made);
    expect(await prepareEmailPart(dir, root, "corroborated")).toEqual(made);
  });

  test("are made again for whatever decides them: the rule, the operator's files, the version's lists", async () => {
    const { dir, root } = dataDir();
    const files = dataFilesAt(dir, root);
    await prepareEmailPart(dir, root, "corroborated");
    const keys = new Set([servedEmailKey(dir, root, "corroborated")]);
    const changes: [string, () => void][] = [
      ["the rule", () => {}],
      ["the operator's allowlist", () => replace(files.allowedDomains, "mailinator.com # ours\n")],
      ["the operator's free providers", () => replace(files.freeSupplement, "yopmail.com\n")],
      ["the version's free list", () => replace(files.freeDomains, "gmail.com\nexample-mail.org\n")],
      ["the version's held-back names", () => replace(files.disputedDomains, "guerrillamail.com\n")],
      ["the version's feed allowlist", () => rmSync(files.feedAllowedDomains)],
    ];
    for (const [what, change] of changes) {
      change();
      const rule = what === "the rule" ? "strict" : "any";
      const key = servedEmailKey(dir, root, rule)!;
      expect(keys.has(key), what).toBe(false);
      keys.add(key);
      // The file holds the last lists made, for other inputs: not read, and not damaged.
      expect(readServedEmail(dir, root, rule), what).toEqual({ prepared: null, key, damaged: null });
      const made = await prepareEmailPart(dir, root, rule);
      expect(readServedEmail(dir, root, rule).prepared, what).toEqual(made);
    }
    const served = (await prepareEmailPart(dir, root, "any")).lists;
    expect(served.allow.has("mailinator.com")).toBe(true);
    expect(served.heldBack.has("guerrillamail.com")).toBe(true);
    expect(served.freeSupplement.has("yopmail.com")).toBe(true);
  });

  test("are not made again when a file is only touched, and give its new date", async () => {
    const { dir, root } = dataDir();
    const files = dataFilesAt(dir, root);
    const made = await prepareEmailPart(dir, root, "corroborated");
    const key = servedEmailKey(dir, root, "corroborated");
    const later = new Date("2031-01-02T03:04:05.000Z");
    utimesSync(files.allowedDomains, later, later);
    expect(servedEmailKey(dir, root, "corroborated")).toBe(key);
    const read = readServedEmail(dir, root, "corroborated").prepared!;
    expect(read.allowList).toEqual({ modified: later.toISOString() });
    expect({ ...read, allowList: made.allowList }).toEqual(made);
  });

  test("a damaged file is refused naming it, and the lists are made again and written anew", async () => {
    const { dir, root } = dataDir();
    const file = servedEmailFile(root);
    const made = await prepareEmailPart(dir, root, "corroborated");
    const good = readFileSync(file);
    const flipped = new Uint8Array(good);
    flipped[Math.floor(good.length / 2)] ^= 0x20;
    // The free names' section said to run past the file, under a checksum that matches.
    const overlong = new Uint8Array(good);
    const view = new DataView(overlong.buffer);
    view.setUint32((3 + 1 * 2 + 1) * 4, good.length, true);
    view.setBigUint64(good.length - 8, Bun.hash.xxHash3(overlong.subarray(0, good.length - 8)), true);
    for (const [damage, bytes, why] of [
      ["a flipped byte", flipped, "its checksum does not match"],
      ["cut short", good.subarray(0, good.length - 100), "its checksum does not match"],
      ["a section past its end", overlong, "a section lies outside the file"],
      ["emptied", new Uint8Array(0), "too short"],
      ["another kind of file", new Uint8Array(good.length), "not a file of served email lists"],
    ] as const) {
      replace(file, bytes);
      const read = readServedEmail(dir, root, "corroborated");
      expect(read.prepared, damage).toBeNull();
      expect(read.prepared === null && read.damaged, damage).toBe(`${file}: ${why}`);
      const again = await prepareEmailPart(dir, root, "corroborated");
      expect(again.notes, damage).toEqual([
        `${file}: ${why}: the email lists were made again from the version's files, and the file written anew`,
      ]);
      expect({ ...again, notes: made.notes }, damage).toEqual(made);
      expect(readServedEmail(dir, root, "corroborated").prepared, damage).toEqual(made);
    }
  });

  test("are not written into a version pruned while they were made: its folder stays gone", async () => {
    const { dir, root } = dataDir();
    const key = servedEmailKey(dir, root, "corroborated")!;
    const made = await prepareEmailPart(dir, root, "corroborated");
    rmSync(root, { recursive: true });
    writeServedEmail(root, key, made);
    expect(existsSync(root)).toBe(false);
  });

  test("of another format are made again, without a word of damage", async () => {
    const { dir, root } = dataDir();
    const file = servedEmailFile(root);
    await prepareEmailPart(dir, root, "corroborated");
    const other = new Uint8Array(readFileSync(file));
    new DataView(other.buffer).setUint32(4, 99, true);
    expect(decodeServedEmail(other)).toBeNull();
    replace(file, other);
    expect(readServedEmail(dir, root, "corroborated")).toMatchObject({ prepared: null, damaged: null });
    expect((await prepareEmailPart(dir, root, "corroborated")).notes).toEqual([]);
    expect(readServedEmail(dir, root, "corroborated").prepared).not.toBeNull();
  });
});

describe("a first start's load", () => {
  /** Counts the Workers made while `run` runs: the dataset loader's are made with the global constructor. */
  async function workersMadeBy(run: () => Promise<unknown>): Promise<number> {
    const Original = globalThis.Worker;
    let count = 0;
    globalThis.Worker = class extends Original {
      constructor(...args: ConstructorParameters<typeof Worker>) {
        super(...args);
        count++;
      }
    };
    try {
      await run();
    } finally {
      globalThis.Worker = Original;
    }
    return count;
  }

  test("starts no Worker when the version's served lists match, and one when they do not", async () => {
    const dir = makeDataDir();
    try {
      const root = join(dir, readlinkSync(join(dir, "current")));
      rmSync(servedEmailFile(root), { force: true });
      const first = await workersMadeBy(() => startFirstLoad(dir, "corroborated").take());
      expect(readServedEmail(dir, root, "corroborated").prepared).not.toBeNull();
      const matching = await workersMadeBy(() => startFirstLoad(dir, "corroborated").take());
      const otherRule = await workersMadeBy(() => startFirstLoad(dir, "strict").take());
      expect([first, matching, otherRule]).toEqual([1, 0, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckedFiles } from "../../src/datasets/checked-files.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A versions folder with one data file in it. */
function folder(): { versions: string; file: string } {
  const versions = mkdtempSync(join(tmpdir(), "riskcheck-checked-"));
  dirs.push(versions);
  const file = join(versions, "table");
  writeFileSync(file, "the compiled bytes");
  return { versions, file };
}

/** `file` noted as checked by `check`, and the record saved, as a load does. */
function checkedOnce(versions: string, file: string, check = "crc32:1"): void {
  const checked = CheckedFiles.of(versions);
  checked.note(file, check);
  checked.save();
}

describe("the record of checked files", () => {
  test("a file checked and saved is passed by the next load, for that check only", () => {
    const { versions, file } = folder();
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(false);
    checkedOnce(versions, file);
    const next = CheckedFiles.of(versions);
    expect(next.passed(file, "crc32:1")).toBe(true);
    expect(next.passed(file, "crc32:2")).toBe(false);
    expect(next.passed(join(versions, "missing"), "crc32:1")).toBe(false);
  });

  test("a file written in place since, or replaced by another file, is checked whole again", () => {
    const { versions, file } = folder();
    checkedOnce(versions, file);
    writeFileSync(file, "the compiled bytez");
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(false);
    checkedOnce(versions, file);
    rmSync(file);
    writeFileSync(file, "the compiled bytes");
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(false);
  });

  test("what is noted but not saved is not trusted, and a damaged record is an empty one", () => {
    const { versions, file } = folder();
    CheckedFiles.of(versions).note(file, "crc32:1");
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(false);
    writeFileSync(join(versions, ".checked-files.json"), "{not json");
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(false);
    checkedOnce(versions, file);
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(true);
  });

  test("two loads that each noted a file, saving one after the other, keep both", () => {
    const { versions, file } = folder();
    const other = join(versions, "index");
    writeFileSync(other, "an index");
    const [a, b] = [CheckedFiles.of(versions), CheckedFiles.of(versions)];
    a.note(file, "crc32:1");
    b.note(other, "ranges:asn");
    a.save();
    b.save();
    const next = CheckedFiles.of(versions);
    expect([next.passed(file, "crc32:1"), next.passed(other, "ranges:asn")]).toEqual([true, true]);
  });

  test("a record that cannot be written is no error: the files are checked whole at the next load again", () => {
    const { versions, file } = folder();
    mkdirSync(join(versions, ".checked-files.json"));
    expect(() => checkedOnce(versions, file)).not.toThrow();
    expect(CheckedFiles.of(versions).passed(file, "crc32:1")).toBe(false);
  });

  test("the record names no path: an entry holds for every version folder that links the file", () => {
    const { versions, file } = folder();
    checkedOnce(versions, file);
    expect(readFileSync(join(versions, ".checked-files.json"), "utf8")).not.toContain("table");
  });
});

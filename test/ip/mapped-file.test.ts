import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eachPiece, mapDataFile } from "../../src/ip/mapped-file.ts";

const work = realpathSync(mkdtempSync(join(tmpdir(), "rk-mapped-")));
/** An immutable file (chattr +i): even root may not open it for writing, as a user may not a version written by another. */
const immutable = join(work, "immutable.bin");
afterAll(() => {
  Bun.spawnSync(["chattr", "-i", immutable]);
  rmSync(work, { recursive: true, force: true });
});

const bytes = Uint8Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 2654435761) >>> 24);
const mapsOf = () => readFileSync("/proc/self/maps", "utf8");

describe("a dataset file mapped from disk", () => {
  test("gives the file's bytes from a mapping of it, not a copy", () => {
    const file = join(work, "table.bin");
    writeFileSync(file, bytes);
    const mapped = mapDataFile(file);
    expect(mapped.mapped).toBe(true);
    expect(Buffer.from(mapped.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(mapsOf()).toContain(file);
    // Its arrays are views of it: a section at an 8-byte offset is a typed array as it lies.
    expect(new Uint32Array(mapped.bytes.buffer, 8, 2)[1]).toBe(new DataView(bytes.buffer).getUint32(12, true));
  });

  writeFileSync(immutable, bytes);
  const locked = Bun.spawnSync(["chattr", "+i", immutable]).exitCode === 0;
  test.if(locked)("a file that may not be opened for writing is read into memory instead, aligned", () => {
    const read = mapDataFile(immutable);
    expect(read.mapped).toBe(false);
    expect(read.bytes.byteOffset % 8).toBe(0);
    expect(Buffer.from(read.bytes).equals(Buffer.from(bytes))).toBe(true);
  });

  test("an empty file is no bytes; a missing one and a folder are named", () => {
    writeFileSync(join(work, "empty.bin"), "");
    expect(mapDataFile(join(work, "empty.bin")).bytes.byteLength).toBe(0);
    expect(() => mapDataFile(join(work, "none.bin"))).toThrow(`${join(work, "none.bin")}: missing`);
    mkdirSync(join(work, "folder"));
    expect(() => mapDataFile(join(work, "folder"))).toThrow(`${join(work, "folder")}: cannot be read (`);
  });
});

test("eachPiece reads the file in order through one small buffer: a checksum of it never touches a mapping", () => {
  const file = join(work, "pieces.bin");
  writeFileSync(file, bytes);
  const sizes: number[] = [];
  let crc32 = 0;
  eachPiece(file, (piece) => {
    sizes.push(piece.byteLength);
    crc32 = Bun.hash.crc32(piece, crc32);
  });
  expect(sizes).toEqual([1 << 20, 1 << 20, 1 << 20, 17]);
  expect(crc32).toBe(Bun.hash.crc32(bytes));
  expect(() => eachPiece(join(work, "none.bin"), () => {})).toThrow("missing");
});

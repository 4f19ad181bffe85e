import { describe, expect, test } from "bun:test";
import { PackedDomainSet } from "../../src/email/packed-domain-set.ts";

/** Deterministic names that share prefixes, suffixes and lengths, so hashes and probes collide. */
function names(count: number, seed: number): string[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-";
  return Array.from({ length: count }, () => {
    let label = "";
    for (let n = 1 + (next() % 6); n > 0; n--) label += alphabet[next() % 26];
    return `${label}.${["com", "net", "co.uk", "io"][next() % 4]}`;
  });
}

describe("PackedDomainSet", () => {
  test("answers like a Set for members, near misses and strangers", () => {
    const members = new Set(names(20_000, 1));
    const packed = new PackedDomainSet(members);
    expect(packed.size).toBe(members.size);
    const probes = [
      ...members,
      ...names(20_000, 2),
      ...[...members].slice(0, 2_000).flatMap((m) => [m.slice(1), `${m}x`, `x${m}`, m.toUpperCase()]),
    ];
    const wrong = probes.filter((p) => packed.has(p) !== members.has(p));
    expect(wrong).toEqual([]);
    expect(probes.filter((p) => packed.has(p)).length).toBeGreaterThan(members.size);
  });

  test("small sets, the empty name and input outside ASCII", () => {
    const packed = new PackedDomainSet(new Set(["a.io", "b.io"]));
    expect(["a.io", "b.io", "c.io", "", "a.i", "a.io.", "ä.io"].map((d) => packed.has(d))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(new PackedDomainSet(new Set()).has("a.io")).toBe(false);
  });

  test("refuses entries it could not store byte for byte", () => {
    expect(() => new PackedDomainSet(new Set(["ok.com", "bücher.de"]))).toThrow("not an ASCII domain name");
  });
});

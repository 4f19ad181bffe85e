import { describe, expect, test } from "bun:test";
import { Utf8Text } from "../../../src/ip/indexes/utf8-text.ts";

/** Every slice between character boundaries, as the whole string's `slice` gives it. */
function expectSlicesLikeString(text: string) {
  const bytes = new Utf8Text(new TextEncoder().encode(text));
  const boundaries = [0];
  for (const char of text) boundaries.push(boundaries[boundaries.length - 1] + char.length);
  for (const start of boundaries)
    for (const end of boundaries.filter((b) => b >= start))
      expect(bytes.slice(start, end)).toBe(text.slice(start, end));
}

/** `text`'s slices at the given UTF-16 ranges, read from its bytes, as String.slice gives them. */
function expectRangesLikeString(text: string, ranges: readonly (readonly [number, number])[]) {
  const bytes = new Utf8Text(new TextEncoder().encode(text));
  for (const [start, end] of ranges) expect(bytes.slice(start, end)).toBe(text.slice(start, end));
}

/** A deterministic generator of numbers in [0, 1) (mulberry32), the same texts on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const WIDE = ["é", "Ж", "€", "株", "😀", "𝄞"];
const RUNS = [64, 1024, 65536];

/**
 * ASCII with characters of two to four bytes put across, onto and just beside the ends of
 * 64 B, 1 KiB and 64 KiB runs. Runs are not aligned to the text: they start again after a
 * character that crosses the end of one, so each end is counted from the end of an earlier
 * character (mostly the last one) or from the text's start. Now and then a few characters
 * come in a row, with no ASCII between. Returns the text and the UTF-16 offset of each
 * character outside ASCII.
 */
function textAcrossRunEnds(random: () => number): { text: string; wide: number[] } {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const parts: string[] = [];
  const wide: number[] = [];
  const anchors = [0];
  let bytes = 0;
  let units = 0;
  const put = (char: string) => {
    wide.push(units);
    parts.push(char);
    bytes += Buffer.byteLength(char);
    units += char.length;
    anchors.push(bytes);
  };
  for (let count = 20 + Math.floor(random() * 20); count > 0; count--) {
    const char = pick(WIDE);
    const length = Buffer.byteLength(char);
    const anchor = random() < 0.7 ? anchors[anchors.length - 1] : pick(anchors);
    const run = bytes > 200_000 ? pick(RUNS.slice(0, 2)) : pick([...RUNS, 64, 1024]);
    const end = anchor + run * (run === 65536 ? 1 : 1 + Math.floor(random() * 3));
    // From ending a byte before the run end to starting a byte past it.
    const start = end - length - 1 + Math.floor(random() * (length + 3));
    const gap = start >= bytes ? start - bytes : Math.floor(random() * 100);
    parts.push(pick(["a", "b", "c"]).repeat(gap));
    bytes += gap;
    units += gap;
    put(char);
    if (random() < 0.2) for (let more = Math.floor(random() * 4); more > 0; more--) put(pick(WIDE));
  }
  parts.push("z".repeat(Math.floor(random() * 3000)));
  return { text: parts.join(""), wide };
}

/** `units`, moved inside the text and off the second half of a surrogate pair. */
function boundary(text: string, units: number): number {
  const inside = Math.max(0, Math.min(text.length, units));
  const code = text.charCodeAt(inside);
  return code >= 0xdc00 && code <= 0xdfff ? inside - 1 : inside;
}

describe("Utf8Text reads its bytes by UTF-16 offsets", () => {
  test("ASCII, two-, three- and four-byte characters", () => {
    expectSlicesLikeString("AS13335 Cloudflare Ünïcødé 株式会社 😀 OVH €");
  });

  test("wide characters far from the start, past the ASCII runs skipped whole", () => {
    const text = `${"a".repeat(3000)}Telefônica${"b".repeat(1021)}Ω𝄞${"c".repeat(2048)}Ж`;
    expectRangesLikeString(text, [
      [3000, 3010],
      [3005, 4035],
      [4031, 4034],
      [4034, 6082],
      [text.length - 1, text.length],
      [0, text.length],
    ]);
  });

  test("a 4-byte character across the end of all three runs at once, at 64 KiB", () => {
    // 😀 takes bytes 65535–65538. The runs after it start at 65539, where it ends, so é (65599–65600)
    // and € (66559–66561) lie inside a 64 B and a 1 KiB run; the random texts below cross those ends.
    const text = `${"a".repeat(65535)}😀${"b".repeat(60)}é${"c".repeat(958)}€${"d".repeat(70_000)}Ж`;
    expectRangesLikeString(text, [
      [65530, 65545],
      [65537, 65600],
      [65598, 65602],
      [66550, 66570],
      [text.length - 2, text.length],
      [0, text.length],
    ]);
  });

  test("random texts with characters at and around the ends of 64 B, 1 KiB and 64 KiB runs", () => {
    const mismatches: string[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      const { text, wide } = textAcrossRunEnds(seeded(seed));
      const encoded = new TextEncoder().encode(text);
      expect(new TextDecoder("utf-8", { fatal: true }).decode(encoded)).toBe(text);
      const bytes = new Utf8Text(encoded);
      const next = seeded(seed + 1_000);
      // Slices from either side of each character to either side of it or of one of the next two, and from anywhere.
      const near = (units: number) => boundary(text, units + Math.floor(next() * 5) - 2);
      for (let k = 0; k < wide.length; k++) {
        const far = wide[Math.min(wide.length - 1, k + Math.floor(next() * 3))];
        for (const [start, end] of [
          [near(wide[k]), near(wide[k])],
          [near(wide[k]), near(far)],
          [boundary(text, Math.floor(next() * text.length)), near(wide[k])],
        ]) {
          const [from, to] = start <= end ? [start, end] : [end, start];
          if (bytes.slice(from, to) !== text.slice(from, to)) mismatches.push(`seed ${seed}: slice(${from}, ${to})`);
        }
      }
      if (bytes.slice(0, text.length) !== text) mismatches.push(`seed ${seed}: the whole text`);
    }
    expect(mismatches).toEqual([]);
  });

  test("an empty text and a view that does not start its buffer", () => {
    expect(new Utf8Text(new Uint8Array(0)).slice(0, 0)).toBe("");
    const encoded = new TextEncoder().encode("xxé Orange");
    expect(new Utf8Text(encoded.subarray(2)).slice(1, 8)).toBe(" Orange");
  });
});

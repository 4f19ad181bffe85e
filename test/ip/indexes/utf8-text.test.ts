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

describe("Utf8Text reads its bytes by UTF-16 offsets", () => {
  test("ASCII, two-, three- and four-byte characters", () => {
    expectSlicesLikeString("AS13335 Cloudflare Ünïcødé 株式会社 😀 OVH €");
  });

  test("wide characters far from the start, past the ASCII runs skipped whole", () => {
    const text = `${"a".repeat(3000)}Telefônica${"b".repeat(1021)}Ω𝄞${"c".repeat(2048)}Ж`;
    const bytes = new Utf8Text(new TextEncoder().encode(text));
    for (const [start, end] of [
      [3000, 3010],
      [3005, 4035],
      [4031, 4034],
      [4034, 6082],
      [text.length - 1, text.length],
      [0, text.length],
    ])
      expect(bytes.slice(start, end)).toBe(text.slice(start, end));
  });

  test("characters across the edges of the long, middle and short runs", () => {
    // 😀 takes bytes 65535–65538 (across 64 KiB), é 65599–65600 (across 64 B), € 66559–66561 (across 1 KiB).
    const text = `${"a".repeat(65535)}😀${"b".repeat(60)}é${"c".repeat(958)}€${"d".repeat(70_000)}Ж`;
    const bytes = new Utf8Text(new TextEncoder().encode(text));
    for (const [start, end] of [
      [65530, 65545],
      [65537, 65600],
      [65598, 65602],
      [66550, 66570],
      [text.length - 2, text.length],
      [0, text.length],
    ])
      expect(bytes.slice(start, end)).toBe(text.slice(start, end));
  });

  test("an empty text and a view that does not start its buffer", () => {
    expect(new Utf8Text(new Uint8Array(0)).slice(0, 0)).toBe("");
    const encoded = new TextEncoder().encode("xxé Orange");
    expect(new Utf8Text(encoded.subarray(2)).slice(1, 8)).toBe(" Orange");
  });
});

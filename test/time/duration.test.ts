import { expect, test } from "bun:test";
import { formatDuration, parseDuration } from "../../src/time/duration.ts";

test("periods are printed as the settings spell them: 24h, not 1d; days from two on", () => {
  expect(formatDuration(parseDuration("24h")!)).toBe("24h");
  expect(formatDuration(parseDuration("1d")!)).toBe("24h");
  expect(formatDuration(parseDuration("90d")!)).toBe("90d");
  expect(formatDuration(parseDuration("48h")!)).toBe("2d");
  expect(formatDuration(parseDuration("12h")!)).toBe("12h");
  expect(formatDuration(parseDuration("90s")!)).toBe("90s");
  expect(formatDuration(parseDuration("30m")!)).toBe("30m");
  expect(formatDuration(1_500)).toBe("1500ms");
});

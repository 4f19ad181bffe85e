import { expect, test } from "bun:test";
import { parseDateText, sinceMs, untilMs, untilText } from "../../src/time/calendar-date.ts";

test("days that exist are days; those that do not are null, never rolled into the next month", () => {
  expect(parseDateText("2027-01-31")).toEqual({ day: true, startMs: Date.UTC(2027, 0, 31) });
  expect(parseDateText("2028-02-29")).toEqual({ day: true, startMs: Date.UTC(2028, 1, 29) });
  expect(parseDateText("2000-02-29")).not.toBeNull();
  for (const text of [
    "2027-02-30",
    "2027-02-29",
    "1900-02-29",
    "2027-04-31",
    "2027-13-01",
    "2027-00-10",
    "2027-01-00",
    "2027-1-5",
    "27-01-05",
    "",
    "2027-01-31 ",
    "tomorrow",
  ]) {
    expect(parseDateText(text)).toBeNull();
  }
});

test("instants need their offset and fields in range", () => {
  expect(parseDateText("2027-01-31T18:30:00Z")).toEqual({ day: false, ms: Date.UTC(2027, 0, 31, 18, 30) });
  expect(parseDateText("2027-01-31T18:30+02:00")).toEqual({ day: false, ms: Date.UTC(2027, 0, 31, 16, 30) });
  expect(parseDateText("2027-01-31T18:30:00.250Z")).toEqual({ day: false, ms: Date.UTC(2027, 0, 31, 18, 30, 0, 250) });
  for (const text of [
    "2027-01-31T24:00:00Z",
    "2027-01-31T12:60:00Z",
    "2027-01-31T12:00:61Z",
    "2027-02-30T00:00:00Z",
    "2027-01-31T12:00:00",
    "2027-01-31T12:00:00+24:00",
  ]) {
    expect(parseDateText(text)).toBeNull();
  }
});

test("a day given as --until includes the day; as --since starts it; an expiry reads back as it was given", () => {
  const day = parseDateText("2027-01-31")!;
  expect(new Date(untilMs(day)).toISOString()).toBe("2027-02-01T00:00:00.000Z");
  expect(new Date(sinceMs(day)).toISOString()).toBe("2027-01-31T00:00:00.000Z");
  expect(untilText(new Date(untilMs(day)).toISOString())).toBe("2027-01-31");
  expect(untilText("2027-01-31T18:30:00.000Z")).toBe("2027-01-31T18:30:00.000Z");
});

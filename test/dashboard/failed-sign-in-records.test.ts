import { expect, test } from "bun:test";
import { FailedSignInRecords, unrecordedText } from "../../src/dashboard/failed-sign-in-records.ts";

const t0 = Date.UTC(2026, 10, 28, 12);

test("30 failed sign-ins a minute are recorded one by one; the rest are counted and go with the next one recorded", () => {
  const records = new FailedSignInRecords();
  for (let i = 0; i < 30; i++)
    expect(records.failure(`198.51.100.${i}`, t0 + i)).toEqual({ failures: 0, addresses: 0 });
  for (let i = 0; i < 12; i++) expect(records.failure(`203.0.113.${i % 4}`, t0 + 100 + i)).toBeNull();
  // A minute later the first failure is recorded again, with the count of the twelve.
  const carried = records.failure("192.0.2.1", t0 + 60_000);
  expect(carried).toEqual({ failures: 12, addresses: 4 });
  expect(unrecordedText(carried!)).toBe(
    "before it, 12 more failed sign-in(s) from 4 address(es) were counted, not recorded one by one (over 30 a minute)",
  );
  expect(records.failure("192.0.2.1", t0 + 60_001)).toEqual({ failures: 0, addresses: 0 });
  expect(unrecordedText({ failures: 0, addresses: 0 })).toBeNull();
});

test("a successful sign-in takes the count with it; a flood from ever-new addresses counts at most 10,000 of them", () => {
  const records = new FailedSignInRecords();
  for (let i = 0; i < 30; i++) records.failure("198.51.100.1", t0);
  for (let i = 0; i < 12_000; i++) records.failure(`10.0.${i >> 8}.${i & 255}`, t0 + 1);
  const carried = records.success();
  expect(carried).toEqual({ failures: 12_000, addresses: 10_000 });
  expect(unrecordedText(carried)).toContain("12000 more failed sign-in(s) from at least 10000 address(es)");
  expect(records.success()).toEqual({ failures: 0, addresses: 0 });
});

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { Answers, ipItem } from "../../src/checks/answers.ts";
import { API_ERRORS } from "../../src/http/errors.ts";
import { testSnapshot } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The snapshot loads the bundled IP data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

describe("one value in, its answer or its item error out", () => {
  test("a value that is no address, of any type, is the item error the GET endpoint gives it, with the input as given", async () => {
    const answers = new Answers(await testSnapshot(), false);
    for (const input of ["not-an-address", "", 42, null, ["a@gmail.com"]]) {
      expect(answers.email(input)).toEqual({
        input,
        error: API_ERRORS.invalidEmail.error,
        message: API_ERRORS.invalidEmail.message,
      });
    }
    for (const input of ["1.2.3", "01.2.3.4", 7, null, { ip: "8.8.8.8" }]) {
      expect(answers.ip(input)).toEqual({
        input,
        error: API_ERRORS.invalidIp.error,
        message: API_ERRORS.invalidIp.message,
      });
      expect(ipItem(input)).toEqual(answers.ip(input) as never);
    }
  });

  test("an address is looked up only when global unicast; explaining adds the reasons", async () => {
    const snapshot = await testSnapshot();
    const plain = new Answers(snapshot, false);
    const explained = new Answers(snapshot, true);
    const google = plain.ip("8.8.8.8");
    const lan = plain.ip("10.1.2.3");
    if ("error" in google || "error" in lan) throw new Error("both are addresses");
    expect([google.facts === null, lan.facts === null]).toEqual([false, true]);
    expect(JSON.parse(plain.ipJson(google))).toMatchObject({ ip: "8.8.8.8", country_code: "US" });
    expect(JSON.parse(plain.ipJson(google)).reputation.reasons).toBeUndefined();
    expect(JSON.parse(explained.ipJson(google)).reputation.reasons).toBeDefined();
    expect(plain.ipReasonsJson(lan)).toBe("");
    const jane = plain.email("jane@gmail.com");
    if ("error" in jane) throw new Error("an address");
    expect(JSON.parse(plain.emailJson(jane))).toEqual({
      email: "jane@gmail.com",
      is_disposable: false,
      domain: "gmail.com",
      free_email: true,
    });
    expect(JSON.parse(explained.emailJson(jane)).reasons).toMatchObject({ rule: "not-listed" });
  });
});

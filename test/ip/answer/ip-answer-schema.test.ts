import { describe, expect, test } from "bun:test";
import { emailAnswerJson, explainedEmailAnswerJson } from "../../../src/email/email-answer.ts";
import { EmailAnswerSchema, EmailReasonsSchema } from "../../../src/email/email-answer-schema.ts";
import { freeListNames } from "../../../src/datasets/snapshot.ts";
import { loadSnapshot } from "../../../src/datasets/load-snapshot.ts";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { ExplanationSchema } from "../../../src/ip/answer/explanation-schema.ts";
import { AnsweredReputationSchema, IpAnswerSchema } from "../../../src/ip/answer/ip-answer-schema.ts";
import { ipAnswerJson } from "../../../src/ip/answer/ip-answer.ts";
import { DEFAULT_THRESHOLDS } from "../../../src/ip/verdict/reputation.ts";
import { emailAnswer } from "../../../src/email/email-answer.ts";
import { BUNDLED_DATA_DIR } from "../../support/bundled-data.ts";

/** The real datasets `npm install` wrote, as the server loads them. */
const { snapshot } = await loadSnapshot(BUNDLED_DATA_DIR, DEFAULT_THRESHOLDS);

const fields = (schema: { properties: object }) => Object.keys(schema.properties);
const keysOf = (json: string, path: string[] = []) =>
  Object.keys(path.reduce((value, key) => value[key], JSON.parse(json)));

/** Addresses of every sort: located to a city, to a country only, anycast, IPv6, in no database. */
const ADDRESSES = [
  "81.2.69.142",
  "8.8.8.8",
  "1.1.1.1",
  "2a03:2880:f10c:83:face:b00c:0:25de",
  "203.0.113.7",
  "57.1.2.3",
];

describe("the IP answer's hand-written JSON has exactly the schema's fields, in the schema's order", () => {
  test.each(ADDRESSES)("%s", (text) => {
    const ip = parseIpAddress(text)!;
    const json = ipAnswerJson(snapshot.ip, ip, null);
    const written = keysOf(json);
    // The one optional field: the private answer has no flag.
    expect(written).toEqual(fields(IpAnswerSchema).filter((f) => written.includes("flag") || f !== "flag"));
    expect(keysOf(json, ["reputation"])).toEqual(fields(AnsweredReputationSchema).filter((f) => f !== "reasons"));
  });

  test("a global address has the flag; one that is not global unicast has none", () => {
    expect(keysOf(ipAnswerJson(snapshot.ip, parseIpAddress("81.2.69.142")!, null))).toEqual(fields(IpAnswerSchema));
    expect(keysOf(ipAnswerJson(snapshot.ip, parseIpAddress("10.0.0.1")!, null))).not.toContain("flag");
  });

  test("with ?explain=1 the reputation ends with its reasons, of the schema's required fields in order", () => {
    const json = ipAnswerJson(snapshot.ip, parseIpAddress("8.8.8.8")!, snapshot.sources);
    expect(keysOf(json, ["reputation"])).toEqual(fields(AnsweredReputationSchema));
    const reasons = keysOf(json, ["reputation", "reasons"]);
    expect(reasons.filter((f) => (ExplanationSchema.required as string[]).includes(f))).toEqual(
      ExplanationSchema.required,
    );
    expect(reasons.filter((f) => !fields(ExplanationSchema).includes(f))).toEqual([]);
  });
});

describe("the email answer's hand-written JSON has exactly the schema's fields, in the schema's order", () => {
  test.each(["someone@mailinator.com", "someone@gmail.com", "x@пример.com", "a.b+c@example-corp.com"])(
    "%s",
    (email) => {
      const answer = emailAnswer(snapshot.email, email)!;
      expect(keysOf(emailAnswerJson(answer))).toEqual(fields(EmailAnswerSchema).filter((f) => f !== "reasons"));
      const explained = explainedEmailAnswerJson(snapshot.email, answer, freeListNames(snapshot));
      expect(keysOf(explained)).toEqual(fields(EmailAnswerSchema));
      const reasons = keysOf(explained, ["reasons"]);
      expect(reasons.filter((f) => (EmailReasonsSchema.required as string[]).includes(f))).toEqual(
        EmailReasonsSchema.required,
      );
      expect(reasons.filter((f) => !fields(EmailReasonsSchema).includes(f))).toEqual([]);
    },
  );
});

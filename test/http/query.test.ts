import { describe, expect, test } from "bun:test";
import { queryParam } from "../../src/http/query.ts";

const base = "http://h/v1/check";

describe("query parameters are percent-decoded only", () => {
  test.each([
    ["?email=user+tag@gmail.com", { value: "user+tag@gmail.com" }],
    ["?email=user%2Btag%40gmail.com", { value: "user+tag@gmail.com" }],
    ["?email=a,b@c.com", { value: "a,b@c.com" }],
    ["?email=a%20b@c.com", { value: "a b@c.com" }],
    ["?x=1&email=a@b.com&y=2", { value: "a@b.com" }],
    ["?%65mail=a@b.com", { value: "a@b.com" }],
    ["?email=", { value: "" }],
    ["?email", { value: "" }],
    ["?email=a@b.com#frag", { value: "a@b.com" }],
    ["?emails=a@b.com", "absent"],
    ["", "absent"],
    ["?", "absent"],
    ["?email=a@b.com&email=c@d.com", "repeated"],
    ["?email=%E0%A4%A", "malformed"],
    ["?email=%zz", "malformed"],
  ])("%s", (query, expected) => {
    expect(queryParam(base + query, "email")).toEqual(expected as never);
  });
});

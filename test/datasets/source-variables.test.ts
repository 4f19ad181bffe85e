import { expect, test } from "bun:test";
import { SourcesError, expand, parseSources } from "../../src/datasets/update/sources.ts";

const source = (fields: object) =>
  JSON.stringify({
    sources: [
      {
        name: "feed",
        format: "address-list",
        feeds: "attack",
        licence: "test",
        url: "https://feeds.example/list.txt",
        ...fields,
      },
    ],
  });

test("a sources file may read only variables named for sources, in its URLs, headers and requires", () => {
  const refused = [
    { url: "https://feeds.example/list.txt?k=${RISKCHECK_ADMIN_PASSWORD}" },
    { headers: { authorization: "Bearer ${RISKCHECK_DATABASE_URL}" } },
    { requires: ["AWS_SECRET_ACCESS_KEY"] },
  ];
  for (const fields of refused) expect(() => parseSources(source(fields), "sources.json")).toThrow(SourcesError);
  expect(() => parseSources(source(refused[0]), "sources.json")).toThrow(
    "sources.json: sources[0].url: ${RISKCHECK_ADMIN_PASSWORD} is not a variable a source may read; only RISKCHECK_SOURCE_… and MAXMIND_… variables are read",
  );
  const allowed = parseSources(
    source({
      url: "https://${MAXMIND_ACCOUNT_ID}:${MAXMIND_LICENSE_KEY}@feeds.example/x",
      headers: { "x-key": "${RISKCHECK_SOURCE_FEED_KEY}" },
      requires: ["RISKCHECK_SOURCE_FEED_KEY"],
    }),
    "sources.json",
  );
  expect(allowed).toHaveLength(1);
});

test("expand never reads another variable, even from a source that was not checked", () => {
  const env = { RISKCHECK_ADMIN_PASSWORD: "hunter2 hunter2", RISKCHECK_SOURCE_KEY: "k1" };
  expect(expand("https://x.example/?p=${RISKCHECK_ADMIN_PASSWORD}", env)).toBeNull();
  expect(expand("https://x.example/?k=${RISKCHECK_SOURCE_KEY}", env)).toBe("https://x.example/?k=k1");
});

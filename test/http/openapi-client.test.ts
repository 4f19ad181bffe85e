import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "json-schema-to-typescript";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import {
  ASSESS_EXAMPLES,
  BATCH_EXAMPLES,
  OVERRIDE_EXAMPLES,
  POLICY_EXAMPLES,
  REPORT_EXAMPLES,
} from "../../src/http/openapi-examples.ts";
import { openApiJson } from "../../src/http/openapi-document.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { createTestApp } from "../support/test-app.ts";

/**
 * A typed client made from /openapi.json alone: a type for each operation's answer by status
 * (json-schema-to-typescript over the document's schemas, `$ref`s to its components), and a
 * function per operationId returning them. Real answers of the app, assigned to those types,
 * must type-check with tsc; an answer with a field missing or one too many must not.
 */

type Json = Record<string, any>;
const document: Json = JSON.parse(openApiJson());
const dir = mkdtempSync(join(tmpdir(), "riskcheck-openapi-client-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const typeName = (operationId: string, status: string) =>
  `${operationId[0].toUpperCase()}${operationId.slice(1)}${status}`;

/**
 * The document's schemas with their refs pointing into one JSON Schema's `$defs`, each titled by
 * its name. A schema that says nothing of its value (`{"description": …}`: any JSON) is `unknown`,
 * which json-schema-to-typescript would otherwise read as an object.
 */
function withDefs(schema: Json): Json {
  const $defs = Object.fromEntries(
    Object.entries(document.components.schemas as Json).map(([name, s]) => [name, { ...s, title: name }]),
  );
  return JSON.parse(JSON.stringify({ ...schema, $defs }).replaceAll("#/components/schemas/", "#/$defs/"), (_, value) =>
    value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).every((k) => k === "description")
      ? { ...value, tsType: "unknown" }
      : value,
  );
}

/** The client's source: every JSON answer's type, and one function per operation. */
async function clientSource(): Promise<string> {
  const parts: string[] = [];
  const functions: string[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(document.paths as Json))
    for (const [method, operation] of Object.entries(item as Json)) {
      const answers: string[] = [];
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const resolved = response.$ref ? document.components.responses[response.$ref.split("/").pop()] : response;
        const schema = resolved.content?.["application/json"]?.schema;
        if (!schema) continue;
        const name = typeName(operation.operationId, status);
        const source = await compile(withDefs({ ...schema, title: name }), name, {
          bannerComment: "",
          additionalProperties: false,
          declareExternallyReferenced: true,
          format: false,
        });
        // Each compile declares the components it reaches: keep each declaration once.
        for (const declaration of source.split(/\n(?=export )/))
          if (declaration.trim() && !seen.has(declaration.split(/[ =<{]/, 3).join(" "))) {
            seen.add(declaration.split(/[ =<{]/, 3).join(" "));
            parts.push(declaration);
          }
        answers.push(`{ status: ${status}; body: ${name} }`);
      }
      functions.push(
        `/** ${method.toUpperCase()} ${path} */\nexport declare function ${operation.operationId}(init?: RequestInit): Promise<${answers.join(" | ") || "void"}>;`,
      );
    }
  return [...parts, ...functions].join("\n");
}

/** The answers of a real app on the bundled data, each with the operation and status it is an answer of. */
async function realAnswers(): Promise<{ operationId: string; status: number; body: unknown }[]> {
  const { snapshot } = await loadSnapshot(BUNDLED_DATA_DIR, DEFAULT_THRESHOLDS);
  const t = await createTestApp({ snapshot, ratePerMinute: 600, rateBurst: 100, ipQuotaPerMonth: 1000 });
  const checker = (await t.newKey("checker")).secret;
  const reporter = (await t.newKey("reporter", { permissions: ["report"] })).secret;
  const manager = (await t.newKey("manager", { permissions: ["manage"] })).secret;
  const asked: [string, string, { key?: string; method?: string; body?: string }][] = [
    ["checkEmail", "/v1/check?email=someone@mailinator.com", { key: checker }],
    ["checkEmail", "/v1/check?email=someone@gmail.com&explain=1", { key: checker }],
    ["checkEmail", "/v1/check", { key: checker }],
    ["checkEmail", "/v1/check?email=a@gmail.com", {}],
    ["checkIp", "/v1/ip-reputation-check?ip=81.2.69.142", { key: checker }],
    ["checkIp", "/v1/ip-reputation-check?ip=8.8.8.8&explain=1", { key: checker }],
    ["checkIp", "/v1/ip-reputation-check?ip=10.1.2.3", { key: checker }],
    ["checkIp", "/v1/ip-reputation-check?ip=1.2.3", { key: checker }],
    [
      "checkBatch",
      "/v1/check/batch?explain=1",
      { key: checker, method: "POST", body: JSON.stringify(BATCH_EXAMPLES.request) },
    ],
    ["report", "/v1/reports", { key: reporter, method: "POST", body: JSON.stringify(REPORT_EXAMPLES.request) }],
    ["addOverride", "/v1/overrides", { key: manager, method: "POST", body: JSON.stringify(OVERRIDE_EXAMPLES.request) }],
    ["listOverrides", "/v1/overrides", { key: manager }],
    ["assess", "/v1/assess?email=someone@mailinator.com&ip=8.8.8.8&event=signup", { key: checker }],
    [
      "assessPost",
      "/v1/assess?explain=1",
      { key: checker, method: "POST", body: JSON.stringify(ASSESS_EXAMPLES.request) },
    ],
    ["assess", "/v1/assess", { key: checker }],
    ["addRule", "/v1/policy/rules", { key: manager, method: "POST", body: JSON.stringify(POLICY_EXAMPLES.rule) }],
    [
      "addRule",
      "/v1/policy/rules",
      { key: manager, method: "POST", body: JSON.stringify(POLICY_EXAMPLES.refusedRule.request) },
    ],
    [
      "changeRule",
      `/v1/policy/rules/${POLICY_EXAMPLES.rule.id}`,
      { key: manager, method: "PATCH", body: '{"mode":"enforce"}' },
    ],
    ["getPolicy", "/v1/policy", { key: manager }],
    ["health", "/healthz", {}],
    ["about", "/v1/about", {}],
  ];
  const answers = [];
  for (const [operationId, path, init] of asked) {
    const res = await t.request(path, init);
    answers.push({ operationId, status: res.status, body: await res.json() });
  }
  return answers;
}

/** tsc over the client and the files given; its diagnostics, one per line. */
function typeCheck(files: Record<string, string>): string[] {
  writeFileSync(join(dir, "client.ts"), clientText);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: "ESNext",
      module: "Preserve",
      skipLibCheck: true,
      lib: ["ESNext", "DOM"],
    },
    files: ["client.ts", ...Object.keys(files)],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = join(import.meta.dir, "../../node_modules/typescript/bin/tsc");
  const run = Bun.spawnSync([process.execPath, tsc, "-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
    timeout: 60_000,
  });
  return run.stdout
    .toString()
    .split("\n")
    .filter((line) => line.includes("error TS"));
}

const clientText = await clientSource();
const answers = await realAnswers();
const assigned = (list: typeof answers) =>
  `import type * as Api from "./client.ts";\n${list
    .map(
      (a, i) =>
        `export const answer${i}: Api.${typeName(a.operationId, String(a.status))} = ${JSON.stringify(a.body)};`,
    )
    .join("\n")}\n`;

test("the client has a function for every operation, and a type for every JSON answer the document names", () => {
  expect(clientText).toContain("export declare function checkIp(");
  expect(clientText).toContain("export interface CheckIp200");
  expect(answers.map((a) => a.status)).toEqual([
    200, 200, 400, 401, 200, 200, 200, 400, 200, 200, 201, 200, 200, 200, 400, 201, 400, 200, 200, 200, 200,
  ]);
  expect(clientText).toContain("export declare function assess(");
  expect(clientText).toContain("export interface AddRule201");
});

test("real answers type-check against the client made from the document; a wrong one does not", () => {
  const email = answers[0].body as Record<string, unknown>;
  const { domain: _, ...withoutDomain } = email;
  const wrong = [
    { operationId: "checkEmail", status: 200, body: withoutDomain },
    { operationId: "checkEmail", status: 200, body: { ...email, score: 1 } },
  ];
  const diagnostics = typeCheck({ "answers.ts": assigned(answers), "wrong.ts": assigned(wrong) });
  const inWrong = (line: string) => line.includes("wrong.ts(");
  expect(diagnostics.filter((line) => !inWrong(line))).toEqual([]);
  expect(diagnostics.filter(inWrong)).toEqual([
    expect.stringContaining("Property 'domain' is missing"),
    expect.stringContaining("'\"score\"' does not exist"),
  ]);
}, 120_000);

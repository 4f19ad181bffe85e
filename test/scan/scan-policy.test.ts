import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { CompiledPolicy } from "../../src/assess/compiled-policy.ts";
import { parseRuleSet } from "../../src/assess/parse-policy.ts";
import { type ScanOptions, scan } from "../../src/scan/scan.ts";
import { runCli } from "../support/processes.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { testSnapshot } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// The CLI tests start a process that loads the bundled data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const snapshot = await testSnapshot();
const NOW = Date.UTC(2026, 10, 23, 12);

const RULES = {
  rules: [
    {
      id: "disposable-hosting",
      conditions: {
        all: [
          { field: "email.disposable", op: "is", value: true },
          { field: "ip.kind", op: "has", value: "hosting" },
        ],
      },
      decision: "block",
      reason: "a throwaway address from a data centre",
      mode: "shadow",
    },
    {
      id: "uk",
      conditions: { any: [{ field: "ip.country", op: "equals", value: "GB" }] },
      decision: "allow",
      reason: "our home market",
      mode: "enforce",
    },
    {
      id: "payments-only",
      conditions: { all: [{ field: "event", op: "equals", value: "payment" }] },
      decision: "challenge",
      reason: "never matches a sign-up",
      mode: "enforce",
    },
  ],
};
const policy = (rules: unknown = RULES) =>
  CompiledPolicy.inForce(parseRuleSet(rules, { author: "t", nowMs: NOW }), NOW);

const CSV = [
  "id,email,signup_ip",
  "1,jane@gmail.com,81.2.69.142",
  "2,bob@mailinator.com,8.8.8.8",
  "3,carol@stripe.com,",
  "4,dan@,10.1.2.3",
  '5,"x"y,1.1.1.1',
  "6,,",
  "7,eve@mailinator.com,5.188.10.1",
  "",
].join("\n");

async function run(text: string, options: Partial<ScanOptions> = {}) {
  let out = "";
  const input = (async function* () {
    yield new TextEncoder().encode(text);
  })();
  const summary = await scan(input, { write: (t) => void (out += t) }, snapshot, {
    explain: false,
    onlyRisky: false,
    columns: {},
    policy: { compiled: policy(), event: "signup" },
    ...options,
  });
  return { summary, lines: out.split("\n").filter(Boolean) };
}

describe("scan --policy: a decision per row", () => {
  test("CSV: decision, score, reason codes, deciding rule and shadow rules after the answers' fields", async () => {
    const { lines } = await run(CSV);
    expect(lines[0]).toEndWith(",error,message,decision,score,reasons,rule,shadow");
    const tails = lines.slice(1).map((l) => l.split(",").slice(-5).join(","));
    expect(tails).toEqual([
      "allow,0,,uk,",
      "challenge,80,email.disposable;ip.reputation.informative;ip.kind.hosting,,disposable-hosting",
      "allow,0,,,",
      ",,,,",
      ",,,,",
      ",,,,",
      "challenge,60,email.disposable,,",
    ]);
    // The invalid email, the unreadable row and the row without values get none; the invalid one keeps its error.
    expect(lines[4]).toContain("invalid_email,The provided email address is not valid,,,,,");
    expect(lines[5]).toContain("unreadable_row");
  });

  test("the summary: decisions, rows not assessed, and per rule what it decided or would have", async () => {
    const { summary } = await run(CSV);
    expect(summary.toJSON()).toMatchObject({
      decisions: { allow: 2, challenge: 2, block: 0, not_assessed: 3 },
      rules: [
        { id: "disposable-hosting", mode: "shadow", decision: "block", decided: 0, would_decide: 1, would_change: 1 },
        { id: "uk", mode: "enforce", decision: "allow", decided: 1, would_decide: 0, would_change: 0 },
        { id: "payments-only", mode: "enforce", decision: "challenge", decided: 0, would_decide: 0, would_change: 0 },
      ],
    });
    expect(summary.policyLines()).toEqual([
      `decisions, policy ${policy().version}:`,
      "  allow                                                 2",
      "  challenge                                             2",
      "  block                                                 0",
      "  not assessed (unreadable, an invalid value, or none)  3",
      "rules, in order:",
      "  disposable-hosting (shadow, block): would have decided 1, changing 1",
      "  uk (enforce, allow): decided 1",
      "  payments-only (enforce, challenge): decided 0",
    ]);
  });

  test("the event label is the rules' event; the shadow rule switched to enforce changes only the decision", async () => {
    const enforced = {
      rules: RULES.rules.map((r) => (r.id === "disposable-hosting" ? { ...r, mode: "enforce" } : r)),
    };
    const { lines } = await run(CSV, { policy: { compiled: policy(enforced), event: "payment" } });
    const before = (await run(CSV)).lines;
    expect(lines[2].split(",").slice(-5).join(",")).toBe(
      "block,80,email.disposable;ip.reputation.informative;ip.kind.hosting,disposable-hosting,",
    );
    expect(lines[2].split(",").slice(0, -5)).toEqual(before[2].split(",").slice(0, -5));
    expect(lines[3].split(",").slice(-5).join(",")).toBe("challenge,0,,payments-only,");
  });

  test("JSON Lines: the decision beside the row's answers, null where the row got none", async () => {
    const { lines } = await run('{"email":"bob@mailinator.com","ip":"8.8.8.8"}\n{"email":"x@"}\n', { format: "jsonl" });
    const [first, second] = lines.map((l) => JSON.parse(l));
    expect(first.assessment).toMatchObject({
      decision: "challenge",
      score: 80,
      rule: null,
      policy: policy().version,
      event: "signup",
      shadow: [{ id: "disposable-hosting", decision: "block", mode: "shadow" }],
    });
    expect(first.assessment.reasons[0]).toEqual({
      code: "email.disposable",
      weight: 60,
      fact: "mailinator.com is a disposable-mail domain",
    });
    expect(second.assessment).toBeNull();
  });

  test("without --policy nothing changes: no decision columns, no assessment", async () => {
    const { lines, summary } = await run(CSV, { policy: null });
    expect(lines[0]).toEndWith(",kind,error,message");
    expect(summary.policyLines()).toEqual([]);
    expect(summary.toJSON()).not.toHaveProperty("decisions");
  });
});

describe("riskcheck scan --policy FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "riskcheck-scan-policy-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const users = join(dir, "users.csv");
  writeFileSync(users, CSV);
  const DATA = ["--data-dir", BUNDLED_DATA_DIR, "--db", join(dir, "none.sqlite")];

  test("decides every row and prints the decisions' summary", () => {
    const file = join(dir, "policy.json");
    writeFileSync(file, JSON.stringify(RULES));
    const out = join(dir, "decided.csv");
    const { code, stdout, stderr } = runCli(["scan", users, "--policy", file, "--out", out, ...DATA]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8").split("\n")[2]).toEndWith(
      ",challenge,80,email.disposable;ip.reputation.informative;ip.kind.hosting,,disposable-hosting",
    );
    expect(stdout).toMatch(/^decisions, policy default-1\+[0-9a-f]{8}:$/m);
    expect(stdout).toMatch(/^ {2}challenge\s+2$/m);
    expect(stdout).toContain("  disposable-hosting (shadow, block): would have decided 1, changing 1\n");
  });

  test("a file that does not parse is refused whole, naming the rule and the field; exit 2, nothing written", () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        rules: [
          { ...RULES.rules[1], id: "uk", conditions: { all: [{ field: "ip.countries", op: "in", value: ["GB"] }] } },
        ],
      }),
    );
    const out = join(dir, "never.csv");
    const { code, stderr } = runCli(["scan", users, "--policy", file, "--out", out, ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `--policy ${file} is refused:\n  rule "uk" (#1): conditions.all[0].field: unknown field "ip.countries"`,
    );
    expect(() => readFileSync(out)).toThrow();
    writeFileSync(file, "{rules: []}");
    expect(runCli(["scan", users, "--policy", file, ...DATA]).stderr).toContain("(file): not JSON");
    expect(runCli(["scan", users, "--policy", join(dir, "missing.json"), ...DATA]).stderr).toContain("no such file");
  });

  test("--event needs --policy, and is a label", () => {
    expect(runCli(["scan", users, "--event", "login", ...DATA])).toMatchObject({ code: 2 });
    const file = join(dir, "empty.json");
    writeFileSync(file, '{"rules": []}');
    const { code, stderr } = runCli(["scan", users, "--policy", file, "--event", "log in", ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain('--event "log in": an event label');
  });
});

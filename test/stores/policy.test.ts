import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { PolicyError } from "../../src/assess/parse-policy.ts";
import {
  PolicyBusy,
  RuleNotFound,
  editPolicy,
  moveRule,
  putRule,
  removeRule,
  replaceRules,
  setMode,
} from "../../src/assess/policy-edits.ts";
import type { PolicyStore } from "../../src/assess/policy-store.ts";
import { PolicyWatch } from "../../src/assess/policy-watch.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(20_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

const NOW = Date.UTC(2026, 10, 25, 12);
const DEFAULTS = { author: "ops", nowMs: NOW };
const rule = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  conditions: { all: [{ field: "ip.kind", op: "has", value: "vpn" }] },
  decision: "challenge",
  reason: `why ${id}`,
  ...extra,
});
const ids = async (store: PolicyStore) => (await store.read()).rules.map((r) => `${r.id}:${r.mode}`);

describe.each(STORE_BACKENDS)("$name: the policy store", (backend) => {
  test("a new database holds no rule at revision 0; each edit stores the whole set one revision on", async () => {
    const { policy } = await backend.fresh();
    expect(await policy.read()).toEqual({ revision: 0, rules: [] });
    expect(await editPolicy(policy, putRule(rule("a"), DEFAULTS))).toMatchObject({ revision: 1 });
    await editPolicy(policy, putRule(rule("b", { mode: "enforce" }), DEFAULTS));
    await editPolicy(policy, putRule(rule("first"), DEFAULTS, 1));
    expect(await ids(policy)).toEqual(["first:shadow", "a:shadow", "b:enforce"]);
    await editPolicy(policy, setMode("a", "enforce"));
    await editPolicy(policy, moveRule("b", 1));
    await editPolicy(policy, putRule(rule("a", { decision: "block", mode: "enforce" }), DEFAULTS));
    expect(await ids(policy)).toEqual(["b:enforce", "first:shadow", "a:enforce"]);
    expect((await policy.read()).rules[2]).toMatchObject({ decision: "block", author: "ops" });
    await editPolicy(policy, removeRule("first"));
    expect(await policy.read()).toMatchObject({ revision: 7 });
    expect(await ids(policy)).toEqual(["b:enforce", "a:enforce"]);
  });

  test("edits that fail change nothing: an unknown rule, a set over the limits, a rule that does not parse", async () => {
    const { policy } = await backend.fresh();
    await editPolicy(policy, putRule(rule("a"), DEFAULTS));
    await expect(editPolicy(policy, removeRule("nope"))).rejects.toThrow(RuleNotFound);
    await expect(editPolicy(policy, setMode("nope", "enforce"))).rejects.toThrow('no rule "nope" in the policy');
    expect(() => putRule(rule("b", { decision: "deny" }), DEFAULTS)).toThrow(PolicyError);
    const many = { rules: Array.from({ length: 500 }, (_, i) => rule(`r${i}`)) };
    await editPolicy(policy, replaceRules(many, DEFAULTS));
    await expect(editPolicy(policy, putRule(rule("one-more"), DEFAULTS))).rejects.toThrow("501 rules: at most 500");
    expect(await policy.read()).toMatchObject({ revision: 2 });
  });

  test("a write over a revision another writer moved is refused; an edit then applies to theirs", async () => {
    const { policy } = await backend.fresh();
    const other = (await backend.another()).policy;
    await editPolicy(policy, putRule(rule("a"), DEFAULTS));
    const read = await policy.read();
    await editPolicy(other, putRule(rule("theirs"), DEFAULTS));
    expect(await policy.replace([], read.revision)).toBe(false);
    await editPolicy(policy, putRule(rule("mine"), DEFAULTS));
    expect(await ids(policy)).toEqual(["a:shadow", "theirs:shadow", "mine:shadow"]);
    const stubborn: PolicyStore = { ...policy, read: () => policy.read(), replace: async () => false };
    await expect(editPolicy(stubborn, removeRule("a"))).rejects.toThrow(PolicyBusy);
  });

  test("a whole set replaced, in shadow as a candidate; an expired rule stays stored and listed", async () => {
    const { policy } = await backend.fresh();
    const set = {
      rules: [rule("x", { mode: "enforce", expires: "2026-11-25T12:00:05Z" }), rule("y", { mode: "enforce" })],
    };
    await editPolicy(policy, replaceRules(set, DEFAULTS, true));
    expect(await ids(policy)).toEqual(["x:shadow", "y:shadow"]);
    await editPolicy(policy, replaceRules(set, DEFAULTS));
    expect(await ids(policy)).toEqual(["x:enforce", "y:enforce"]);
    // Read back later, when x has expired: kept, and an edit of another rule keeps it.
    const later = await backend.another();
    expect((await later.policy.read()).rules[0].expires).toBe("2026-11-25T12:00:05.000Z");
    await editPolicy(later.policy, setMode("y", "shadow"));
    expect(await ids(later.policy)).toEqual(["x:enforce", "y:shadow"]);
  });

  test("another instance's watch follows each change within its next look, and an expiry without asking again", async () => {
    const { policy } = await backend.fresh();
    const other = await backend.another();
    const clock = { now: NOW };
    const watch = new PolicyWatch(other.policy, () => clock.now);
    expect(await watch.refresh()).toBe(false);
    expect(watch.current.version).toBe("default-1");
    await editPolicy(policy, putRule(rule("soon", { expires: "2026-11-25T12:00:05Z" }), DEFAULTS));
    await editPolicy(policy, putRule(rule("later"), DEFAULTS));
    expect(await watch.refresh()).toBe(true);
    expect(watch.current.rules.map((r) => r.id)).toEqual(["soon", "later"]);
    expect(watch.revision).toBe(2);
    expect(await watch.refresh()).toBe(false);
    clock.now += 5_000;
    expect(await watch.refresh()).toBe(true);
    expect(watch.current.rules.map((r) => r.id)).toEqual(["later"]);
    const version = watch.current.version;
    await editPolicy(policy, setMode("later", "enforce"));
    expect(await watch.refresh()).toBe(true);
    expect(watch.current.version).not.toBe(version);
  });

  test("daily counts add up across flushes and instances", async () => {
    const { policy } = await backend.fresh();
    const other = await backend.another();
    const row = (rule: string, outcome: string, count: number, day = "2026-11-25") => ({
      day,
      event: "signup",
      rule,
      outcome,
      count,
    });
    await policy.addCounts([row("", "allow", 3), row("tor", "would_decide", 1)]);
    await other.policy.addCounts([row("", "allow", 2), row("", "block", 1, "2026-11-26")]);
    await policy.addCounts([]);
    expect(await policy.countsSince("2026-11-25")).toEqual([
      row("", "allow", 5),
      row("tor", "would_decide", 1),
      row("", "block", 1, "2026-11-26"),
    ]);
    expect(await policy.countsSince("2026-11-26")).toEqual([row("", "block", 1, "2026-11-26")]);
  });
});

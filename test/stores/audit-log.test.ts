import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, startTestPostgres } from "../support/postgres.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(20_000));
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

function event(at: string, action: AuditEvent["action"], target: string, more: Partial<AuditEvent> = {}): AuditEvent {
  return {
    at,
    action,
    outcome: "succeeded",
    target,
    actor: "alice@vm1",
    channel: "cli",
    change: null,
    detail: null,
    ...more,
  };
}

describe.each(STORE_BACKENDS)("$name", (backend) => {
  test("appends events and reads them back newest first or oldest first, page by page, as written", async () => {
    const { audit } = await backend.fresh();
    const change = { name: { before: "old", after: "néw ✓" }, ratePerMinute: { before: null, after: 60 } };
    const first = await audit.append(event("2026-11-01T10:00:00.000Z", "key.created", "k_1 (billing)"));
    const second = await audit.append(
      event("2026-11-02T10:00:00.000Z", "key.updated", "k_1 (billing)", { change, channel: "dashboard" }),
    );
    const third = await audit.append(
      event("2026-11-03T10:00:00.000Z", "key.revoked", "k_2 (web)", { outcome: "failed", detail: "already revoked" }),
    );
    expect(first!.id).toBeLessThan(second!.id);
    expect(second!.id).toBeLessThan(third!.id);
    expect(second).toMatchObject({ change, channel: "dashboard", actor: "alice@vm1" });
    const newest = await audit.read({}, { order: "newest_first", limit: 2 });
    expect(newest.map((e) => e.action)).toEqual(["key.revoked", "key.updated"]);
    expect(newest[0]).toEqual({ ...third!, outcome: "failed", detail: "already revoked" });
    const older = await audit.read({}, { order: "newest_first", before: newest[1].id, limit: 2 });
    expect(older.map((e) => e.id)).toEqual([first!.id]);
    const oldest = await audit.read({}, { order: "oldest_first", after: first!.id, limit: 10 });
    expect(oldest.map((e) => e.id)).toEqual([second!.id, third!.id]);
  });

  test("filters by time, by action or its family, and by any part of the target in any case", async () => {
    const { audit } = await backend.fresh();
    await audit.append(event("2026-10-31T23:59:59.999Z", "key.created", "k_1 (Billing)"));
    await audit.append(event("2026-11-01T00:00:00.000Z", "email_override.added", "mailinator.com"));
    await audit.append(event("2026-11-02T00:00:00.000Z", "ip_override.added", "203.0.113.0/24"));
    await audit.append(event("2026-11-03T00:00:00.000Z", "key.revoked", "k_1 (Billing)"));
    const all = { order: "oldest_first", limit: 100 } as const;
    const targets = async (filter: Parameters<typeof audit.read>[0]) =>
      (await audit.read(filter, all)).map((e) => `${e.action} ${e.target}`);
    expect(await targets({ since: "2026-11-01T00:00:00.000Z" })).toEqual([
      "email_override.added mailinator.com",
      "ip_override.added 203.0.113.0/24",
      "key.revoked k_1 (Billing)",
    ]);
    expect(await targets({ action: "key" })).toEqual(["key.created k_1 (Billing)", "key.revoked k_1 (Billing)"]);
    expect(await targets({ action: "key.revoked" })).toEqual(["key.revoked k_1 (Billing)"]);
    // "_" and "%" are not wildcards: "email_override" is a family, "email%" names nothing.
    expect(await targets({ action: "email_override" })).toEqual(["email_override.added mailinator.com"]);
    expect(await targets({ action: "email%" })).toEqual([]);
    expect(await targets({ action: "key.rev" })).toEqual([]);
    expect(await targets({ target: "billing" })).toHaveLength(2);
    expect(await targets({ target: "203.0.113." })).toEqual(["ip_override.added 203.0.113.0/24"]);
    expect(await targets({ target: "%" })).toEqual([]);
    expect(await targets({ action: "key", target: "BILL", since: "2026-11-02T00:00:00.000Z" })).toEqual([
      "key.revoked k_1 (Billing)",
    ]);
  });

  test("an event named `once` is written by the first of two connections only", async () => {
    const { audit } = await backend.fresh();
    const other = (await backend.another()).audit;
    const expired = event("2026-11-05T00:00:00.000Z", "ip_override.expired", "198.51.100.7", { channel: "server" });
    const written = await Promise.all([
      audit.append(expired, "ip_override.expired 198.51.100.7 2026-11-05T00:00:00.000Z"),
      other.append(expired, "ip_override.expired 198.51.100.7 2026-11-05T00:00:00.000Z"),
    ]);
    expect(written.filter((e) => e !== null)).toHaveLength(1);
    expect(await audit.read({}, { order: "newest_first", limit: 10 })).toHaveLength(1);
  });

  test("prunes events before an instant and nothing after it; the database refuses to edit a row", async () => {
    const stores = await backend.fresh();
    await stores.audit.append(event("2025-01-01T00:00:00.000Z", "sign_in.failed", "dashboard"));
    await stores.audit.append(event("2025-01-02T00:00:00.000Z", "sign_in.failed", "dashboard"));
    const kept = await stores.audit.append(event("2026-01-01T00:00:00.000Z", "sign_in.succeeded", "dashboard"));
    expect(await stores.audit.prune("2025-01-02T00:00:00.000Z")).toBe(1);
    expect(await stores.audit.prune("2025-01-02T00:00:00.000Z")).toBe(0);
    expect((await stores.audit.read({}, { order: "oldest_first", limit: 10 })).map((e) => e.at)).toEqual([
      "2025-01-02T00:00:00.000Z",
      kept!.at,
    ]);
    await expect(backend.execute("UPDATE audit_log SET actor = 'someone else'")).rejects.toThrow(/append-only/);
    expect((await stores.audit.read({}, { order: "oldest_first", limit: 10 }))[1].actor).toBe("alice@vm1");
    // Nor delete one, but what retention let go: by hand, the events since its cutoff stay.
    await expect(backend.execute("DELETE FROM audit_log")).rejects.toThrow(/only its retention deletes events/);
    if (backend.name === "PostgreSQL")
      await expect(backend.execute("TRUNCATE audit_log")).rejects.toThrow(/only its retention deletes events/);
    expect(await stores.audit.read({}, { order: "oldest_first", limit: 10 })).toHaveLength(2);
  });
});

import type { KeyRecord } from "../keys/key-record.ts";
import type { KeyChange, KeyStore } from "../keys/key-store.ts";
import type { AuditChange } from "./audit-event.ts";
import type { AuditRecorder } from "./audit-trail.ts";

/** A key as the log names it: its id and its name. */
export function keyTarget(key: Pick<KeyRecord, "id" | "name">): string {
  return `${key.id} (${key.name})`;
}

/** The settings an operator chooses for a key: what a creation or a change records (never the secret). */
function settings(key: KeyRecord | null) {
  return {
    name: key?.name ?? null,
    ratePerMinute: key?.ratePerMinute ?? null,
    ipQuotaPerMonth: key?.ipQuotaPerMonth ?? null,
    permissions: key?.permissions ?? null,
    expiresAt: key?.expiresAt ?? null,
    allowedNetworks: key?.allowedNetworks ?? null,
    previousSecretEndsAt: key?.previousSecretEndsAt ?? null,
  };
}

/** The settings that differ, as before → after. */
function keyChange(before: KeyRecord | null, after: KeyRecord): AuditChange {
  const was = settings(before);
  const now = settings(after);
  const change: Record<string, { before: unknown; after: unknown }> = {};
  for (const name of Object.keys(now) as (keyof typeof now)[])
    if (JSON.stringify(was[name]) !== JSON.stringify(now[name])) change[name] = { before: was[name], after: now[name] };
  return change;
}

/** The key store, every change recorded in the audit log by `audit`'s actor: created, updated, rotated, revoked, or the failure. */
export function auditedKeyStore(keys: KeyStore, audit: AuditRecorder): KeyStore {
  const changed = ({ before, after }: KeyChange) => ({ target: keyTarget(after), change: keyChange(before, after) });
  /** The target a failure names: the key with that id, as the log names keys, else the words given. */
  const named = async (idOrName: string) => {
    const key = await keys.find(idOrName);
    return key ? keyTarget(key) : idOrName;
  };
  return {
    list: () => keys.list(),
    find: (id) => keys.find(id),
    create: (input, now) =>
      audit.act(
        "key.created",
        input.name,
        () => keys.create(input, now),
        ({ key }) => ({ target: keyTarget(key), change: keyChange(null, key) }),
      ),
    update: async (idOrName, changes) =>
      audit.act("key.updated", await named(idOrName), () => keys.update(idOrName, changes), changed),
    rotate: async (idOrName, graceMs, now) =>
      audit.act(
        "key.rotated",
        await named(idOrName),
        () => keys.rotate(idOrName, graceMs, now),
        (rotated) => ({
          ...changed(rotated),
          detail: `new secret ${rotated.after.prefix}…; the previous one ${rotated.after.previousSecretEndsAt === null ? "stopped at once" : `works until ${rotated.after.previousSecretEndsAt}`}`,
        }),
      ),
    revoke: async (idOrName, now) =>
      audit.act(
        "key.revoked",
        await named(idOrName),
        () => keys.revoke(idOrName, now),
        (after) => ({ target: keyTarget(after), change: { revokedAt: { before: null, after: after.revokedAt } } }),
      ),
  };
}

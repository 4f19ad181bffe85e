import type { KeyRecord } from "../keys/key-record.ts";
import { KEY_SETTING_NAMES } from "../keys/key-settings.ts";
import type { KeyChange, KeyStore } from "../keys/key-store.ts";
import type { AuditChange } from "./audit-event.ts";
import type { AuditRecorder } from "./audit-trail.ts";

/** A key as the log names it: its id and its name. */
export function keyTarget(key: Pick<KeyRecord, "id" | "name">): string {
  return `${key.id} (${key.name})`;
}

/**
 * What a creation or a change records of a key (never the secret): the settings an operator
 * chooses (src/keys/key-settings.ts), and when a rotation's previous secret stops.
 */
function settings(key: KeyRecord | null): Record<string, unknown> {
  return {
    ...Object.fromEntries(KEY_SETTING_NAMES.map((name) => [name, key?.[name] ?? null])),
    previousSecretEndsAt: key?.previousSecretEndsAt ?? null,
  };
}

/** The settings that differ, as before → after. */
function keyChange(before: KeyRecord | null, after: KeyRecord): AuditChange {
  const was = settings(before);
  const now = settings(after);
  const change: Record<string, { before: unknown; after: unknown }> = {};
  for (const name of Object.keys(now))
    if (JSON.stringify(was[name]) !== JSON.stringify(now[name])) change[name] = { before: was[name], after: now[name] };
  return change;
}

/**
 * The key store, every change recorded in the audit log by `audit`'s actor, in the change's own
 * transaction: created, updated, rotated, revoked, or the failure.
 */
export function auditedKeyStore(keys: KeyStore, audit: AuditRecorder<{ readonly keys: KeyStore }>): KeyStore {
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
        (tx) => tx.keys.create(input, now),
        ({ key }) => ({ target: keyTarget(key), change: keyChange(null, key) }),
      ),
    update: async (idOrName, changes) =>
      audit.act("key.updated", await named(idOrName), (tx) => tx.keys.update(idOrName, changes), changed),
    rotate: async (idOrName, graceMs, now) =>
      audit.act(
        "key.rotated",
        await named(idOrName),
        (tx) => tx.keys.rotate(idOrName, graceMs, now),
        (rotated) => {
          const endsAt = rotated.after.previousSecretEndsAt;
          const previous = endsAt === null ? "stopped at once" : `works until ${endsAt}`;
          return { ...changed(rotated), detail: `new secret ${rotated.after.prefix}…; the previous one ${previous}` };
        },
      ),
    revoke: async (idOrName, now) =>
      audit.act(
        "key.revoked",
        await named(idOrName),
        (tx) => tx.keys.revoke(idOrName, now),
        (after) => ({ target: keyTarget(after), change: { revokedAt: { before: null, after: after.revokedAt } } }),
      ),
  };
}

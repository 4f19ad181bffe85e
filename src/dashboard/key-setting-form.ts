import type { KeyRecord } from "../keys/key-record.ts";
import { KEY_SETTING_ROWS } from "../keys/key-settings.ts";
import { type KeyChanges, KeyStoreError, type NewKey } from "../keys/key-store.ts";

/** The key page's form as the change it asks for: every setting's field read (src/keys/key-settings.ts). */
export function formChanges(form: URLSearchParams, key: KeyRecord, nowMs: number): KeyChanges {
  return read(form, key, nowMs);
}

/** The create form's fields as a new key's settings; the settings it does not offer take their defaults. */
export function formNewKey(form: URLSearchParams, nowMs: number): NewKey {
  return read(form, null, nowMs) as NewKey;
}

/** Throws a KeyStoreError naming the first field the store would refuse. */
function read(form: URLSearchParams, key: KeyRecord | null, nowMs: number): KeyChanges {
  const settings: Record<string, unknown> = {};
  for (const [name, s] of KEY_SETTING_ROWS) {
    if (key === null && !s.form.creation) continue;
    const value = s.form.read(form, key === null ? undefined : key[name], nowMs);
    if ("error" in value) throw new KeyStoreError("invalid", value.error);
    settings[name] = value.value;
  }
  return settings;
}

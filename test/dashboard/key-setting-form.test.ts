import { expect, test } from "bun:test";
import { formChanges, formNewKey } from "../../src/dashboard/key-setting-form.ts";
import { keySettingFields } from "../../src/dashboard/pages/key-setting-fields.ts";
import type { KeyRecord } from "../../src/keys/key-record.ts";
import { KEY_SETTING_NAMES } from "../../src/keys/key-settings.ts";
import { KeyStoreError } from "../../src/keys/key-store.ts";

const NOW = Date.UTC(2026, 10, 28, 12);
const SERVER = { ratePerMinute: 600, ipQuotaPerMonth: 100_000 };

const KEY: KeyRecord = {
  id: "key_AbCdEfGhIjKl",
  prefix: "rk_AbCd",
  createdAt: "2026-11-01T00:00:00.000Z",
  lastUsedAt: null,
  lastUsedIp: null,
  revokedAt: null,
  previousSecretEndsAt: null,
  name: "checkout",
  ratePerMinute: 60,
  ipQuotaPerMonth: null,
  permissions: ["check", "report"],
  expiresAt: "2027-01-31T00:00:00.000Z",
  allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"],
};

/** What a browser would send of the fields as rendered: every input's value, the ticked boxes only. */
async function submitted(fields: readonly { toString(): string }[]): Promise<URLSearchParams> {
  const form = new URLSearchParams();
  await new HTMLRewriter()
    .on("input", {
      element(input) {
        const type = input.getAttribute("type");
        if (type === "checkbox" && !input.hasAttribute("checked")) return;
        form.append(input.getAttribute("name")!, input.getAttribute("value") ?? "");
      },
    })
    .transform(new Response(fields.join("\n")))
    .text();
  return form;
}

test("the key page's fields, sent back unchanged, ask for every setting as the key has it", async () => {
  const fields = keySettingFields(KEY, SERVER);
  expect(fields).toHaveLength(KEY_SETTING_NAMES.length);
  const changes = formChanges(await submitted(fields), KEY, NOW);
  expect(Object.keys(changes)).toEqual([...KEY_SETTING_NAMES]);
  for (const name of KEY_SETTING_NAMES) expect({ [name]: changes[name] }).toEqual({ [name]: KEY[name] });
});

test("the create form's fields make a key of the name typed in, with the defaults", async () => {
  const form = await submitted(keySettingFields(null, SERVER));
  expect(form.get("name")).toBe("");
  form.set("name", "new one");
  expect(formNewKey(form, NOW)).toEqual({ name: "new one", permissions: ["check"] });
});

test("a field the store would refuse is a KeyStoreError naming the field", async () => {
  const form = await submitted(keySettingFields(KEY, SERVER));
  form.set("rate", "fast");
  expect(() => formChanges(form, KEY, NOW)).toThrow(KeyStoreError);
  expect(() => formChanges(form, KEY, NOW)).toThrow("Requests per minute must be empty");
  form.set("rate", "");
  form.delete("permission");
  expect(() => formChanges(form, KEY, NOW)).toThrow("a key needs at least one permission");
});

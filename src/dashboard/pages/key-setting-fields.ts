import { KEY_SETTING_ROWS, type KeySetting, type KeySettings, type ServerLimits } from "../../keys/key-settings.ts";
import { type SafeHtml, html } from "../html.ts";

/**
 * The key settings' fields (src/keys/key-settings.ts), each with the key's value: the key
 * page's form. With no key, the fields the create form offers, with a new key's values.
 */
export function keySettingFields(key: KeySettings | null, server: ServerLimits): SafeHtml[] {
  return KEY_SETTING_ROWS.filter(([, s]) => key !== null || s.form.creation).map(([name, s]) =>
    field(s, key === null ? s.default : key[name], server, key === null),
  );
}

function field(s: KeySetting<unknown>, value: unknown, server: ServerLimits, creating: boolean): SafeHtml {
  const { form } = s;
  const label = (creating && form.creation?.label) || form.label;
  const shown = value === undefined ? "" : form.shown(value);
  if (form.input.kind === "choices") {
    const ticked = shown.split(",");
    const boxes = form.input.choices.map((c) => {
      const tick = ticked.includes(c.value) ? html` checked` : "";
      const help = c.help && !creating ? html`<span class="muted help">${c.help}</span>` : "";
      return html`<label><input type="checkbox" name="${form.name}" value="${c.value}"${tick}> ${c.words}${help}</label>`;
    });
    return html`<fieldset><legend>${label}</legend><input type="hidden" name="${form.input.shownBy}" value="1">
    ${boxes}</fieldset>`;
  }
  const { numeric, required, maxLength } = form.input;
  const placeholder = (creating && form.creation?.placeholder) || form.placeholder?.(server);
  const attributes = [
    numeric ? html` inputmode="numeric"` : "",
    maxLength ? html` maxlength="${maxLength}"` : "",
    required ? html` required` : "",
    creating && shown === "" ? "" : html` value="${shown}"`,
    placeholder ? html` placeholder="${placeholder}"` : "",
  ];
  const help = form.help && !creating ? html`<p class="muted">${form.help(server)}</p>` : "";
  const input = html`<input id="${form.name}" name="${form.name}" type="text"${attributes}>`;
  return html`<div><label for="${form.name}">${label}</label>${input}${help}</div>`;
}

import iso3166 from "iso-3166-2";
import { SUBDIVISION_ALIASES } from "./subdivision-aliases.ts";

/** Administrative words that one source writes and the other omits. */
const AFFIXES =
  /\b(state of|province of|city of|autonomous community of|governorate|county|province|prefecture|region|oblast|voivodeship|department|district|municipality|metropolitan|special city|metropolitan city|city)\b|-(do|si|teukbyeolsi|gwangyeoksi|teukbyeoljachisi|teukbyeoljachido)\b/g;

/** Lower-case ASCII letters and digits only: "Île-de-France" and "Ile de France" meet. */
function fold(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(AFFIXES, " ")
    .replace(/[^a-z0-9]+/g, "");
}

let index: Map<string, string> | null = null;

function build(): Map<string, string> {
  const map = new Map<string, string>();
  const add = (country: string, name: string, code: string) => {
    const key = `${country}|${fold(name)}`;
    if (!map.has(key)) map.set(key, code);
  };
  for (const [country, aliases] of Object.entries(SUBDIVISION_ALIASES)) {
    for (const [name, code] of Object.entries(aliases)) add(country, name, code);
  }
  for (const [country, entry] of Object.entries(iso3166.data)) {
    for (const [code, sub] of Object.entries(entry.sub)) add(country, sub.name, code.slice(code.indexOf("-") + 1));
  }
  return map;
}

/**
 * The ISO 3166-2 subdivision code without its country prefix ("ENG", "CA") for a
 * subdivision's name, '' when no list knows the name. Built once, on first use.
 */
export function subdivisionCode(countryCode: string, name: string): string {
  if (!name) return "";
  index ??= build();
  return index.get(`${countryCode}|${fold(name)}`) ?? "";
}

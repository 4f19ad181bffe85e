import { iso31662 } from "iso-3166";
import { SUBDIVISION_ALIASES } from "./subdivision-aliases.ts";

/**
 * Administrative words that GeoLite2/GeoNames English names and the ISO 3166-2
 * names write differently or omit ("State of Berlin", "Guangdong Sheng",
 * "Seoul-teukbyeolsi", "Bristol, City of").
 */
const ADMINISTRATIVE_WORDS =
  /\b(state of|province of|city of|autonomous community of|governorate|county|province|prefecture|region|oblast|voivodeship|department|district|municipality|metropolitan city|metropolitan|special city|city|sheng|shi|zizhiqu|zhuangzu|huizu|uygur)\b|-(do|si|teukbyeolsi|gwangyeoksi|teukbyeoljachisi|teukbyeoljachido)\b/g;

/** ISO writes Japanese names in Kunrei-shiki ("Hukusima"), GeoNames in Hepburn ("Fukushima"). */
function kunrei(folded: string): string {
  return folded.replace(/shi/g, "si").replace(/chi/g, "ti").replace(/tsu/g, "tu").replace(/fu/g, "hu").replace(/ji/g, "zi").replace(/sh/g, "sy").replace(/ch/g, "ty").replace(/j/g, "zy");
}

/** Lower-case ASCII letters and digits only, so "Île-de-France" and "Ile de France" meet. */
export function foldSubdivisionName(country: string, name: string): string {
  const folded = name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(ADMINISTRATIVE_WORDS, " ")
    .replace(/[^a-z0-9]+/g, "");
  return country === "JP" ? kunrei(folded) : folded;
}

/** country → folded name → code without the country prefix. */
function buildIndex(): Map<string, Map<string, string>> {
  const index = new Map<string, Map<string, string>>();
  const add = (country: string, name: string, code: string) => {
    let names = index.get(country);
    if (!names) index.set(country, (names = new Map()));
    const key = foldSubdivisionName(country, name);
    if (key && !names.has(key)) names.set(key, code);
  };
  for (const [country, aliases] of Object.entries(SUBDIVISION_ALIASES)) {
    for (const [name, code] of Object.entries(aliases)) add(country, name, code);
  }
  // Top-level subdivisions first: GeoLite2's first subdivision is the top level where ISO has two.
  const topLevelFirst = [...iso31662].sort((a, b) => a.parent.length - b.parent.length);
  for (const { code, name } of topLevelFirst) add(code.slice(0, 2), name, code.slice(3));
  return index;
}

const INDEX = buildIndex();
const EMPTY = new Map<string, string>();
/** Answers per (country, name) as found in the databases: a bounded set, folded once each. */
const resolved = new Map<string, Map<string, string>>();

/**
 * The ISO 3166-2 subdivision code without its country prefix ("ENG", "CA") for a
 * subdivision's English name, '' when neither the ISO list nor the aliases know it.
 */
export function subdivisionCode(country: string, name: string): string {
  if (!name) return "";
  let answers = resolved.get(country);
  if (!answers) resolved.set(country, (answers = new Map()));
  let code = answers.get(name);
  if (code === undefined) {
    code = (INDEX.get(country) ?? EMPTY).get(foldSubdivisionName(country, name)) ?? "";
    answers.set(name, code);
  }
  return code;
}


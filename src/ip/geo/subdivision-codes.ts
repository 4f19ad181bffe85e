import { iso31662 } from "iso-3166";
import { SUBDIVISION_ALIASES } from "./subdivision-aliases.ts";

/**
 * Words that GeoLite2/GeoNames English names and ISO 3166-2 names write
 * differently or leave out ("State of Berlin", "Guangdong Sheng", "Seoul-teukbyeolsi",
 * "Bristol, City of", "Pavlodar oblysy").
 */
const ADMINISTRATIVE_WORDS =
  /\b(state of|province of|county of|city of|autonomous community of|urban municipality of|provincia de|departamento del?|estado de|emirate of|autonomous|governorate|county|province|prefecture|region|division|oblast|oblysy|oblisi|krai|kray|megye|voivodeship|department|district|municipality|metropolitan city|metropolitan|special city|city|republic|respublika|sheng|shi|zizhiqu|zhuangzu|huizu|uygur)\b/g;
/** Korean province and city suffixes ("Gangwon-do", "Sejong-si"), after punctuation became spaces. */
const KOREAN_SUFFIXES = /\b(do|si|teukbyeolsi|gwangyeoksi|teukbyeoljachisi|teukbyeoljachido)\b/g;

/** Letters that Unicode decomposition leaves alone. */
const LETTERS: Record<string, string> = { ø: "o", æ: "ae", ß: "ss", đ: "d", ð: "d", ł: "l", ı: "i", œ: "oe", þ: "th" };

/** Lower case, no accents or punctuation: "Île-de-France" and "Ile de France" meet. */
function plainKey(country: string, name: string): string {
  const key = name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[øæßđðłıœþ]/g, (c) => LETTERS[c])
    .replace(/[^a-z0-9]+/g, " ");
  return country === "JP" ? kunrei(key) : key;
}

/** ISO writes Japanese names in Kunrei-shiki ("Hukusima"), GeoNames in Hepburn ("Fukushima"). */
function kunrei(key: string): string {
  return key
    .replace(/shi/g, "si")
    .replace(/chi/g, "ti")
    .replace(/tsu/g, "tu")
    .replace(/fu/g, "hu")
    .replace(/ji/g, "zi")
    .replace(/sh/g, "sy")
    .replace(/ch/g, "ty")
    .replace(/j/g, "zy");
}

const compact = (key: string) => key.replace(/ /g, "");
function loose(country: string, key: string): string {
  const words = key.replace(ADMINISTRATIVE_WORDS, " ");
  return compact(country === "KR" ? words.replace(KOREAN_SUFFIXES, " ") : words);
}

const AMBIGUOUS = "";

/**
 * country → key → code without the country prefix. Exact names beat loose ones,
 * aliases beat the ISO list, top-level subdivisions beat nested ones; two codes for
 * one key at the same rank make it ambiguous, and it answers nothing.
 */
function buildIndex(): Map<string, Map<string, string>> {
  const index = new Map<string, Map<string, { code: string; rank: number }>>();
  const put = (country: string, key: string, code: string, rank: number) => {
    if (!key) return;
    let keys = index.get(country);
    if (!keys) index.set(country, (keys = new Map()));
    const held = keys.get(key);
    if (!held || rank < held.rank) keys.set(key, { code, rank });
    else if (rank === held.rank && held.code !== code) held.code = AMBIGUOUS;
  };
  const add = (country: string, name: string, code: string, rank: number) => {
    const key = plainKey(country, name);
    put(country, compact(key), code, rank);
    put(country, loose(country, key), code, rank + 3);
  };
  for (const [country, aliases] of Object.entries(SUBDIVISION_ALIASES)) {
    for (const [name, code] of Object.entries(aliases)) add(country, name, code, 0);
  }
  for (const { code, name, parent } of iso31662)
    add(code.slice(0, 2), name, code.slice(3), parent.length === 2 ? 1 : 2);

  const codes = new Map<string, Map<string, string>>();
  for (const [country, keys] of index) codes.set(country, new Map([...keys].map(([key, { code }]) => [key, code])));
  return codes;
}

/** Built at the first lookup: only compiling a table from an MMDB asks, and a start that finds its tables compiled never does. */
let index: Map<string, Map<string, string>> | undefined;
const NONE = new Map<string, string>();

/**
 * The ISO 3166-2 subdivision code without its country prefix ("ENG", "CA") for a
 * subdivision's English name, '' when neither the ISO list nor the aliases know it.
 */
export function subdivisionCode(country: string, name: string): string {
  if (!name) return "";
  index ??= buildIndex();
  const keys = index.get(country) ?? NONE;
  const key = plainKey(country, name);
  return keys.get(compact(key)) || keys.get(loose(country, key)) || "";
}

/** Each ISO 3166-2 code's name ("DE-BE" → "Berlin"). */
export function subdivisionNames(): ReadonlyMap<string, string> {
  return new Map(iso31662.map((s) => [s.code, s.name]));
}

import type { AssessmentFacts } from "./assessment-facts.ts";

/**
 * What a field holds, which decides the operators a condition may use on it and how its
 * values are written: `boolean` (`is`), `number` and `asn` (`equals`, `in`, `not_in`,
 * `at_least`, `at_most`), `text`, `country` and `domain` (`equals`, `in`, `not_in`),
 * `level` (the five levels, ordered: also `at_least`, `at_most`), `kinds` (`has`,
 * `has_any`, `has_none`).
 */
export type FieldType = "boolean" | "number" | "asn" | "text" | "country" | "domain" | "level" | "kinds";

/** A field's value in one assessment; undefined when the request did not give the value it belongs to. */
type Read = (f: AssessmentFacts) => boolean | number | string | undefined;

export interface PolicyField {
  readonly name: string;
  readonly type: FieldType;
  /** What it is, for docs/assess.md and `riskcheck policy fields`. */
  readonly doc: string;
  readonly read: Read;
}

const field = (name: string, type: FieldType, doc: string, read: Read): PolicyField => ({ name, type, doc, read });

/** Every field a rule can name, in the order the manual lists them. */
export const POLICY_FIELDS: readonly PolicyField[] = Object.freeze([
  field("event", "text", "the request's `event` label (`signup`, `login`, `payment`, or the team's own)", (f) =>
    f.event === null ? undefined : f.event,
  ),
  field("score", "number", "the default policy's score, 0–100: its reasons' weights added up", (f) => f.score),
  field("email.given", "boolean", "the request gave an email address", (f) => f.email !== null),
  field("email.disposable", "boolean", "the email check's `is_disposable`", (f) => f.email?.disposable),
  field("email.free", "boolean", "the email check's `free_email`", (f) => f.email?.free),
  field(
    "email.domain",
    "domain",
    "the address's domain, normalised; `in` and `not_in` cover the subdomains of the names listed",
    (f) => f.email?.domain,
  ),
  field("ip.given", "boolean", "the request gave an address, or asked for the caller's own", (f) => f.ip !== null),
  field(
    "ip.level",
    "level",
    "the IP check's `reputation.reputation`: ok < informative < suspicious < warning < bad",
    (f) => f.ip?.level,
  ),
  field("ip.risky", "boolean", "the IP check's `reputation.risky` (level warning or bad)", (f) => f.ip?.risky),
  field(
    "ip.kind",
    "kinds",
    "the IP check's `reputation.kind`: hosting, vpn, scanner, crawler, isp, education, dynamic",
    (f) => f.ip?.kinds,
  ),
  field(
    "ip.country",
    "country",
    "the IP check's `country_code` (ISO 3166-1 alpha-2; empty when unknown)",
    (f) => f.ip?.country,
  ),
  field("ip.asn", "asn", "the network's AS number (`AS15169` or `15169`); 0 when unknown", (f) => f.ip?.asn),
  field("ip.reports", "number", "the IP check's `reputation.sum`: independent reports", (f) => f.ip?.reports),
  field(
    "ip.reported_locally",
    "boolean",
    "this appliance's own keys reported the address (POST /v1/reports) within the window",
    (f) => f.ip?.reportedLocally,
  ),
  field("ip.tor", "boolean", "the address is a Tor exit (on the `tor-exits` list)", (f) => f.ip?.tor),
]);

export const FIELDS_BY_NAME: ReadonlyMap<string, PolicyField> = new Map(POLICY_FIELDS.map((f) => [f.name, f]));

/** The operators each type of field takes. */
export const OPERATORS: Readonly<Record<FieldType, readonly string[]>> = Object.freeze({
  boolean: ["is"],
  number: ["equals", "in", "not_in", "at_least", "at_most"],
  asn: ["equals", "in", "not_in"],
  text: ["equals", "in", "not_in"],
  country: ["equals", "in", "not_in"],
  domain: ["equals", "in", "not_in"],
  level: ["equals", "in", "not_in", "at_least", "at_most"],
  kinds: ["has", "has_any", "has_none"],
});

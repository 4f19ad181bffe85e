/**
 * What a field holds, which decides the operators a condition may use on it and how its
 * values are written: `boolean` (`is`), `number` and `asn` (`equals`, `in`, `not_in`,
 * `at_least`, `at_most`), `text`, `country` and `domain` (`equals`, `in`, `not_in`),
 * `level` (the five levels, ordered: also `at_least`, `at_most`), `kinds` (`has`,
 * `has_any`, `has_none`).
 */
export type FieldType = "boolean" | "number" | "asn" | "text" | "country" | "domain" | "level" | "kinds";

/** Which value of the request a field belongs to: a comparison on a value not given matches nothing. */
type Side = "event" | "email" | "ip" | "always";

export interface PolicyField {
  readonly name: string;
  readonly type: FieldType;
  /** What it is, for docs/assess.md and `riskcheck policy fields`. */
  readonly doc: string;
  readonly side: Side;
  /**
   * How compiled-policy.ts reads it, as a JavaScript expression over the assessment's facts `f`,
   * its email side `e` and its IP side `p` (AssessmentFacts); only ever this table's text.
   */
  readonly source: string;
}

const field = (name: string, type: FieldType, side: Side, source: string, doc: string): PolicyField => ({
  name,
  type,
  doc,
  side,
  source,
});

/** Every field a rule can name, in the order the manual lists them. */
export const POLICY_FIELDS: readonly PolicyField[] = Object.freeze([
  field(
    "event",
    "text",
    "event",
    "f.event",
    "the request's `event` label (`signup`, `login`, `payment`, or the team's own)",
  ),
  field("score", "number", "always", "f.score", "the default policy's score, 0–100: its reasons' weights added up"),
  field("email.given", "boolean", "always", "(e !== null)", "the request gave an email address"),
  field("email.disposable", "boolean", "email", "e.disposable", "the email check's `is_disposable`"),
  field("email.free", "boolean", "email", "e.free", "the email check's `free_email`"),
  field(
    "email.undeliverable",
    "boolean",
    "email",
    "e.undeliverable",
    "with DNS evidence on: no mail can reach the domain (a null MX, or neither MX nor address)",
  ),
  field(
    "email.domain",
    "domain",
    "email",
    "e.domain",
    "the address's domain, normalised; `in` and `not_in` cover the subdomains of the names listed",
  ),
  field("ip.given", "boolean", "always", "(p !== null)", "the request gave an address, or asked for the caller's own"),
  field(
    "ip.level",
    "level",
    "ip",
    "p.level",
    "the IP check's `reputation.reputation`: ok < informative < suspicious < warning < bad",
  ),
  field("ip.risky", "boolean", "ip", "p.risky", "the IP check's `reputation.risky` (level warning or bad)"),
  field(
    "ip.kind",
    "kinds",
    "ip",
    "p.kinds",
    "the IP check's `reputation.kind`: hosting, vpn, scanner, crawler, isp, education, dynamic",
  ),
  field(
    "ip.country",
    "country",
    "ip",
    "p.country",
    "the IP check's `country_code` (ISO 3166-1 alpha-2; empty when unknown)",
  ),
  field("ip.asn", "asn", "ip", "p.asn", "the network's AS number (`AS15169` or `15169`); 0 when unknown"),
  field("ip.reports", "number", "ip", "p.reports", "the IP check's `reputation.sum`: independent reports"),
  field(
    "ip.reported_locally",
    "boolean",
    "ip",
    "p.reportedLocally",
    "this appliance's own keys reported the address (POST /v1/reports) within the window",
  ),
  field("ip.tor", "boolean", "ip", "p.tor", "the address is a Tor exit (on the `tor-exits` list)"),
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

import { type Static, Type } from "@sinclair/typebox";
import { Nullable, ReadonlyArray, StringEnum } from "../schema/json-schema.ts";
import { EVIDENCE_RULES, EVIDENCE_STRENGTHS } from "./evidence-rule.ts";
import type { MailFinding } from "./mail-finding.ts";

/** The rules that decide `is_disposable`. */
export const DECIDING_RULES = [
  "denylisted",
  "allowlisted",
  "relay",
  "listed",
  "wildcard",
  "parent-listed",
  "family",
  "mail-servers",
  "reserved-name",
  "disputed",
  "below-evidence",
  "not-listed",
] as const;
export type DecidingRule = (typeof DECIDING_RULES)[number];

const instant = (description: string) => Nullable(Type.String({ format: "date-time" }), { description });

export const SourceReasonSchema = Type.Object(
  {
    source: Type.String({ description: "The list, as named in sources.json." }),
    entry: Type.String(),
    match: StringEnum(["exact", "parent", "wildcard"]),
    first_seen: instant("When this appliance's updates first saw the entry on the list."),
    last_seen: instant(
      "When an update last confirmed the list; for a remembered entry, when the list last carried it.",
    ),
    remembered: Type.Boolean({
      description:
        "A rolling list (a daily top list) no longer carries the entry: it stays disposable for the list's retention " +
        "after `last_seen`.",
    }),
    verifies: Type.Boolean({ description: "The list asks for evidence per entry." }),
    copies: ReadonlyArray(Type.String(), {
      description: "The lists it is known to copy (its `includes`, followed through).",
    }),
  },
  { additionalProperties: false },
);
/** One list's listing of the domain or of a parent. */
export type SourceReason = Static<typeof SourceReasonSchema>;

/** With DNS evidence on, for a domain no list decides: where its mail goes, and what that says. */
export const MailReasonSchema = Type.Object(
  {
    lookup: StringEnum(["looked-up", "cached", "timed-out", "skipped"], {
      description:
        "Looked up now, from the cache, not answered within the budget (RISKCHECK_DNS_BUDGET_MS: the lists answered, and " +
        "the lookup fills the cache for the next check), or not started (as many lookups under way as " +
        "RISKCHECK_DNS_IN_FLIGHT allows, the whole budget).",
    }),
    deliverable: Nullable(Type.Boolean(), {
      description:
        "Whether mail can reach the domain: false for a null MX (RFC 7505) or no MX and no address; null when the " +
        "lookup failed or gave no answer in time.",
    }),
    route: Nullable(StringEnum(["mx", "address", "null-mx", "no-mail", "failed"]), {
      description:
        "What DNS answered: MX hosts; no MX but an address (mail goes to the domain itself); a null MX; neither MX nor " +
        "address (or no such domain); a failure (SERVFAIL, no answer, refused). Null when not known.",
    }),
    servers: ReadonlyArray(
      Type.Object({ host: Type.String(), addresses: ReadonlyArray(Type.String()) }, { additionalProperties: false }),
      { description: "The mail servers, lowest MX preference first (at most 4), with their A and AAAA addresses." },
    ),
    shared: ReadonlyArray(
      Type.Object(
        {
          server: Type.String({ description: "The MX host or address." }),
          by: StringEnum(["host", "address"]),
          domains: Type.Integer({
            minimum: 1,
            description: "Known disposable registrable domains whose mail it serves, as `update` resolved them.",
          }),
          examples: ReadonlyArray(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: "Its servers that known disposable domains share: with any, rule `mail-servers` and disposable." },
    ),
    exempt: ReadonlyArray(
      Type.Object({ server: Type.String(), reason: Type.String() }, { additionalProperties: false }),
      {
        description:
          "Its servers that never count, however many disposable domains share them: big providers', relays', forwarders'.",
      },
    ),
  },
  { additionalProperties: false },
);

export const EmailReasonsSchema = Type.Object(
  {
    rule: StringEnum(DECIDING_RULES, {
      description:
        "What decided `is_disposable`: an operator's override line, the allowlist, a privacy relay, a listing (exact, " +
        "wildcard, of a parent), a family of listed names under one registrable domain, mail servers that known " +
        "disposable domains share (DNS evidence), a reserved name; or, not " +
        "disposable, a listing held back as disputed or below the evidence rule, or none.",
    }),
    matched: Nullable(Type.String(), {
      description: "The entry that decided: the domain, a parent, an override or allowlist line.",
    }),
    evidence_rule: StringEnum(EVIDENCE_RULES, { description: "RISKCHECK_EMAIL_EVIDENCE in force." }),
    evidence: StringEnum(EVIDENCE_STRENGTHS, {
      description:
        "What the listing of the matched entry amounts to: a verifying list, two or more independent lists, one list " +
        "that copies no other, only lists that copy others, nothing.",
    }),
    confidence: StringEnum(["high", "medium", "low"]),
    sources: ReadonlyArray(SourceReasonSchema),
    override: Type.Optional(
      Type.Object(
        {
          domain: Type.String(),
          action: StringEnum(["allow", "deny"]),
          reason: Type.String(),
          author: Type.String(),
          created: Type.String({ format: "date-time" }),
          until: Nullable(Type.String({ format: "date-time" })),
        },
        { additionalProperties: false },
      ),
    ),
    allowlist: Type.Optional(
      Type.Object(
        {
          entry: Type.String(),
          reason: Nullable(Type.String(), { description: "The line's comment in data/email/allowlist.txt." }),
        },
        { additionalProperties: false },
      ),
    ),
    free: Type.Optional(Type.Object({ list: Type.String() }, { additionalProperties: false })),
    relay: Type.Optional(Type.Object({ service: Type.String() }, { additionalProperties: false })),
    family: Type.Optional(
      Type.Object(
        { domain: Type.String(), members: Type.Integer({ minimum: 1 }) },
        {
          additionalProperties: false,
          description:
            "With rule `family`: the registrable domain under which enough listed names lie that it and all its names " +
            "are disposable, and how many.",
        },
      ),
    ),
    mail: Type.Optional(MailReasonSchema),
    did_you_mean: Type.Optional(Type.String({ description: "The major provider the domain is probably a typo of." })),
    role_account: Type.Boolean({
      description: "The local part names a role (postmaster, info, support …), not a person.",
    }),
    normalized: Type.String({
      description: "The mailbox the address reaches: sub-address cut, dots removed where the provider ignores them.",
    }),
  },
  {
    $id: "EmailReasons",
    additionalProperties: false,
    description: "Only with `?explain=1`: why the domain has its verdict.",
  },
);
export type EmailReasons = Static<typeof EmailReasonsSchema>;

/** The spec's email answer, keys in the spec's order; with `?explain=1` its `reasons` follow. */
export const EmailAnswerSchema = Type.Object(
  {
    email: Type.String({ description: "The address as received." }),
    is_disposable: Type.Boolean({
      description:
        "The domain, or a parent that is not a public suffix, is on a disposable list (the operator allowlist wins); " +
        "with DNS evidence on, also a domain whose mail servers known disposable domains share.",
    }),
    domain: Type.String({ description: "The domain, normalised to lower-case ASCII (punycode)." }),
    free_email: Type.Boolean({
      description: "An exact match on the free-provider list; never for a disposable domain.",
    }),
    reasons: Type.Optional(EmailReasonsSchema),
  },
  { $id: "EmailCheck", additionalProperties: false },
);
/**
 * The answer without its reasons: what the check decides; with DNS evidence on, what DNS said
 * of a domain no list decided (`mail`, never written into the spec's four fields).
 */
export type EmailAnswer = Readonly<Omit<Static<typeof EmailAnswerSchema>, "reasons">> & {
  readonly mail?: MailFinding;
};

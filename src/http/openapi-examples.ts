import type { EmailAnswer } from "../email/email-answer-schema.ts";
import type { IpAnswer } from "../ip/answer/ip-answer-schema.ts";

/** Examples of an answer: each checked against the answer's type, from its schema. */
type Examples<T> = Record<string, { summary: string; value: T }>;

/**
 * Answers the running app gave on the bundled data, shown as the OpenAPI document's
 * examples; test/http/openapi.test.ts asks the same questions and compares.
 */

const CLEAN: IpAnswer["reputation"] = {
  risky: false,
  reputation: "ok",
  bot: 0,
  probe: 0,
  rate: 0,
  attack: 0,
  crawler: 0,
  sum: 0,
  kind: [],
};
const GOOGLE_DNS: IpAnswer = {
  ip: "8.8.8.8",
  country: "United States",
  country_code: "US",
  flag: "🇺🇸",
  region: "",
  region_name: "",
  city: "",
  subdivisions: "",
  connection_type: "Corporate",
  is_anycast: true,
  zip: "",
  latitude: 37.751,
  longitude: -97.822,
  timezone: "America/Chicago",
  isp: "Google LLC",
  organization: "Google LLC",
  asn: "AS15169 Google LLC",
  reputation: {
    risky: false,
    reputation: "informative",
    bot: 0,
    probe: 0,
    rate: 0,
    attack: 0,
    crawler: 0,
    sum: 0,
    kind: ["hosting"],
  },
};

export const EMAIL_EXAMPLES = {
  disposable: {
    summary: "GET /v1/check?email=someone@mailinator.com",
    value: { email: "someone@mailinator.com", is_disposable: true, domain: "mailinator.com", free_email: false },
  },
  free: {
    summary: "GET /v1/check?email=someone@gmail.com",
    value: { email: "someone@gmail.com", is_disposable: false, domain: "gmail.com", free_email: true },
  },
  internationalised: {
    summary: "GET /v1/check?email=x@пример.com (the domain in punycode)",
    value: { email: "x@пример.com", is_disposable: false, domain: "xn--e1afmkfd.com", free_email: false },
  },
} satisfies Examples<EmailAnswer>;

export const IP_EXAMPLES = {
  public: {
    summary: "GET /v1/ip-reputation-check?ip=81.2.69.142",
    value: {
      ip: "81.2.69.142",
      country: "United Kingdom",
      country_code: "GB",
      flag: "🇬🇧",
      region: "ENG",
      region_name: "England",
      city: "Bracknell",
      subdivisions: "Bracknell Forest",
      connection_type: "",
      is_anycast: false,
      zip: "RG12",
      latitude: 51.4036,
      longitude: -0.7618,
      timezone: "Europe/London",
      isp: "Andrews & Arnold Ltd",
      organization: "Andrews & Arnold Ltd",
      asn: "AS20712 Andrews & Arnold Ltd",
      reputation: CLEAN,
    },
  },
  anycast: { summary: "GET /v1/ip-reputation-check?ip=8.8.8.8", value: GOOGLE_DNS },
  ipv6: {
    summary: "GET /v1/ip-reputation-check?ip=2a03:2880:f10c:83:face:b00c:0:25de",
    value: {
      ip: "2a03:2880:f10c:83:face:b00c:0:25de",
      country: "Singapore",
      country_code: "SG",
      flag: "🇸🇬",
      region: "",
      region_name: "",
      city: "Singapore",
      subdivisions: "",
      connection_type: "",
      is_anycast: false,
      zip: "17",
      latitude: 1.2872,
      longitude: 103.8507,
      timezone: "Asia/Singapore",
      isp: "Facebook, Inc.",
      organization: "Facebook, Inc.",
      asn: "AS32934 Facebook, Inc.",
      reputation: CLEAN,
    },
  },
  private: {
    summary: "GET /v1/ip-reputation-check?ip=10.1.2.3 (no lookup, no flag)",
    value: {
      ip: "10.1.2.3",
      country: "",
      country_code: "",
      region: "",
      region_name: "",
      city: "",
      subdivisions: "",
      connection_type: "",
      is_anycast: false,
      zip: "",
      latitude: 0,
      longitude: 0,
      timezone: "",
      isp: "",
      organization: "",
      asn: "",
      reputation: CLEAN,
    },
  },
  explained: {
    summary: "GET /v1/ip-reputation-check?ip=8.8.8.8&explain=1",
    value: {
      ...GOOGLE_DNS,
      reputation: {
        ...GOOGLE_DNS.reputation,
        reasons: {
          rule: { id: "kind-vpn-or-hosting", level: "informative", reports: 0 },
          contributions: [
            {
              source: "curated/anycast-prefixes",
              category: "anycast",
              count: 1,
              weight: 1,
              counted: 0,
              first_seen: null,
              last_seen: null,
            },
          ],
          kinds: [{ kind: "hosting", from: "AS15169 in curated/hosting-asns.txt" }],
          location_source: "geolite2",
          location_precision: "country",
          // The bundled data has no reputation feed until the first refresh.
          warnings: [
            "no reputation feed is loaded: this verdict rests on network kinds alone, and ok means no data rather than clean",
          ],
        },
      },
    },
  },
} satisfies Examples<IpAnswer>;

/** POST /v1/check/batch: two emails and two IPs, one of each invalid; each answer as its GET endpoint's. */
export const BATCH_EXAMPLES = {
  request: { emails: ["someone@mailinator.com", "not-an-address"], ips: ["8.8.8.8", "1.2.3"] },
  answer: {
    emails: [
      EMAIL_EXAMPLES.disposable.value,
      { input: "not-an-address", error: "invalid_email", message: "The provided email address is not valid" },
    ],
    ips: [GOOGLE_DNS, { input: "1.2.3", error: "invalid_ip", message: "invalid IP address format" }],
  },
};

/** POST /v1/reports: three reports, the second a repeat of the first, the third of a private address. */
export const REPORT_EXAMPLES = {
  request: {
    reports: [
      { ip: "81.2.69.142", category: "attack", comment: "credential stuffing on /login" },
      { ip: "81.2.69.142", category: "attack" },
      { ip: "10.0.0.1", category: "bot" },
    ],
  },
  answer: {
    accepted: 1,
    duplicates: 1,
    rejected: [
      {
        index: 2,
        error: "private_address",
        message: "Private, loopback and other reserved addresses cannot be reported",
      },
    ],
  },
};

/** The admin API: a line added by a key named "test" on the test clock, and the refusals of POST /v1/overrides. */
const OVERRIDE_LINE = {
  id: "ip:81.2.69.0-24",
  kind: "ip",
  target: "81.2.69.0/24",
  action: "allow",
  reason: "our Bracknell office, ticket 4711",
  author: "test",
  created: "2026-11-23T12:00:00.000Z",
  until: "2027-01-01T00:00:00.000Z",
  active: true,
};
export const OVERRIDE_EXAMPLES = {
  request: {
    kind: "ip",
    target: "81.2.69.0/24",
    action: "allow",
    reason: "our Bracknell office, ticket 4711",
    until: "2026-12-31",
  },
  line: OVERRIDE_LINE,
  list: {
    overrides: [
      OVERRIDE_LINE,
      {
        id: "email:partner.example",
        kind: "email",
        target: "partner.example",
        action: "allow",
        reason: "our reseller's domain",
        author: "test",
        created: "2026-11-23T12:00:00.000Z",
        until: null,
        active: true,
      },
    ],
    next: null,
  },
  refusals: {
    invalid_target: {
      request: { kind: "ip", target: "81.2.69.7/24", action: "allow", reason: "r" },
      message: '"81.2.69.7/24" has host bits set: the range is 81.2.69.0/24',
    },
    missing_reason: {
      request: { kind: "ip", target: "81.2.69.7", action: "allow" },
      message: "say why with reason: the line has to be defended to whoever asks",
    },
    until_passed: {
      request: { kind: "ip", target: "81.2.69.7", action: "allow", reason: "r", until: "2026-01-31" },
      message: "until 2026-01-31 has already passed",
    },
    too_broad: {
      request: { kind: "ip", target: "0.0.0.0/0", action: "allow", reason: "r" },
      message:
        "0.0.0.0/0 is broader than a /8: a line there would decide for a large share of the internet; name narrower " +
        'ranges, or insist with "force": true',
    },
    special_purpose: {
      request: { kind: "ip", target: "10.0.0.0/8", action: "allow", reason: "r" },
      message:
        "10.0.0.0/8 lies in special-purpose space (private use): the check answers its addresses as such without " +
        "looking at any line, so a line there would never apply",
    },
  },
  limitReached: {
    request: { kind: "ip", target: "81.2.70.0/24", action: "deny", reason: "r" },
    message:
      "there are 2 lines of this kind already, the most the server keeps (RISKCHECK_MAX_OVERRIDE_LINES): remove some first",
  },
};

/** GET /v1/assess?email=someone@mailinator.com&ip=8.8.8.8&event=signup, and POST /v1/assess with the same as its body. */
export const ASSESS_EXAMPLES = {
  request: { email: "someone@mailinator.com", ip: "8.8.8.8", event: "signup" },
  answer: {
    decision: "challenge",
    score: 80,
    reasons: [
      { code: "email.disposable", weight: 60, fact: "mailinator.com is a disposable-mail domain" },
      {
        code: "ip.reputation.informative",
        weight: 5,
        fact: "8.8.8.8: reputation informative, a VPN or hosting network, no reports",
      },
      { code: "ip.kind.hosting", weight: 15, fact: "8.8.8.8 is in a hosting network (AS15169 Google LLC)" },
    ],
    rule: null,
    policy: "default-1",
    event: "signup",
    email: EMAIL_EXAMPLES.disposable.value,
    ip: GOOGLE_DNS,
  },
};

/**
 * The admin API of the rules: a rule added by a key named "test" on the test clock, and the refusals of a rule
 * with an unknown decision and of a set that names an unknown field.
 */
const POLICY_RULE = {
  id: "disposable-hosting",
  conditions: {
    all: [
      { field: "email.disposable", op: "is", value: true },
      { field: "ip.kind", op: "has", value: "hosting" },
    ],
  },
  decision: "block",
  reason: "a throwaway address from a data centre",
};
export const POLICY_EXAMPLES = {
  rule: POLICY_RULE,
  added: {
    policy: "default-1+843effc2",
    revision: 1,
    rules: [
      {
        ...POLICY_RULE,
        author: "test",
        created: "2026-11-23T12:00:00.000Z",
        expires: null,
        mode: "shadow",
        active: true,
      },
    ],
  },
  none: { policy: "default-1", revision: 0, rules: [] },
  refusedRule: {
    request: { ...POLICY_RULE, decision: "deny" },
    answer: {
      error: "invalid_policy",
      message: 'rule "disposable-hosting": decision: "deny"; one of allow, challenge, block',
      problems: [
        {
          index: null,
          rule: "disposable-hosting",
          path: "decision",
          message: '"deny"; one of allow, challenge, block',
        },
      ],
    },
  },
  refused: {
    request: { rules: [{ ...POLICY_RULE, conditions: { all: [{ field: "ip.kinds", op: "has", value: "hosting" }] } }] },
    answer: {
      error: "invalid_policy",
      message:
        'rule "disposable-hosting" (#1): conditions.all[0].field: unknown field "ip.kinds"; one of event, score, ' +
        "email.given, email.disposable, email.free, email.undeliverable, email.domain, ip.given, ip.level, ip.risky, " +
        "ip.kind, ip.country, ip.asn, ip.reports, ip.reported_locally, ip.tor",
      problems: [
        {
          index: 0,
          rule: "disposable-hosting",
          path: "conditions.all[0].field",
          message:
            'unknown field "ip.kinds"; one of event, score, email.given, email.disposable, email.free, ' +
            "email.undeliverable, email.domain, ip.given, ip.level, ip.risky, ip.kind, ip.country, ip.asn, ip.reports, " +
            "ip.reported_locally, ip.tor",
        },
      ],
    },
  },
};

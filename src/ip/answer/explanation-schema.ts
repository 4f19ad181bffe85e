import { type Static, Type } from "@sinclair/typebox";
import { Nullable, StringEnum } from "../../schema/json-schema.ts";
import { KIND_NAMES } from "../verdict/network-kinds.ts";
import { RuleSchema } from "../verdict/reputation-schema.ts";

/** How finely an answer locates its address. */
export const LOCATION_PRECISIONS = ["city", "region", "country", "none"] as const;
export type LocationPrecision = (typeof LOCATION_PRECISIONS)[number];

const instant = (description?: string) =>
  Nullable(Type.String({ format: "date-time" }), description ? { description } : {});
const count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

export const ContributionSchema = Type.Object(
  {
    source: Type.String({ description: "The source (as in sources.json), or a curated or operator list." }),
    category: Type.String({
      description:
        "The counter its reports go to, or what else it says: a kind, `confirmed-bad`, `verified-crawler`, `relay`, " +
        "`anycast`, `allowlisted`, `denylisted`.",
    }),
    count: count("The listing's own count (ipsum: its number of lists); 1 for a plain list."),
    weight: count("Reports one listing counts as."),
    counted: count("Reports it adds to `sum`, once the lists it aggregates are counted."),
    first_seen: instant("When this appliance's updates first saw the listing; null for hand-kept lists."),
    last_seen: instant("When an update last confirmed the source."),
    class: Type.Optional(
      Type.String({
        description:
          "For a list of benign infrastructure, its class: `seo:googlebot`, `cloud:aws`, `cdn:cloudflare`, `relay:icloud` …",
      }),
    ),
    label: Type.Optional(
      Type.String({ description: "What the publisher says the range is, e.g. `AWS us-east-1 EC2`." }),
    ),
  },
  { additionalProperties: false },
);
/** One list's word on the address: `?explain=1`'s answer to "why is this address listed". */
export type Contribution = Static<typeof ContributionSchema>;

export const PlaceSchema = Type.Object(
  { country: Type.String(), region: Type.String(), city: Type.String() },
  {
    additionalProperties: false,
    description: "A relay exit's place from its geofeed row; the answer's location follows it.",
  },
);

export const InfrastructureClassSchema = Type.Object(
  {
    class: Type.String(),
    source: Type.String(),
    effect: StringEnum(["cap", "label"]),
    label: Type.Optional(Type.String()),
    place: Type.Optional(PlaceSchema),
  },
  { additionalProperties: false },
);
/**
 * A benign class the address belongs to, and what it does to the level: "cap", reports make it no more than
 * suspicious (crawlers; relays and anycast edges unless on DROP); "label", it names the network and changes no level.
 */
export type InfrastructureClass = Static<typeof InfrastructureClassSchema>;

export const KindOriginSchema = Type.Object(
  {
    kind: StringEnum(KIND_NAMES),
    from: Type.String({ description: "A list of ranges, an AS number's list, or the organisation's name." }),
  },
  { additionalProperties: false },
);
export type KindOrigin = Static<typeof KindOriginSchema>;

export const OverrideInForceSchema = Type.Object(
  {
    target: Type.String(),
    action: StringEnum(["allow", "deny"]),
    reason: Type.String(),
    author: Type.String(),
    created: Type.String({
      description: "When it was added; for a line of data/ip/allowlist.txt, the file's modification time.",
    }),
    until: instant(),
    source: StringEnum(["database", "allowlist-file"], {
      description: "`riskcheck ip allow|deny`, the dashboard or the admin API; or data/ip/allowlist.txt.",
    }),
  },
  {
    additionalProperties: false,
    description:
      "The operator's line that decided (the rule is then `allowlisted` or `denylisted`): the most specific line " +
      "covering the address or its network.",
  },
);

/** `reputation.reasons` with `?explain=1`: why the address has its level. */
export const ExplanationSchema = Type.Object(
  {
    override: Type.Optional(OverrideInForceSchema),
    rule: RuleSchema,
    contributions: Type.Array(ContributionSchema, {
      description: "One entry per list that names the address or its network.",
    }),
    kinds: Type.Array(KindOriginSchema),
    infrastructure: Type.Optional(
      Type.Array(InfrastructureClassSchema, {
        description:
          "Absent unless the address is on a list of benign infrastructure: each class, and whether it caps the level " +
          "(crawlers, relays, anycast edges) or only labels the network (clouds).",
      }),
    ),
    location_source: Type.String({
      description:
        "Where the answer's location came from: `geolite2` (the city database; another database's source name, or " +
        "`mmdb/<file>` for an operator's own), a cloud region the provider's own list assigns the range to " +
        "(`aws:eu-central-1`, `aws:us-east-1-bue-1` for a Local Zone, `gcp:europe-west3`, `oracle:eu-frankfurt-1`), " +
        "or an RFC 8805 geofeed (`geofeed:<source name>`).",
    }),
    location_precision: StringEnum(LOCATION_PRECISIONS, {
      description:
        "How finely the answer locates the address: `city`, `region` (a subdivision, no city), `country` (the " +
        "country alone: `latitude` and `longitude` are the country's representative point, and `timezone` is set only " +
        "where the country has one time zone), or `none` (no location: empty strings, 0, 0).",
    }),
    database_location: Type.Optional(
      Type.Object(
        { country_code: Type.String(), region: Type.String(), city: Type.String() },
        {
          additionalProperties: false,
          description:
            "Present when a declared location put the address in another country than the city database does: what " +
            "the database says.",
        },
      ),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: "Why the answer may say less than it should, e.g. no reputation feed loaded.",
      }),
    ),
  },
  {
    $id: "ReputationReasons",
    description: "Only with `?explain=1`: why the address has its level.",
    additionalProperties: false,
  },
);
export type Explanation = Static<typeof ExplanationSchema>;

import { type Static, Type } from "@sinclair/typebox";
import { ReputationSchema } from "../verdict/reputation-schema.ts";
import { ExplanationSchema } from "./explanation-schema.ts";

/** The answer's reputation: the verdict, and with `?explain=1` why. */
export const AnsweredReputationSchema = Type.Object(
  { ...ReputationSchema.properties, reasons: Type.Optional(ExplanationSchema) },
  { $id: "Reputation", additionalProperties: false },
);

/**
 * The spec's IP answer, keys in the spec's order: the one declaration of its fields. The hot
 * path writes it from parts (`answerJsonFrom`); test/ip/answer/ip-answer-schema.test.ts holds
 * what it writes to exactly these fields in this order.
 */
export const IpAnswerSchema = Type.Object(
  {
    ip: Type.String({ description: "The address checked, in canonical form." }),
    country: Type.String({ description: "English country name; empty when unknown." }),
    country_code: Type.String({ description: "ISO 3166-1 alpha-2; empty when unknown.", pattern: "^([A-Z]{2})?$" }),
    flag: Type.Optional(
      Type.String({
        description: "The country's flag emoji (empty when unknown); absent for addresses that are not global unicast.",
      }),
    ),
    region: Type.String({ description: "ISO 3166-2 subdivision code without the country prefix." }),
    region_name: Type.String(),
    city: Type.String(),
    subdivisions: Type.String({ description: "Further subdivisions, joined; may be empty." }),
    connection_type: Type.String({ description: "`Corporate`, `Residential`, `Cellular`, `Satellite` or empty." }),
    is_anycast: Type.Boolean(),
    zip: Type.String(),
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    timezone: Type.String({ description: "IANA time zone; empty when unknown." }),
    isp: Type.String(),
    organization: Type.String(),
    asn: Type.String({ description: "`AS<number> <organisation>`; empty when unknown.", pattern: "^(AS[0-9]+ .*)?$" }),
    reputation: AnsweredReputationSchema,
  },
  { $id: "IpCheck", additionalProperties: false },
);
export type IpAnswer = Static<typeof IpAnswerSchema>;

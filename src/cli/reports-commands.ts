import type { CommandSpec } from "./command-spec.ts";
import { DATA_DIR, DATABASE_URL, DB, JSON_OUTPUT } from "./commands.ts";

/** The tables of `riskcheck reports list|export|delete` (reports.ts runs them). */

const SINCE = {
  name: "since",
  type: "string",
  value: "DATE",
  description: "Only reports made at or after this date (2026-11-01, or a full ISO time)",
} as const;

export const REPORTS_LIST = {
  name: "reports list",
  summary: "List the local abuse reports, newest first: when, address, category, reporting key, comment",
  flags: [
    { name: "ip", type: "string", value: "IP", description: "Only the reports of this address" },
    SINCE,
    JSON_OUTPUT,
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  examples: [
    "riskcheck reports list",
    "riskcheck reports list --ip 203.0.113.9 --json",
    "riskcheck reports list --since 2026-11-01",
  ],
} as const satisfies CommandSpec;

export const REPORTS_EXPORT = {
  name: "reports export",
  summary: "Write the local abuse reports since a date as CSV, for audit",
  flags: [{ ...SINCE, required: true }, DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck reports export --since 2026-01-01 > reports.csv"],
} as const satisfies CommandSpec;

export const REPORTS_DELETE = {
  name: "reports delete",
  summary:
    "Retract the reports of an address, all of a key's (a rogue reporter's), or one key's of one address; running " +
    "servers follow within 10 s",
  flags: [
    { name: "ip", type: "string", value: "IP", description: "The address whose reports go" },
    {
      name: "key",
      type: "string",
      value: "ID_OR_NAME",
      description: "Only this key's reports (its id, or its name); without --ip, all of them",
    },
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  examples: [
    "riskcheck reports delete --ip 203.0.113.9",
    "riskcheck reports delete --ip 203.0.113.9 --key waf",
    "riskcheck reports delete --key waf",
  ],
} as const satisfies CommandSpec;

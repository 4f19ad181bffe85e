import type { CommandSpec } from "./command-spec.ts";
import { DATA_DIR, DATABASE_URL, DB, JSON_OUTPUT } from "./commands.ts";

/** The tables of `riskcheck audit list|export` (audit.ts runs them). */

const SINCE = {
  name: "since",
  type: "string",
  value: "DATE",
  description: "Only events at or after this date (2026-11-01, the start of that day UTC, or a full ISO time)",
} as const;
const ACTION = {
  name: "action",
  type: "string",
  value: "ACTION",
  description: "Only this action (key.revoked) or family of actions (key, sign_in, ip_override …)",
} as const;
const TARGET = {
  name: "target",
  type: "string",
  value: "TEXT",
  description: "Only events whose target contains this text, any case: a key's id or name, a domain, an address",
} as const;

export const AUDIT_LIST = {
  name: "audit list",
  summary:
    "The audit log, newest first: who changed keys, overrides, reports, the password and the data, from where and when",
  flags: [
    SINCE,
    ACTION,
    TARGET,
    {
      name: "limit",
      type: "string",
      value: "N",
      default: "100",
      description: "At most this many events (1 to 100000)",
    },
    JSON_OUTPUT,
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  examples: [
    "riskcheck audit list",
    "riskcheck audit list --action sign_in --since 2026-11-01",
    "riskcheck audit list --target checkout-backend --json",
  ],
} as const satisfies CommandSpec;

export const AUDIT_EXPORT = {
  name: "audit export",
  summary: "Write the audit log since a date as JSON Lines, oldest first, one event a line, for a log system",
  flags: [{ ...SINCE, required: true }, ACTION, TARGET, DATA_DIR, DB, DATABASE_URL],
  examples: ["riskcheck audit export --since 2026-01-01 > audit.jsonl"],
} as const satisfies CommandSpec;

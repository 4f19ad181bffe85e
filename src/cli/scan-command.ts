import type { CommandSpec } from "./command-spec.ts";
import { DATABASE_URL, DATA_DIR, DB, settingVariables } from "./commands.ts";

/** The table of `riskcheck scan` (scan.ts runs it). */

export const SCAN = {
  name: "scan",
  summary: "Check every address of a file (CSV, JSON Lines or one per line) offline, with the data `serve` uses",
  details: [
    "Needs no server: loads the current dataset version of --data-dir and gives each value the answer GET " +
      "/v1/check or /v1/ip-reputation-check would give. Reads FILE, or standard input when it is - or left out, one " +
      "piece at a time: memory stays flat however long the input.",
    "CSV needs a header; the email and IP columns are found by their names (email, e-mail, user_email, ip, " +
      "ip_address, signup_ip …) unless --email-column / --ip-column name them. JSON Lines: objects (keys found the " +
      "same way) or strings. Otherwise each line is one value: an email address when it has an @, else an IP " +
      "address. Values are checked with surrounding spaces trimmed (GET refuses a padded value). UTF-8, or UTF-16 " +
      "with its byte order mark; anything else is refused.",
    "Writes each row with its line number, its input and the answers' fields; a row that cannot be read (a line " +
      "over 1 MiB included) or holds an invalid value is written with its error and counted, and the scan goes on. " +
      "A CSV field a spreadsheet would run as a formula starts with '. The output may not be the input file. On a " +
      "terminal a progress line is shown; at the end a summary naming the columns read (on standard error when the " +
      "rows go to standard output).",
    "Answers as a running server does: with RISKCHECK_EMAIL_EVIDENCE, with DNS evidence when RISKCHECK_DNS_RESOLVER " +
      "is set (a domain no list decides looked up, as many at once as RISKCHECK_DNS_IN_FLIGHT, each within " +
      "RISKCHECK_DNS_BUDGET_MS), the email override lines (riskcheck email " +
      "allow/deny) in force when the scan starts and this appliance's own abuse reports of the last " +
      "RISKCHECK_REPORT_WINDOW (POST /v1/reports), read from the server's database (--db, or --database-url for " +
      "PostgreSQL). When the SQLite file does not exist, scan does not create it: no line and no report applies, " +
      "and the summary says so.",
    '--policy FILE decides every row as an assessment (docs/assess.md): a rule set, {"rules": [...]} ({"rules": []} ' +
      "is the default policy alone). Each row gets its decision, score, reason codes, the rule that decided and the " +
      "shadow rules that would have; the summary counts the decisions and what each rule decided or would have. A " +
      "file that does not parse is refused whole, naming the rule and the field.",
    "Exit status: 0 when the scan completed, 1 on an I/O error (input, output or data directory), 2 on a usage error.",
  ],
  operand: { name: "FILE", description: "The input; - or left out for standard input", optional: true },
  flags: [
    { name: "out", type: "string", value: "FILE", default: "standard output", description: "Where the rows go" },
    {
      name: "format",
      type: "string",
      value: "csv|jsonl",
      default: "jsonl for JSON Lines input, csv otherwise",
      description: "Output format",
    },
    {
      name: "email-column",
      type: "string",
      value: "NAME",
      description: "The CSV column (or JSON key) with the email addresses",
    },
    {
      name: "ip-column",
      type: "string",
      value: "NAME",
      description: "The CSV column (or JSON key) with the IP addresses",
    },
    {
      name: "explain",
      type: "boolean",
      description: "Add the reasons, as ?explain=1 gives them (CSV: the email_reasons and ip_reasons columns, as JSON)",
    },
    {
      name: "only-risky",
      type: "boolean",
      description: "Write only rows with a disposable email address or a risky (warning or bad) IP address",
    },
    {
      name: "policy",
      type: "string",
      value: "FILE",
      description: "Decide each row with this rule set (JSON): a backtest of a policy (docs/assess.md)",
    },
    {
      name: "event",
      type: "string",
      value: "LABEL",
      default: "signup",
      description: "With --policy: the event label every row is decided as (rules may name it)",
    },
    DATA_DIR,
    DB,
    DATABASE_URL,
  ],
  environment: settingVariables("scan"),
  examples: [
    "riskcheck scan users.csv --out checked.csv",
    "riskcheck scan users.csv --email-column contact --ip-column last_login_ip --only-risky",
    "cut -d, -f3 users.csv | riskcheck scan --format jsonl > answers.jsonl",
    "riskcheck scan signups.csv --policy candidate.json --out decided.csv",
  ],
} as const satisfies CommandSpec;

import { Elysia } from "elysia";
import type { ReportOutcomes } from "../../metrics/report-outcomes.ts";
import type { LocalReportIndex } from "../../reports/local-report-index.ts";
import {
  type NewReport,
  REPORT_CATEGORIES,
  REPORT_PROBLEMS,
  type ReportProblem,
  type ReportSettings,
  checkReport,
  dayStartMs,
} from "../../reports/report.ts";
import type { AddOutcome, ReportStore } from "../../reports/report-store.ts";
import { storageFaultOf } from "../../faults/storage-fault.ts";
import type { StorageHealth } from "../../faults/storage-health.ts";
import { type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import { MAX_BATCH_BYTES, MAX_BATCH_ITEMS } from "../batch-limits.ts";
import { API_ERRORS, type ApiError, storageFaultResponse } from "../errors.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";
import { Type } from "@sinclair/typebox";
import { OneOf, StringEnum } from "../../schema/json-schema.ts";
import {
  type PathOperations,
  RATE_HEADERS,
  errorExample,
  errorSchema,
  jsonContent,
  ref,
  storageUnavailable,
  tooManyRequests,
} from "../openapi-parts.ts";
import { REPORT_EXAMPLES } from "../openapi-examples.ts";

export interface ReportDeps extends AdmissionDeps {
  readonly reports: {
    readonly store: ReportStore;
    /** The verdict's index, told of this instance's reports as soon as they are stored. */
    readonly index: LocalReportIndex;
    readonly settings: ReportSettings;
    readonly outcomes: ReportOutcomes;
  };
  readonly storage: StorageHealth;
  readonly logError: (line: string) => void;
}

/** `POST /v1/reports`. The route reads its body itself, with its own limit: Elysia parses none. */
export function reportRoute(deps: ReportDeps) {
  return new Elysia().post("/v1/reports", ({ request }) => postReports(deps, request), { parse: "none" });
}

type Body = { readonly items: readonly unknown[]; readonly single: boolean };

/** A key with `report`; reports use no quota. */
const REPORT: AdmissionRule = { permission: "report", usage: "report" };

const REPORT_BODY: BodyStep<Body> = {
  async read(request) {
    const text = await readBodyText(request, MAX_BATCH_BYTES);
    return typeof text === "string"
      ? parseBody(text)
      : text.problem === "too_large"
        ? API_ERRORS.reportsTooLarge
        : API_ERRORS.invalidReports;
  },
};

/**
 * One report, `{"ip","category","comment"}`, or `{"reports": […]}` of up to 1,000.
 * Authentication and the `report` permission, one rate-limit token for the request (no
 * quota), then the body. Answers once the accepted reports are committed:
 * `{"accepted","duplicates","rejected":[{"index","error","message"}]}`. A single report
 * that is wrong is the 400 with the standard error body.
 */
export async function postReports(deps: ReportDeps, request: Request): Promise<Response> {
  const admission = await admit(deps, request, REPORT, REPORT_BODY);
  if (admission instanceof Response) return admission;
  const { body, key, nowMs } = admission;
  const headers = admission.headers(0);

  const checked = body.items.map(checkReport);
  const valid: { index: number; report: NewReport }[] = [];
  const rejected: { index: number; error: ReportProblem; message: string }[] = [];
  checked.forEach((c, index) => {
    if ("problem" in c) rejected.push({ index, error: c.problem, message: REPORT_PROBLEMS[c.problem] });
    else valid.push({ index, report: c });
  });
  const { outcomes } = deps.reports;
  outcomes.rejected += rejected.length;
  if (body.single && rejected.length === 1) {
    admission.record("report", "bad_request");
    return new Response(JSON.stringify({ error: rejected[0].error, message: rejected[0].message }), {
      status: 400,
      headers,
    });
  }

  const { store, index, settings } = deps.reports;
  let added: AddOutcome[] = [];
  try {
    added =
      valid.length === 0
        ? []
        : await store.add(
            key.id,
            valid.map((v) => v.report),
            nowMs,
            {
              dedupSinceMs: nowMs - settings.dedupMs,
              daySinceMs: dayStartMs(nowMs),
              dailyAddresses: settings.keyDailyLimit,
            },
          );
  } catch (err) {
    const fault = storageFaultOf(err);
    if (fault === null) throw err;
    if (deps.storage.noted(fault)) deps.logError(`POST /v1/reports: ${fault.message} (answered 503 while it lasts)`);
    return storageFaultResponse(fault, "POST", headers);
  }
  const accepted = valid.filter((_, i) => added[i] === "stored").map((v) => v.report);
  valid.forEach((v, i) => {
    if (added[i] !== "limit_reached") return;
    rejected.push({ index: v.index, error: "limit_reached", message: REPORT_PROBLEMS.limit_reached });
    outcomes.rejected++;
  });
  rejected.sort((a, b) => a.index - b.index);
  const duplicates = added.filter((o) => o === "duplicate").length;
  index.add(accepted.map((r) => ({ keyId: key.id, ip: r.ip, category: r.category, reportedAtMs: nowMs })));
  outcomes.accepted += accepted.length;
  outcomes.duplicate += duplicates;
  admission.record("report", "ok");
  admission.record("report", "reports_accepted", accepted.length);
  return new Response(JSON.stringify({ accepted: accepted.length, duplicates, rejected }), { headers });
}

function parseBody(text: string): Body | ApiError {
  const value = jsonObjectOf(text);
  if (value === null) return API_ERRORS.invalidReports;
  if (!("reports" in value)) return { items: [value], single: true };
  const { reports, ...rest } = value as { reports: unknown };
  if (!Array.isArray(reports) || Object.keys(rest).length > 0) return API_ERRORS.invalidReports;
  if (reports.length > MAX_BATCH_ITEMS) return API_ERRORS.tooManyReports;
  return { items: reports, single: false };
}

export const ReportSchema = Type.Object(
  {
    ip: Type.String({ description: "A global unicast address; private and reserved space cannot be reported." }),
    category: StringEnum(REPORT_CATEGORIES),
    comment: Type.Optional(Type.String({ description: "At most 1,024 bytes, kept for the operator." })),
  },
  { $id: "Report", additionalProperties: false },
);

export const ReportRequestSchema = OneOf(
  [
    ReportSchema,
    Type.Object(
      {
        reports: Type.Array(Type.Unknown(), {
          maxItems: MAX_BATCH_ITEMS,
          description: "Reports; an item that is no report is rejected by its index.",
        }),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: "ReportRequest" },
);

export const ReportAnswerSchema = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0 }),
    duplicates: Type.Integer({ minimum: 0 }),
    rejected: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0 }),
          error: StringEnum(Object.keys(REPORT_PROBLEMS)),
          message: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "ReportAnswer", additionalProperties: false },
);

/** `POST /v1/reports` as the OpenAPI document describes it. */
export const REPORT_OPERATIONS = {
  "/v1/reports": {
    post: {
      tags: ["checks"],
      operationId: "report",
      summary: "Report abusive addresses your own services saw: the verdict's `local` source",
      description:
        'One report, or `{"reports": [...]}` with up to 1,000. Needs a key with the `report` permission; one ' +
        "rate-limit token per request, no quota. A key's repeat of a report (same address and category) within " +
        "RISKCHECK_REPORT_DEDUP (24 h) is a duplicate. A key reports at most RISKCHECK_REPORT_KEY_DAILY_LIMIT " +
        "distinct addresses a day (UTC); a report of a further one is rejected with `limit_reached`. In the IP " +
        "check, `local` adds the number of distinct keys that reported the address within RISKCHECK_REPORT_WINDOW " +
        "(90 days), each key once whatever its categories. The 200 is sent once the accepted reports are committed.",
      security: [{ apiKey: [] }],
      requestBody: {
        required: true,
        description: "At most 1 MiB of JSON.",
        content: jsonContent(ReportRequestSchema, {
          batch: {
            summary: "Three reports, one a duplicate and one of a private address",
            value: REPORT_EXAMPLES.request,
          },
        }),
      },
      responses: {
        "200": {
          description:
            "How many reports were accepted and how many were duplicates; each rejected item by its index, with its error.",
          headers: RATE_HEADERS,
          content: jsonContent(ReportAnswerSchema, {
            batch: { summary: "POST /v1/reports with the request's example", value: REPORT_EXAMPLES.answer },
          }),
        },
        "400": {
          description:
            'The body is not JSON, not one report nor `{"reports": [...]}`, holds over 1,000 reports, ' +
            "or is one report that is wrong (its error).",
          headers: RATE_HEADERS,
          content: jsonContent(
            errorSchema([
              API_ERRORS.invalidReports,
              API_ERRORS.tooManyReports,
              ...Object.keys(REPORT_PROBLEMS)
                .filter((error) => error !== "limit_reached")
                .map((error) => ({ error })),
            ]),
            {
              invalid_body: errorExample(API_ERRORS.invalidReports, "Not JSON"),
              too_many_items: errorExample(API_ERRORS.tooManyReports, "1,001 reports"),
              private_address: {
                summary: '{"ip": "10.0.0.1", "category": "bot"}',
                value: { error: "private_address", message: REPORT_PROBLEMS.private_address },
              },
            },
          ),
        },
        "401": ref("responses", "Unauthorized"),
        "403": ref("responses", "Forbidden"),
        "413": {
          description: "The body is over 1 MiB.",
          headers: RATE_HEADERS,
          content: jsonContent(errorSchema([API_ERRORS.reportsTooLarge]), {
            body_too_large: errorExample(API_ERRORS.reportsTooLarge, "A body over 1 MiB"),
          }),
        },
        "429": tooManyRequests("The key's rate limit is used up; nothing was stored."),
        "500": ref("responses", "InternalError"),
        "503": storageUnavailable(["locked"]),
      },
    },
  },
} satisfies PathOperations;

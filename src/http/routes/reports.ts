import { Elysia } from "elysia";
import type { ReportOutcomes } from "../../metrics/report-outcomes.ts";
import type { LocalReportIndex } from "../../reports/local-report-index.ts";
import {
  type NewReport,
  REPORT_PROBLEMS,
  type ReportProblem,
  type ReportSettings,
  checkReport,
  dayStartMs,
} from "../../reports/report.ts";
import { type AddOutcome, type ReportStore, ReportStoreBusy } from "../../reports/report-store.ts";
import { type AdmissionDeps, type AdmissionRule, type BodyStep, admit } from "../admission.ts";
import { MAX_BATCH_BYTES, MAX_BATCH_ITEMS } from "../batch-limits.ts";
import { API_ERRORS, type ApiError, errorResponse } from "../errors.ts";
import { jsonObjectOf, readBodyText } from "../../requests/request-body.ts";

export interface ReportDeps extends AdmissionDeps {
  readonly reports: {
    readonly store: ReportStore;
    /** The verdict's index, told of this instance's reports as soon as they are stored. */
    readonly index: LocalReportIndex;
    readonly settings: ReportSettings;
    readonly outcomes: ReportOutcomes;
  };
}

/** `POST /v1/reports`. The route reads its body itself, with its own limit: Elysia parses none. */
export function reportRoute(deps: ReportDeps) {
  return new Elysia().post("/v1/reports", ({ request }) => postReports(deps, request), { parse: "none" });
}

/** What a 503 asks the client to wait before it sends the same reports again. */
const STORE_BUSY_RETRY_AFTER_S = 2;

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
    if (!(err instanceof ReportStoreBusy)) throw err;
    return errorResponse(API_ERRORS.storeBusy, { ...headers, "retry-after": String(STORE_BUSY_RETRY_AFTER_S) });
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

import { CompiledPolicy } from "../../assess/compiled-policy.ts";
import { DecisionTally } from "../../assess/decision-tally.ts";
import { PolicyError, problemText } from "../../assess/parse-policy.ts";
import {
  type PolicyEdit,
  PolicyBusy,
  RuleNotFound,
  moveRule,
  putRule,
  removeRule,
  replaceRules,
  setMode,
} from "../../assess/policy-edits.ts";
import { type PolicyRule, RULE_MODES, type RuleMode, isActive } from "../../assess/policy-rule.ts";
import type { PolicyCount } from "../../assess/policy-store.ts";
import { auditedPolicy } from "../../audit/audited-policy.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import { field } from "../forms.ts";
import type { AuthorisedPost, ClientInfo, Gate, SignedIn } from "../gate.ts";
import type { Notice } from "../pages/notice.ts";
import { type PolicyView, type PolicyWeek, policyPage } from "../pages/policy.ts";
import { doneNotice, page, redirect } from "../responses.ts";

const AUTHOR = "dashboard";
/** The page counts this many days, today included. */
const DAYS = 7;
const PLACE = /^[1-9]\d{0,3}$/;

const NOTICES = new Map([
  ["added", "The rule was added; every running server applies it within 2 s."],
  ["changed", "The rule was changed; every running server applies it within 2 s."],
  ["removed", "The rule was removed."],
  ["replaced", "The rule set was replaced; every running server applies it within 2 s."],
]);

/** A form that cannot be an edit: what to say on the page. */
class FormProblem extends Error {}

/** `/dashboard/policy`: the assessment rules listed with their counts, added, switched, moved, removed, or replaced whole. */
export class PolicyActions {
  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
  ) {}

  async view(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.gate.sessionOrSignIn(request, client);
    if (current instanceof Response) return current;
    return this.page(current, doneNotice(request, NOTICES));
  }

  add(request: Request, client: ClientInfo): Promise<Response> {
    return this.edit(request, client, "added", (form, nowMs) => {
      const position = field(form, "position")?.trim() || null;
      if (position !== null && !PLACE.test(position)) throw new FormProblem("The place is a number from 1.");
      return putRule(json(form, "rule"), { author: AUTHOR, nowMs }, position === null ? null : Number(position));
    });
  }

  replace(request: Request, client: ClientInfo): Promise<Response> {
    return this.edit(request, client, "replaced", (form, nowMs) =>
      replaceRules(json(form, "set"), { author: AUTHOR, nowMs }, field(form, "shadow") === "yes"),
    );
  }

  setMode(request: Request, client: ClientInfo): Promise<Response> {
    return this.edit(request, client, "changed", (form) => {
      const mode = field(form, "mode");
      if (!RULE_MODES.includes(mode as RuleMode)) throw new FormProblem("Choose enforce or shadow.");
      return setMode(ruleId(form), mode as RuleMode);
    });
  }

  move(request: Request, client: ClientInfo): Promise<Response> {
    return this.edit(request, client, "changed", (form) => {
      const position = field(form, "position") ?? "";
      if (!PLACE.test(position)) throw new FormProblem("The place is a number from 1.");
      return moveRule(ruleId(form), Number(position));
    });
  }

  remove(request: Request, client: ClientInfo): Promise<Response> {
    return this.edit(request, client, "removed", (form) => removeRule(ruleId(form)));
  }

  /** Reads the form into an edit, applies it as the signed-in user (audited), serves it here, and says why when it was refused. */
  private async edit(
    request: Request,
    client: ClientInfo,
    done: string,
    make: (form: URLSearchParams, nowMs: number) => PolicyEdit,
  ): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    try {
      await auditedPolicy(this.deps.policy.store, current.audit).apply(make(current.form, this.deps.now()));
    } catch (err) {
      const refused = refusal(err);
      if (refused === null) throw err;
      // The rule or set sent stays in its form, to be mended rather than written again.
      const drafts = { rule: field(current.form, "rule") ?? "", set: field(current.form, "set") ?? "" };
      return this.page(current, { text: refused.text, error: true }, refused.status, drafts);
    }
    await this.deps.policy.refresh();
    return redirect(`/dashboard/policy?done=${done}`);
  }

  private async page(
    current: SignedIn | AuthorisedPost,
    notice?: Notice,
    status = 200,
    drafts?: PolicyView["drafts"],
  ): Promise<Response> {
    const nowMs = this.deps.now();
    const since = dayOf(nowMs - (DAYS - 1) * 86_400_000);
    const [{ revision, rules }, counts] = await Promise.all([
      this.deps.policy.store.read(),
      this.deps.policy.store.countsSince(since),
    ]);
    const view = {
      version: CompiledPolicy.inForce(rules, nowMs).version,
      revision,
      rules: rules.map((r) => ({ ...r, active: isActive(r, nowMs) })),
      week: week(rules, counts, since),
      csrfToken: current.session.csrfToken,
      notice,
      drafts,
    };
    return page(policyPage(view), status);
  }
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The stored counts per event, the busiest first. */
function week(rules: readonly PolicyRule[], counts: readonly PolicyCount[], since: string): PolicyWeek {
  const byEvent = new Map<string, DecisionTally>();
  for (const row of counts) {
    let tally = byEvent.get(row.event);
    if (tally === undefined) byEvent.set(row.event, (tally = new DecisionTally(rules)));
    tally.add(row);
  }
  return { since, byEvent: new Map([...byEvent].sort((a, b) => b[1].assessed - a[1].assessed)) };
}

function ruleId(form: URLSearchParams): string {
  const id = field(form, "id");
  if (id === undefined || id === "") throw new FormProblem("The form named no rule.");
  return id;
}

function json(form: URLSearchParams, name: string): unknown {
  const text = field(form, name) ?? "";
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new FormProblem(`That is not JSON: ${(err as Error).message}.`);
  }
}

/** What the page says of an edit that was not made, or null for a fault that is not the user's. */
function refusal(err: unknown): { text: string; status: number } | null {
  if (err instanceof FormProblem) return { text: err.message, status: 400 };
  if (err instanceof PolicyError)
    return { text: `Refused, nothing changed: ${err.problems.map(problemText).join("; ")}`, status: 400 };
  if (err instanceof RuleNotFound) return { text: `${err.message}: it may have just been removed.`, status: 404 };
  if (err instanceof PolicyBusy) return { text: err.message, status: 409 };
  return null;
}

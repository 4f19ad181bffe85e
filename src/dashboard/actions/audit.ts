import { isActionFilter } from "../../audit/audit-log.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import type { Gate } from "../gate.ts";
import { auditPage } from "../pages/audit.ts";
import { page, problem } from "../responses.ts";

/** Events on a page of the audit log. */
const AUDIT_PER_PAGE = 50;
const EVENT_ID = /^[1-9]\d{0,15}$/;

/** `/dashboard/audit[?action=A&target=T&before=ID]`: the audit log, newest first, a page at a time. */
export class AuditActions {
  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
  ) {}

  async audit(request: Request): Promise<Response> {
    const current = await this.gate.sessionOrBack(request);
    if (current instanceof Response) return current;
    const params = new URL(request.url).searchParams;
    const action = params.get("action")?.trim() || undefined;
    const target = params.get("target")?.trim() || undefined;
    const before = params.get("before");
    if (action !== undefined && !isActionFilter(action))
      return problem("No such action", "Choose an action, or a family of them, from the list.", 400);
    if (target !== undefined && target.length > 200)
      return problem("Target too long", "Look for at most 200 characters of a target.", 400);
    if (before !== null && !EVENT_ID.test(before))
      return problem("No such page", "The page is named by an event's number.", 400);
    const events = await this.deps.audit.log.read(
      { action, target },
      { order: "newest_first", before: before === null ? undefined : Number(before), limit: AUDIT_PER_PAGE + 1 },
    );
    const shown = events.slice(0, AUDIT_PER_PAGE);
    const listing = {
      action,
      target,
      before: before === null ? undefined : Number(before),
      older: events.length > AUDIT_PER_PAGE ? shown[shown.length - 1].id : null,
    };
    return page(auditPage(shown, listing, current.session.csrfToken));
  }
}

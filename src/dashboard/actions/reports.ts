import { reportsTarget } from "../../audit/reports-target.ts";
import { parseIpAddress } from "../../ip/address/parse.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import { field } from "../forms.ts";
import type { ClientInfo, Gate } from "../gate.ts";
import { COMMENTS_PER_KEY, deleteReportsConfirmPage, reportsPage } from "../pages/reports.ts";
import { page, problem, redirect } from "../responses.ts";

/** The reported addresses page: the top REPORTED_PAGES × REPORTED_PER_PAGE of the window, a page at a time. */
const REPORTED_PER_PAGE = 50;
const REPORTED_PAGES = 20;

/** `/dashboard/reports`: the addresses this appliance's own reports name, and their reports deleted. */
export class ReportsActions {
  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
  ) {}

  async reports(request: Request): Promise<Response> {
    const current = await this.gate.sessionOrBack(request);
    if (current instanceof Response) return current;
    const params = new URL(request.url).searchParams;
    const deleted = params.get("deleted");
    const pageNumber = Math.min(Math.max(Number.parseInt(params.get("page") ?? "1", 10) || 1, 1), REPORTED_PAGES);
    return this.reportsView(
      current.session.csrfToken,
      pageNumber,
      deleted !== null && /^\d+$/.test(deleted) ? `Deleted ${deleted} report(s).` : undefined,
    );
  }

  /**
   * Deletes an address's reports, one key's of it, or, with no address, all of a key's:
   * that one is asked again (a page saying what will go) before it is done.
   */
  async deleteReports(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const ipText = field(current.form, "ip");
    const keyId = field(current.form, "key") || undefined;
    const ip = ipText ? parseIpAddress(ipText) : null;
    if (ipText && ip === null) return problem("No such address", "The form named no valid IP address.", 400);
    if (ip === null && keyId === undefined)
      return problem("Nothing to delete", "Name an address, a key, or both.", 400);
    const key = keyId === undefined ? null : await this.deps.keys.find(keyId);
    if (field(current.form, "confirm") !== "yes") {
      if (ip === null && key === null) return problem("No such key", "The form named no existing key.", 400);
      return page(
        deleteReportsConfirmPage(
          ip?.text ?? null,
          keyId === undefined ? null : { id: keyId, name: key?.name ?? keyId },
          current.session.csrfToken,
        ),
      );
    }
    const deleted = await current.audit.act(
      "reports.deleted",
      reportsTarget(ip?.text ?? null, keyId === undefined ? null : { id: keyId, name: key?.name ?? "no such key" }),
      (tx) => tx.reports.delete({ ip: ip?.text, keyId }, this.deps.now()),
      (n) => ({ detail: `${n} report(s)` }),
    );
    await this.deps.reports.refresh();
    return redirect(`/dashboard/reports?deleted=${deleted}`);
  }

  private async reportsView(csrfToken: string, pageNumber: number, notice?: string): Promise<Response> {
    const { index, windowMs } = this.deps.reports;
    const keys = await this.deps.keys.list();
    const names = new Map(keys.map((k) => [k.id, k.name]));
    const ranked = await index.mostReported((pageNumber - 1) * REPORTED_PER_PAGE, REPORTED_PER_PAGE);
    const comments = Map.groupBy(
      await this.deps.reports.store.comments(
        ranked.rows.map((r) => r.ip),
        this.deps.now() - windowMs,
        COMMENTS_PER_KEY,
      ),
      (c) => `${c.ip} ${c.keyId}`,
    );
    const rows = ranked.rows.map((address) => ({
      address,
      keyNames: names,
      comments: (keyId: string) => comments.get(`${address.ip} ${keyId}`) ?? [],
    }));
    const reporters = keys.filter((k) => k.permissions.includes("report"));
    const listing = {
      page: pageNumber,
      perPage: REPORTED_PER_PAGE,
      total: ranked.total,
      pages: Math.min(REPORTED_PAGES, Math.ceil(ranked.total / REPORTED_PER_PAGE)),
    };
    return page(reportsPage(rows, listing, reporters, Math.round(windowMs / 86_400_000), csrfToken, notice));
  }
}

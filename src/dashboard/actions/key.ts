import { KeyStoreError } from "../../keys/key-store.ts";
import { dailyOutcomes } from "../../keys/usage-outcomes.ts";
import { parseGrace } from "../../keys/rotation-grace.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import { field } from "../forms.ts";
import type { ClientInfo, Gate } from "../gate.ts";
import { formChanges } from "../key-setting-form.ts";
import { keyPage, keyRotatedPage, rotateConfirmPage } from "../pages/key.ts";
import { revokeConfirmPage } from "../pages/keys.ts";
import type { Notice } from "../pages/notice.ts";
import { doneNotice, page, problem, redirect } from "../responses.ts";
import type { Session } from "../sessions.ts";
import { KEY_NOTICES } from "./keys.ts";

/** Days the key page's chart shows. */
const CHART_DAYS = 30;

const noSuchKey = () => problem("No such key", "That key does not exist.", 404);

/** A revocation that another tab, instance or the CLI made first: the outcome the user asked for. */
function ignoreAlreadyRevoked(err: unknown): void {
  if (!(err instanceof KeyStoreError && err.problem === "already_revoked")) throw err;
}

/** `/dashboard/keys/ID`: a key's page, its settings changed, its secret rotated, the key revoked. */
export class KeyActions {
  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
  ) {}

  /** The key's page, or the way back to the list. */
  async key(request: Request, id: string): Promise<Response> {
    const current = await this.gate.sessionOrBack(request);
    if (current instanceof Response) return current;
    return this.keyView(current.session, id, doneNotice(request, KEY_NOTICES));
  }

  private async keyView(session: Session, id: string, notice?: Notice, status = 200): Promise<Response> {
    const { keys, usage, usageStore, now, serverLimits } = this.deps;
    await usage.flush();
    const key = await keys.find(id);
    if (!key) return noSuchKey();
    const nowMs = now();
    const days = dailyOutcomes(await usageStore.outcomesOf(key.id, CHART_DAYS, nowMs), CHART_DAYS, nowMs);
    return page(keyPage({ key, days, nowMs, serverLimits, csrfToken: session.csrfToken, notice }), status);
  }

  async updateKey(request: Request, id: string, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const key = await this.deps.keys.find(id);
    if (!key) return noSuchKey();
    try {
      await current.keys.update(key.id, formChanges(current.form, key, this.deps.now()));
    } catch (err) {
      if (!(err instanceof KeyStoreError)) throw err;
      return this.keyView(current.session, id, { text: `Nothing was changed: ${err.message}.`, error: true }, 400);
    }
    return redirect(`/dashboard/keys/${encodeURIComponent(id)}?done=updated`);
  }

  /** A rotation without grace asks first; the new secret is shown once. */
  async rotateKey(request: Request, id: string, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const grace = parseGrace(field(current.form, "grace") ?? "");
    if ("error" in grace)
      return this.keyView(
        current.session,
        id,
        { text: `Choose how long the old secret keeps working: ${grace.error}.`, error: true },
        400,
      );
    const { graceMs } = grace;
    const key = await this.deps.keys.find(id);
    if (!key) return noSuchKey();
    if (graceMs === 0 && field(current.form, "confirm") !== "yes")
      return page(rotateConfirmPage(key, current.session.csrfToken));
    try {
      const { after, secret } = await current.keys.rotate(key.id, graceMs, new Date(this.deps.now()));
      return page(keyRotatedPage(after, secret, current.session.csrfToken));
    } catch (err) {
      if (!(err instanceof KeyStoreError)) throw err;
      return this.keyView(current.session, id, { text: `The key was not rotated: ${err.message}.`, error: true }, 400);
    }
  }

  async confirmRevoke(request: Request, id: string): Promise<Response> {
    const current = await this.gate.sessionOrBack(request);
    if (current instanceof Response) return current;
    const key = await this.deps.keys.find(id);
    if (!key) return noSuchKey();
    if (key.revokedAt) return redirect("/dashboard");
    return page(revokeConfirmPage(key, current.session.csrfToken));
  }

  async revoke(request: Request, id: string, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    if (field(current.form, "confirm") !== "yes") return redirect(`/dashboard/keys/${encodeURIComponent(id)}/revoke`);
    const key = await this.deps.keys.find(id);
    if (!key) return noSuchKey();
    if (!key.revokedAt) await current.keys.revoke(key.id, new Date(this.deps.now())).catch(ignoreAlreadyRevoked);
    return redirect("/dashboard?done=revoked");
  }
}

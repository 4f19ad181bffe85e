import { KeyStoreError } from "../../keys/key-store.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import type { ClientInfo, Gate } from "../gate.ts";
import { keyListing } from "../key-rows.ts";
import { formNewKey } from "../key-setting-form.ts";
import { keyCreatedPage, keysPage } from "../pages/keys.ts";
import type { Notice } from "../pages/notice.ts";
import { doneNotice, page, problem } from "../responses.ts";
import type { Session } from "../sessions.ts";

const PAGE_NUMBER = /^[1-9]\d{0,5}$/;

export const KEY_NOTICES = new Map([
  ["revoked", "The key was revoked; the API refuses it from the next request."],
  ["updated", "The key was changed; every running server applies it within 3 s."],
]);

/** `/dashboard`, the first page: the keys, found and a page at a time, and a new key made. */
export class KeysActions {
  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
  ) {}

  async home(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.gate.sessionOrSignIn(request, client);
    if (current instanceof Response) return current;
    const params = new URL(request.url).searchParams;
    return this.keysView(
      current.session,
      doneNotice(request, KEY_NOTICES),
      200,
      params.get("q")?.trim() ?? "",
      params.get("page") ?? "1",
    );
  }

  async createKey(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    try {
      const now = this.deps.now();
      const { key, secret } = await current.keys.create(formNewKey(current.form, now), new Date(now));
      return page(keyCreatedPage(key, secret, current.session.csrfToken));
    } catch (err) {
      if (!(err instanceof KeyStoreError)) throw err;
      return this.keysView(current.session, { text: `The key was not created: ${err.message}.`, error: true }, 400);
    }
  }

  /** One page of the keys matching a search, or the 4xx for a page that is not there. */
  private async keysView(session: Session, notice?: Notice, status = 200, search = "", pageNumber = "1") {
    const { keys, usage, usageStore, serverLimits, now } = this.deps;
    if (!PAGE_NUMBER.test(pageNumber))
      return problem("No such page", "The page number must be a whole number from 1.", 400);
    await usage.flush();
    const listing = await keyListing(keys, usageStore, serverLimits.ipQuotaPerMonth, now(), search, Number(pageNumber));
    if (!listing) return problem("No such page", "There are fewer keys than that page would show.", 404);
    return page(keysPage(listing, serverLimits, session.csrfToken, notice, this.deps.warnings()), status);
  }
}

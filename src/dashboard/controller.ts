import { dailyOutcomes } from "../keys/usage-outcomes.ts";
import { parseDuration } from "../time/duration.ts";
import { keyPage, keyRotatedPage, rotateConfirmPage } from "./pages/key.ts";
import { DASHBOARD_CSS, DASHBOARD_ICON, DASHBOARD_JS } from "./assets.ts";
import type { AdminPassword } from "./admin-password.ts";
import { PasswordCheckSlots } from "./password-check-slots.ts";
import { FailedSignInRecords, unrecordedText } from "./failed-sign-in-records.ts";
import { keyListing } from "./key-rows.ts";
import { passwordNotSetPage, signInPage } from "./pages/sign-in.ts";
import { keyCreatedPage, keysPage, messagePage, revokeConfirmPage } from "./pages/keys.ts";
import {
  SESSION_LIFETIME_MS,
  type Session,
  type SessionStore,
  randomToken,
  sessionLabel,
  tokensEqual,
} from "./sessions.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";
import { KeyStoreError, type KeyStore } from "../keys/key-store.ts";
import type { ServerLimits } from "../keys/key-settings.ts";
import { formChanges, formNewKey } from "./key-setting-form.ts";
import type { UsageRecorder } from "../keys/usage-recorder.ts";
import type { UsageStore } from "../keys/usage-store.ts";
import { emailOverridesPage } from "./pages/email-overrides.ts";
import { OverrideError, type OverrideStore, activeOverrides, overrideLine } from "../email/overrides.ts";
import { normaliseDomain } from "../email/domain-name.ts";
import { readBodyText } from "../requests/request-body.ts";
import { deleteReportsConfirmPage, reportsPage } from "./pages/reports.ts";
import { type ParsedIp, parseIpAddress } from "../ip/address/parse.ts";
import type { IpAnswer } from "../ip/answer/ip-answer.ts";
import { type IpOverrideStore, ipOverrideLine, ipOverrideTarget, targetOfRange } from "../ip/overrides/ip-override.ts";
import { parseCidr } from "../ip/address/address-range.ts";
import type { OverrideInForce } from "../ip/overrides/override-table.ts";
import { type CheckedAddress, ipOverrideConfirmPage, ipOverridesPage } from "./pages/ip-overrides.ts";
import type { LocalReportIndex } from "../reports/local-report-index.ts";
import type { ReportStore } from "../reports/report-store.ts";
import { dashboardActor } from "../audit/actors.ts";
import type { AuditRecorder, AuditTrail } from "../audit/audit-trail.ts";
import { auditedKeyStore } from "../audit/audited-key-store.ts";
import { auditedEmailOverrides, auditedIpOverrides } from "../audit/audited-override-stores.ts";
import { reportsTarget } from "../audit/reports-target.ts";
import { isActionFilter } from "../audit/audit-log.ts";
import { auditPage } from "./pages/audit.ts";

export interface DashboardDeps {
  readonly keys: KeyStore;
  readonly usage: UsageRecorder;
  readonly usageStore: UsageStore;
  readonly password: AdminPassword;
  readonly sessions: SessionStore;
  readonly throttle: SignInThrottle;
  /** What a key without limits of its own follows. */
  readonly serverLimits: ServerLimits;
  readonly now: () => number;
  /** What the operator should know about the data being served (the same as /healthz's). */
  readonly warnings: () => string[];
  readonly emailOverrides: OverrideStore;
  /** Serves the override lines as stored now, in this instance (the others follow within seconds). */
  readonly refreshOverrides: () => Promise<void>;
  readonly ipOverrides: IpOverrideStore;
  /** As refreshOverrides, for the IP lines. */
  readonly refreshIpOverrides: () => Promise<void>;
  /** The API's answer for the address, with its reasons (?explain=1), from the data being served. */
  readonly checkAddress: (ip: ParsedIp) => IpAnswer;
  /** data/ip/allowlist.txt's lines in force, from the data being served. */
  readonly ipAllowlistFile: () => readonly OverrideInForce[];
  readonly reports: {
    readonly store: ReportStore;
    readonly index: LocalReportIndex;
    readonly windowMs: number;
    /** Reads the store again, so that this instance's verdicts follow a deletion at once. */
    readonly refresh: () => Promise<void>;
  };
  /** Where every act of a signed-in user, and every sign-in, is recorded. */
  readonly audit: AuditTrail;
}

/** A signed-in user's state-changing request, its CSRF token checked: the stores it changes record its acts as its own. */
interface AuthorisedPost {
  readonly form: URLSearchParams;
  readonly token: string;
  readonly session: Session;
  readonly audit: AuditRecorder;
  readonly keys: KeyStore;
  readonly emailOverrides: OverrideStore;
  readonly ipOverrides: IpOverrideStore;
}

/** What the app knows about the client: its address (proxy-aware) and whether it reached us over TLS. */
export interface ClientInfo {
  readonly address: string;
  readonly https: boolean;
}

const SESSION_COOKIE = "rc_session";
const SIGN_IN_COOKIE = "rc_signin";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
} as const;

const ASSETS = new Map([
  ["dashboard.css", { body: DASHBOARD_CSS, type: "text/css; charset=utf-8" }],
  ["dashboard.js", { body: DASHBOARD_JS, type: "text/javascript; charset=utf-8" }],
  ["icon.svg", { body: DASHBOARD_ICON, type: "image/svg+xml" }],
]);

const PAGE_NUMBER = /^[1-9]\d{0,5}$/;

const NOTICES = new Map([
  ["revoked", "The key was revoked; the API refuses it from the next request."],
  ["added", "The line was added; every running server applies it within 10 s."],
  ["removed", "The line was removed; the lists decide again."],
  ["updated", "The key was changed; every running server applies it within 3 s."],
]);

/** Days the key page's chart shows. */
const CHART_DAYS = 30;

const IP_NOTICES = new Map([
  ["added", "The line was added; every running server applies it within 3 s."],
  ["removed", "The line was removed; the feeds decide again."],
]);

/** Events on a page of the audit log. */
const AUDIT_PER_PAGE = 50;
const EVENT_ID = /^[1-9]\d{0,15}$/;

/** The reported addresses page: the top REPORTED_PAGES × REPORTED_PER_PAGE of the window, a page at a time. */
const REPORTED_PER_PAGE = 50;
const REPORTED_PAGES = 20;

function page(body: string, status = 200, extra: Record<string, string> = {}, cookies: string[] = []): Response {
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...extra });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(body, { status, headers });
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, ...SECURITY_HEADERS });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

function cookie(name: string, value: string, client: ClientInfo, maxAgeSeconds: number): string {
  return new Bun.Cookie(name, value, {
    httpOnly: true,
    sameSite: "strict",
    secure: client.https,
    path: "/dashboard",
    maxAge: maxAgeSeconds,
  }).toString();
}

function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  return header ? (new Bun.CookieMap(header).get(name) ?? undefined) : undefined;
}

/** The dashboard's forms are tiny: a body over this is no form of its own. */
const MAX_FORM_BYTES = 64 * 1024;

/** The dashboard's forms are URL-encoded; any other body is refused with 415, one that does not arrive whole with 400 or 413. */
async function readForm(request: Request): Promise<URLSearchParams | Response> {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    return page(
      messagePage("Unsupported form", "The dashboard accepts only its own forms (application/x-www-form-urlencoded)."),
      415,
    );
  }
  const body = await readBodyText(request, MAX_FORM_BYTES);
  // The client's doing, not a server fault: a body over the limit, or one that did not arrive whole
  // (the connection closed mid-body, a malformed chunked body, shutdown cut it off). Not logged.
  if (typeof body !== "string" && body.problem === "too_large")
    return page(
      messagePage("Form too large", "The dashboard's forms are small; this one was over the upload limit."),
      413,
    );
  if (typeof body !== "string")
    return page(messagePage("Form not received", "The form did not arrive whole. Try again."), 400);
  return new URLSearchParams(body);
}

/** A field given exactly once, else undefined. */
function field(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

/** Browsers label requests from other sites; refuse those outright, on top of the CSRF token. */
function isCrossSite(request: Request): boolean {
  return request.headers.get("sec-fetch-site") === "cross-site";
}

/** A revocation that another tab, instance or the CLI made first: the outcome the user asked for. */
function ignoreAlreadyRevoked(err: unknown): void {
  if (!(err instanceof KeyStoreError && err.problem === "already_revoked")) throw err;
}

/**
 * The dashboard's controller: sign-in and sessions, the CSRF check on every form, and the keys,
 * email override and reports pages. src/http/groups/dashboard.ts binds it to routes.
 */
export class Dashboard {
  private readonly passwordChecks = new PasswordCheckSlots();
  private readonly failedSignIns = new FailedSignInRecords();

  constructor(private readonly deps: DashboardDeps) {}

  private async session(request: Request): Promise<{ token: string; session: Session } | null> {
    const token = readCookie(request, SESSION_COOKIE);
    const session = await this.deps.sessions.find(token, this.deps.now());
    return session && token ? { token, session } : null;
  }

  /** The form and session of a state-changing request whose CSRF token matches, or the refusal. */
  private async authorisedPost(request: Request, client: ClientInfo): Promise<AuthorisedPost | Response> {
    const current = await this.session(request);
    if (!current) return page(messagePage("Signed out", "Your session has ended. Sign in again."), 403);
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const csrf = field(form, "csrf");
    if (isCrossSite(request) || csrf === undefined || !tokensEqual(csrf, current.session.csrfToken)) {
      return page(
        messagePage("Request refused", "The form's security token did not match. Reload the page and try again."),
        403,
      );
    }
    const audit = this.deps.audit.as(dashboardActor(client.address, sessionLabel(current.token)));
    return {
      form,
      ...current,
      audit,
      keys: auditedKeyStore(this.deps.keys, audit),
      emailOverrides: auditedEmailOverrides(this.deps.emailOverrides, audit),
      ipOverrides: auditedIpOverrides(this.deps.ipOverrides, audit),
    };
  }

  private signInForm(client: ClientInfo, error?: string, status = 200): Response {
    const token = randomToken();
    return page(signInPage(token, error), status, {}, [cookie(SIGN_IN_COOKIE, token, client, 3600)]);
  }

  /** The keys page: one page of the keys matching a search, or the 4xx for a page that is not there. */
  private async keysView(
    session: Session,
    notice?: { text: string; error?: boolean },
    status = 200,
    search = "",
    pageNumber = "1",
  ): Promise<Response> {
    const { keys, usage, usageStore, serverLimits, now } = this.deps;
    if (!PAGE_NUMBER.test(pageNumber))
      return page(messagePage("No such page", "The page number must be a whole number from 1."), 400);
    await usage.flush();
    const listing = await keyListing(keys, usageStore, serverLimits.ipQuotaPerMonth, now(), search, Number(pageNumber));
    if (!listing) return page(messagePage("No such page", "There are fewer keys than that page would show."), 404);
    return page(keysPage(listing, serverLimits, session.csrfToken, notice, this.deps.warnings()), status);
  }

  async home(request: Request, client: ClientInfo): Promise<Response> {
    if (!(await this.deps.password.isSet())) return page(passwordNotSetPage());
    const current = await this.session(request);
    if (!current) return this.signInForm(client);
    const params = new URL(request.url).searchParams;
    const notice = NOTICES.get(params.get("done") ?? "");
    return this.keysView(
      current.session,
      notice ? { text: notice } : undefined,
      200,
      params.get("q")?.trim() ?? "",
      params.get("page") ?? "1",
    );
  }

  async signIn(request: Request, client: ClientInfo): Promise<Response> {
    if (!(await this.deps.password.isSet())) return page(passwordNotSetPage(), 403);
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const formToken = field(form, "csrf");
    const cookieToken = readCookie(request, SIGN_IN_COOKIE);
    if (isCrossSite(request) || !formToken || !cookieToken || !tokensEqual(formToken, cookieToken)) {
      return this.signInForm(client, "The sign-in form expired. Please try again.", 403);
    }
    const now = this.deps.now();
    // The slot is taken before anything is awaited, so sign-ins at once cannot all pass the bound.
    const release = this.passwordChecks.take(client.address, now);
    if (!release)
      return page(messagePage("Busy", "Other sign-ins are being checked right now. Try again in a moment."), 503, {
        "retry-after": "1",
      });
    let correct: boolean;
    let lockedIfWrong: boolean;
    try {
      const { wait, lockedIfWrong: locks } = await this.deps.throttle.begin(client.address, now);
      lockedIfWrong = locks;
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60_000);
        const text = `Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or ask the server's operator to lift the lock with "riskcheck admin unlock".`;
        return page(messagePage("Too many attempts", text), 429, { "retry-after": String(Math.ceil(wait / 1000)) });
      }
      correct = await this.deps.password.verify(field(form, "password") ?? "");
    } finally {
      release();
    }
    if (!correct) {
      const unrecorded = this.failedSignIns.failure(client.address, now);
      if (unrecorded !== null) {
        const anonymous = this.deps.audit.as(dashboardActor(client.address, null));
        const before = unrecordedText(unrecorded);
        await anonymous.record("sign_in.failed", "dashboard", {
          outcome: "failed",
          detail: before ? `wrong password; ${before}` : "wrong password",
        });
        if (lockedIfWrong)
          await anonymous.record("sign_in.locked_out", "dashboard", {
            outcome: "failed",
            detail: "too many failed sign-ins: the address is refused for a while (riskcheck admin unlock lifts it)",
          });
      }
      return this.signInForm(client, "Wrong password.", 401);
    }
    this.passwordChecks.signedInFrom(client.address, now);
    await this.deps.throttle.unlock(client.address, now);
    const { token } = await this.deps.sessions.create(now);
    await this.deps.audit
      .as(dashboardActor(client.address, sessionLabel(token)))
      .record("sign_in.succeeded", "dashboard", { detail: unrecordedText(this.failedSignIns.success()) });
    return redirect("/dashboard", [
      cookie(SESSION_COOKIE, token, client, SESSION_LIFETIME_MS / 1000),
      cookie(SIGN_IN_COOKIE, "", client, 0),
    ]);
  }

  async signOut(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    await this.deps.sessions.destroy(current.token);
    await current.audit.record("sign_out", "dashboard");
    return redirect("/dashboard", [cookie(SESSION_COOKIE, "", client, 0)]);
  }

  async createKey(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
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

  /** `/dashboard/keys/ID`: the key's page, or the way back to the list. */
  async key(request: Request, id: string): Promise<Response> {
    const current = await this.session(request);
    if (!current) return redirect("/dashboard");
    const notice = NOTICES.get(new URL(request.url).searchParams.get("done") ?? "");
    return this.keyView(current.session, id, notice ? { text: notice } : undefined);
  }

  private async keyView(
    session: Session,
    id: string,
    notice?: { text: string; error?: boolean },
    status = 200,
  ): Promise<Response> {
    const { keys, usage, usageStore, now, serverLimits } = this.deps;
    await usage.flush();
    const key = await keys.find(id);
    if (!key) return page(messagePage("No such key", "That key does not exist."), 404);
    const nowMs = now();
    const days = dailyOutcomes(await usageStore.outcomesOf(key.id, CHART_DAYS, nowMs), CHART_DAYS, nowMs);
    return page(keyPage({ key, days, nowMs, serverLimits, csrfToken: session.csrfToken, notice }), status);
  }

  async updateKey(request: Request, id: string, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const key = await this.deps.keys.find(id);
    if (!key) return page(messagePage("No such key", "That key does not exist."), 404);
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
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const grace = field(current.form, "grace") ?? "";
    const graceMs = grace === "0" ? 0 : parseDuration(grace);
    if (graceMs === null)
      return this.keyView(
        current.session,
        id,
        { text: "Choose how long the old secret keeps working.", error: true },
        400,
      );
    const key = await this.deps.keys.find(id);
    if (!key) return page(messagePage("No such key", "That key does not exist."), 404);
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
    const current = await this.session(request);
    if (!current) return redirect("/dashboard");
    const key = await this.deps.keys.find(id);
    if (!key) return page(messagePage("No such key", "That key does not exist."), 404);
    if (key.revokedAt) return redirect("/dashboard");
    return page(revokeConfirmPage(key, current.session.csrfToken));
  }

  async revoke(request: Request, id: string, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    if (field(current.form, "confirm") !== "yes") return redirect(`/dashboard/keys/${encodeURIComponent(id)}/revoke`);
    const key = await this.deps.keys.find(id);
    if (!key) return page(messagePage("No such key", "That key does not exist."), 404);
    if (!key.revokedAt) await current.keys.revoke(key.id, new Date(this.deps.now())).catch(ignoreAlreadyRevoked);
    return redirect("/dashboard?done=revoked");
  }

  /** `/dashboard/email`: the override lines, or the sign-in form. */
  async emailOverrides(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.session(request);
    if (!current) return (await this.deps.password.isSet()) ? this.signInForm(client) : page(passwordNotSetPage());
    const notice = NOTICES.get(new URL(request.url).searchParams.get("done") ?? "");
    return this.overridesView(current.session, notice ? { text: notice } : undefined);
  }

  private async overridesView(
    session: Session,
    notice?: { text: string; error?: boolean },
    status = 200,
  ): Promise<Response> {
    const lines = await this.deps.emailOverrides.list();
    const active = new Set(activeOverrides(lines, this.deps.now()).keys());
    return page(emailOverridesPage(lines, active, session.csrfToken, notice), status);
  }

  async addOverride(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const { form } = current;
    const action = field(form, "action");
    if (action !== "allow" && action !== "deny")
      return this.overridesView(current.session, { text: "Choose allow or deny.", error: true }, 400);
    try {
      const line = overrideLine(
        {
          domain: field(form, "domain") ?? "",
          action,
          reason: field(form, "reason") ?? "",
          author: "dashboard",
          until: field(form, "until") || null,
          force: field(form, "force") === "yes",
        },
        new Date(this.deps.now()),
      );
      await current.emailOverrides.put(line);
    } catch (err) {
      if (!(err instanceof OverrideError)) throw err;
      return this.overridesView(
        current.session,
        {
          text: `The line was not added: ${err.message.replace("--reason", "a reason").replace("--until", "the date").replace("insist with --force", "tick “even on a public suffix” to insist")}.`,
          error: true,
        },
        400,
      );
    }
    await this.deps.refreshOverrides();
    return redirect("/dashboard/email?done=added");
  }

  async removeOverride(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const domain = normaliseDomain(field(current.form, "domain") ?? "");
    if (domain === null)
      return this.overridesView(current.session, { text: "That is not a domain name.", error: true }, 400);
    await current.emailOverrides.remove(domain);
    await this.deps.refreshOverrides();
    return redirect("/dashboard/email?done=removed");
  }

  /** `/dashboard/ip[?check=ADDRESS]`: the IP override lines, and an address checked with its explanation. */
  async ipOverrides(request: Request): Promise<Response> {
    const current = await this.session(request);
    if (!current) return redirect("/dashboard");
    const params = new URL(request.url).searchParams;
    const notice = IP_NOTICES.get(params.get("done") ?? "");
    return this.ipOverridesView(current.session, params.get("check"), notice ? { text: notice } : undefined);
  }

  private async ipOverridesView(
    session: Session,
    check: string | null,
    notice?: { text: string; error?: boolean },
    status = 200,
  ): Promise<Response> {
    const lines = await this.deps.ipOverrides.list();
    const checked = check === null || check.trim() === "" ? null : this.checked(check.trim());
    return page(
      ipOverridesPage(lines, this.deps.ipAllowlistFile(), this.deps.now(), session.csrfToken, checked, notice),
      status,
    );
  }

  /** The address's answer, and the lines the page offers: the address, its /24 (IPv6: /48), its network. */
  private checked(input: string): CheckedAddress {
    const ip = parseIpAddress(input);
    if (ip === null) return { input, answer: null, offers: [] };
    const answer = this.deps.checkAddress(ip);
    const range = targetOfRange(parseCidr(`${ip.text}/${ip.version === 4 ? 24 : 48}`)!);
    const asn = /^AS(\d+) /.exec(answer.asn)?.[1];
    return {
      input,
      answer,
      offers: [
        { label: "Allow this address", target: ip.text },
        { label: "Allow this range", target: range },
        ...(asn ? [{ label: "Allow this network", target: `AS${asn}` }] : []),
      ],
    };
  }

  /** Adds a line after a confirmation page that shows it: from the add form or the check box's offers. */
  async addIpOverride(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const { form } = current;
    const checked = field(form, "checked") ?? "";
    const action = field(form, "action");
    if (action !== "allow" && action !== "deny")
      return this.ipOverridesView(
        current.session,
        checked || null,
        { text: "Choose allow or deny.", error: true },
        400,
      );
    const until = field(form, "until") ?? "";
    try {
      const line = ipOverrideLine(
        {
          target: field(form, "target") ?? "",
          action,
          reason: field(form, "reason") ?? "",
          author: "dashboard",
          until: until || null,
        },
        new Date(this.deps.now()),
      );
      if (field(form, "confirm") !== "yes")
        return page(
          ipOverrideConfirmPage(
            { target: line.target, action, reason: line.reason, until, checked },
            current.session.csrfToken,
          ),
        );
      await current.ipOverrides.put(line);
    } catch (err) {
      if (!(err instanceof OverrideError)) throw err;
      return this.ipOverridesView(
        current.session,
        checked || null,
        {
          text: `The line was not added: ${err.message.replace("--reason", "a reason").replace("--until", "the date")}.`,
          error: true,
        },
        400,
      );
    }
    await this.deps.refreshIpOverrides();
    return redirect(`/dashboard/ip?done=added${checked ? `&check=${encodeURIComponent(checked)}` : ""}`);
  }

  async removeIpOverride(request: Request, client: ClientInfo): Promise<Response> {
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    let target: string;
    try {
      target = ipOverrideTarget(field(current.form, "target") ?? "").text;
    } catch (err) {
      if (!(err instanceof OverrideError)) throw err;
      return this.ipOverridesView(current.session, null, { text: err.message, error: true }, 400);
    }
    await current.ipOverrides.remove(target);
    await this.deps.refreshIpOverrides();
    return redirect("/dashboard/ip?done=removed");
  }

  async reports(request: Request): Promise<Response> {
    const current = await this.session(request);
    if (!current) return redirect("/dashboard");
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
    const current = await this.authorisedPost(request, client);
    if (current instanceof Response) return current;
    const ipText = field(current.form, "ip");
    const keyId = field(current.form, "key") || undefined;
    const ip = ipText ? parseIpAddress(ipText) : null;
    if (ipText && ip === null) return page(messagePage("No such address", "The form named no valid IP address."), 400);
    if (ip === null && keyId === undefined)
      return page(messagePage("Nothing to delete", "Name an address, a key, or both."), 400);
    const key = keyId === undefined ? null : await this.deps.keys.find(keyId);
    if (field(current.form, "confirm") !== "yes") {
      if (ip === null && key === null) return page(messagePage("No such key", "The form named no existing key."), 400);
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
      () => this.deps.reports.store.delete({ ip: ip?.text, keyId }, this.deps.now()),
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
    const rows = ranked.rows.map((address) => ({ address, keyNames: names }));
    const reporters = keys.filter((k) => k.permissions.includes("report"));
    const listing = {
      page: pageNumber,
      perPage: REPORTED_PER_PAGE,
      total: ranked.total,
      pages: Math.min(REPORTED_PAGES, Math.ceil(ranked.total / REPORTED_PER_PAGE)),
    };
    return page(reportsPage(rows, listing, reporters, Math.round(windowMs / 86_400_000), csrfToken, notice));
  }

  /** `/dashboard/audit[?action=A&target=T&before=ID]`: the audit log, newest first, a page at a time. */
  async audit(request: Request): Promise<Response> {
    const current = await this.session(request);
    if (!current) return redirect("/dashboard");
    const params = new URL(request.url).searchParams;
    const action = params.get("action")?.trim() || undefined;
    const target = params.get("target")?.trim() || undefined;
    const before = params.get("before");
    if (action !== undefined && !isActionFilter(action))
      return page(messagePage("No such action", "Choose an action, or a family of them, from the list."), 400);
    if (target !== undefined && target.length > 200)
      return page(messagePage("Target too long", "Look for at most 200 characters of a target."), 400);
    if (before !== null && !EVENT_ID.test(before))
      return page(messagePage("No such page", "The page is named by an event's number."), 400);
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

  /** The asset, or null for a name the dashboard has none of. */
  static asset(name: string): Response | null {
    const asset = ASSETS.get(name);
    if (!asset) return null;
    return new Response(asset.body, {
      headers: { "content-type": asset.type, "x-content-type-options": "nosniff", "cache-control": "no-cache" },
    });
  }
}

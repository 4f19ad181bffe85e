import { dashboardActor } from "../audit/actors.ts";
import type { AuditRecorder } from "../audit/audit-trail.ts";
import { auditedKeyStore } from "../audit/audited-key-store.ts";
import { type AuditedLines, auditedEmailOverrides, auditedIpOverrides } from "../audit/audited-override-stores.ts";
import type { OverrideLine } from "../email/overrides.ts";
import type { IpOverrideLine } from "../ip/overrides/ip-override.ts";
import type { KeyStore } from "../keys/key-store.ts";
import type { DashboardDeps, DashboardWrites } from "./dashboard-deps.ts";
import { field, readForm } from "./forms.ts";
import { passwordNotSetPage, signInPage } from "./pages/sign-in.ts";
import { page, problem, redirect } from "./responses.ts";
import { type Session, randomToken, sessionLabel, tokensEqual } from "./sessions.ts";

/** What the app knows about the client: its address (proxy-aware) and whether it reached us over TLS. */
export interface ClientInfo {
  readonly address: string;
  readonly https: boolean;
}

export interface SignedIn {
  readonly token: string;
  readonly session: Session;
}

/** A signed-in user's state-changing request, its CSRF token checked: the stores it changes record its acts as its own. */
export interface AuthorisedPost extends SignedIn {
  readonly form: URLSearchParams;
  readonly audit: AuditRecorder<DashboardWrites>;
  readonly keys: KeyStore;
  readonly emailOverrides: AuditedLines<OverrideLine>;
  readonly ipOverrides: AuditedLines<IpOverrideLine>;
}

export const SESSION_COOKIE = "rc_session";
export const SIGN_IN_COOKIE = "rc_signin";

export function cookie(name: string, value: string, client: ClientInfo, maxAgeSeconds: number): string {
  return new Bun.Cookie(name, value, {
    httpOnly: true,
    sameSite: "strict",
    secure: client.https,
    path: "/dashboard",
    maxAge: maxAgeSeconds,
  }).toString();
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  return header ? (new Bun.CookieMap(header).get(name) ?? undefined) : undefined;
}

/** Browsers label requests from other sites; refuse those outright, on top of the CSRF token. */
export function isCrossSite(request: Request): boolean {
  return request.headers.get("sec-fetch-site") === "cross-site";
}

/** Who may pass: the session of a request, the CSRF check of every form, and the sign-in form for whoever has none. */
export class Gate {
  constructor(private readonly deps: DashboardDeps) {}

  async session(request: Request): Promise<SignedIn | null> {
    const token = readCookie(request, SESSION_COOKIE);
    const session = await this.deps.sessions.find(token, this.deps.now());
    return session && token ? { token, session } : null;
  }

  /** The signed-in request's session, or what a page shows without one: the sign-in form (or how to set a password). */
  async sessionOrSignIn(request: Request, client: ClientInfo): Promise<SignedIn | Response> {
    if (!(await this.deps.password.isSet())) return page(passwordNotSetPage());
    return (await this.session(request)) ?? this.signInForm(client);
  }

  /** The signed-in request's session, or the way back to the dashboard's first page. */
  async sessionOrBack(request: Request): Promise<SignedIn | Response> {
    return (await this.session(request)) ?? redirect("/dashboard");
  }

  /** The form and session of a state-changing request whose CSRF token matches, or the refusal. */
  async authorisedPost(request: Request, client: ClientInfo): Promise<AuthorisedPost | Response> {
    const current = await this.session(request);
    if (!current) return problem("Signed out", "Your session has ended. Sign in again.", 403);
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const csrf = field(form, "csrf");
    if (isCrossSite(request) || csrf === undefined || !tokensEqual(csrf, current.session.csrfToken))
      return problem("Request refused", "The form's security token did not match. Reload the page and try again.", 403);
    const audit = this.deps.audit.as(dashboardActor(client.address, sessionLabel(current.token)));
    return {
      form,
      ...current,
      audit,
      keys: auditedKeyStore(this.deps.keys, audit),
      emailOverrides: auditedEmailOverrides(this.deps.emailOverrides, audit, this.deps.overrideLimits),
      ipOverrides: auditedIpOverrides(this.deps.ipOverrides, audit, this.deps.overrideLimits),
    };
  }

  signInForm(client: ClientInfo, error?: string, status = 200): Response {
    const token = randomToken();
    return page(signInPage(token, error), status, {}, [cookie(SIGN_IN_COOKIE, token, client, 3600)]);
  }
}

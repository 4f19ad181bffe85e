import { dashboardActor } from "../../audit/actors.ts";
import type { DashboardDeps } from "../dashboard-deps.ts";
import { FailedSignInRecords, unrecordedText } from "../failed-sign-in-records.ts";
import { field, readForm } from "../forms.ts";
import {
  type ClientInfo,
  type Gate,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  cookie,
  isCrossSite,
  readCookie,
} from "../gate.ts";
import { PasswordCheckSlots } from "../password-check-slots.ts";
import { passwordNotSetPage } from "../pages/sign-in.ts";
import { page, problem, redirect } from "../responses.ts";
import { SESSION_LIFETIME_MS, sessionLabel, tokensEqual } from "../sessions.ts";

/** Signing in (the password checked within bounds, failures recorded and throttled) and out. */
export class SignInActions {
  private readonly passwordChecks = new PasswordCheckSlots();
  private readonly failedSignIns = new FailedSignInRecords();

  constructor(
    private readonly deps: DashboardDeps,
    private readonly gate: Gate,
  ) {}

  async signIn(request: Request, client: ClientInfo): Promise<Response> {
    if (!(await this.deps.password.isSet())) return page(passwordNotSetPage(), 403);
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const formToken = field(form, "csrf");
    const cookieToken = readCookie(request, SIGN_IN_COOKIE);
    if (isCrossSite(request) || !formToken || !cookieToken || !tokensEqual(formToken, cookieToken)) {
      return this.gate.signInForm(client, "The sign-in form expired. Please try again.", 403);
    }
    const now = this.deps.now();
    // The slot is taken before anything is awaited, so sign-ins at once cannot all pass the bound.
    const release = this.passwordChecks.take(client.address, now);
    if (!release)
      return problem("Busy", "Other sign-ins are being checked right now. Try again in a moment.", 503, {
        "retry-after": "1",
      });
    let correct: boolean;
    let lockedIfWrong: boolean;
    try {
      const { wait, lockedIfWrong: locks } = await this.deps.throttle.begin(client.address, now);
      lockedIfWrong = locks;
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60_000);
        const text =
          `Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}, ` +
          'or ask the server\'s operator to lift the lock with "riskcheck admin unlock".';
        return problem("Too many attempts", text, 429, { "retry-after": String(Math.ceil(wait / 1000)) });
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
      return this.gate.signInForm(client, "Wrong password.", 401);
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
    const current = await this.gate.authorisedPost(request, client);
    if (current instanceof Response) return current;
    await this.deps.sessions.destroy(current.token);
    await current.audit.record("sign_out", "dashboard");
    return redirect("/dashboard", [cookie(SESSION_COOKIE, "", client, 0)]);
  }
}

import { describe, expect, setDefaultTimeout, spyOn, test } from "bun:test";
import { DashboardClient, csrfOf } from "../support/dashboard-client.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";
import { eventually } from "../support/deadline.ts";

// Every sign-in runs argon2id (~100 ms of a core); a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const PASSWORD = "correct horse battery staple";

/** The app, a browser holding a sign-in form, and a count of the password hash checks the server ran. */
async function signInForm() {
  const t = await createTestApp({ adminPassword: PASSWORD });
  const hashChecks = spyOn(t.deps.dashboard.password, "verify");
  const browser = new DashboardClient((r) => t.handle(r));
  const csrf = csrfOf((await browser.get("/dashboard")).body);
  // Every form carries the same token as the browser's cookie, which a failed sign-in renews; keep the first.
  const cookie = browser.cookies.get("rc_signin")!;
  const attempt = async (password: string) => {
    browser.cookies.set("rc_signin", cookie);
    const { res, body } = await browser.post("/dashboard/sign-in", { csrf, password });
    return { status: res.status, headers: res.headers, body };
  };
  return { ...t, hashChecks, attempt };
}

describe("sign-in attempts sent in parallel cannot outrun the lock-out", () => {
  test("the fifth failure locks the address before its check ends", async () => {
    const { attempt, hashChecks } = await signInForm();
    for (let i = 0; i < 4; i++) expect((await attempt("wrong password!")).status).toBe(401);
    const parallel = await Promise.all([attempt("wrong password!"), attempt("wrong password!")]);
    expect(parallel.map((r) => r.status).sort()).toEqual([401, 429]);
    expect((await attempt(PASSWORD)).status).toBe(429);
    expect(hashChecks).toHaveBeenCalledTimes(5);
  });
});

describe("however the guesses arrive, at most the threshold is checked per address and window", () => {
  test("100 wrong passwords at once, then 10 more one by one: 5 hash checks in all", async () => {
    const { attempt, hashChecks } = await signInForm();
    const burst = await Promise.all(Array.from({ length: 100 }, () => attempt("wrong password!")));
    expect(new Set(burst.map((r) => r.status))).toEqual(new Set([401, 503]));
    expect(hashChecks.mock.calls.length).toBeLessThanOrEqual(5);
    for (let i = 0; i < 10; i++) await attempt("wrong password!");
    expect((await attempt(PASSWORD)).status).toBe(429);
    expect(hashChecks).toHaveBeenCalledTimes(5);
  });
});

describe("password checks are bounded for the whole server", () => {
  test("at most two run at once; a third sign-in is asked to retry and not counted as a failure", async () => {
    const { attempt, hashChecks } = await signInForm();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let running = 0;
    let mostAtOnce = 0;
    hashChecks.mockImplementation(async () => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await held;
      running--;
      return false;
    });
    const first = attempt("wrong password!");
    const second = attempt("wrong password!");
    await eventually("both checks running", 1_000, () => running === 2, 1);
    const third = await attempt("wrong password!");
    expect(third.status).toBe(503);
    expect(third.headers.get("retry-after")).toBe("1");
    release();
    expect([(await first).status, (await second).status]).toEqual([401, 401]);
    expect(mostAtOnce).toBe(2);
    // Two failures so far: three more are allowed before the lock-out.
    for (let i = 0; i < 3; i++) expect((await attempt("wrong password!")).status).toBe(401);
    expect((await attempt("wrong password!")).status).toBe(429);
    expect(hashChecks).toHaveBeenCalledTimes(5);
  });
});

describe("what a lock-out applies to", () => {
  test("an IPv6 /64 is one client: walking through its addresses does not reset the count", async () => {
    const { attempt, client } = await signInForm();
    for (let i = 1; i <= 5; i++) {
      client.address = `2001:db8:1:2::${i}`;
      expect((await attempt("wrong password!")).status).toBe(401);
    }
    client.address = "2001:db8:1:2:ffff:ffff:ffff:ffff";
    expect((await attempt(PASSWORD)).status).toBe(429);
    client.address = "2001:db8:1:3::1";
    expect((await attempt(PASSWORD)).status).toBe(303);
  });

  test("IPv4 addresses are locked one by one", async () => {
    const { attempt, client } = await signInForm();
    client.address = "198.51.100.1";
    for (let i = 0; i < 5; i++) await attempt("wrong password!");
    expect((await attempt(PASSWORD)).status).toBe(429);
    client.address = "198.51.100.2";
    expect((await attempt(PASSWORD)).status).toBe(303);
  });

  test("the lock-out page tells how to lift it", async () => {
    const { attempt } = await signInForm();
    for (let i = 0; i < 5; i++) await attempt("wrong password!");
    const locked = await attempt(PASSWORD);
    expect(locked.body).toContain("riskcheck admin unlock");
  });
});

describe("lifting lock-outs", () => {
  test("unlock without an address lifts every lock-out and forgets every failure", async () => {
    const { attempt, client, deps, clock } = await signInForm();
    for (const address of ["198.51.100.1", "2001:db8::1"]) {
      client.address = address;
      for (let i = 0; i < 5; i++) await attempt("wrong password!");
    }
    client.address = "198.51.100.3";
    await attempt("wrong password!");
    expect(await deps.dashboard.throttle.unlock(null, clock.now)).toEqual(["198.51.100.1", "2001:db8::/64"]);
    expect(await deps.dashboard.throttle.unlock(null, clock.now)).toEqual([]);
    client.address = "2001:db8::1";
    expect((await attempt(PASSWORD)).status).toBe(303);
  });
});

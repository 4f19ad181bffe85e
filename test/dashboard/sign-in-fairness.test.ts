import { expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { PasswordCheckSlots } from "../../src/dashboard/password-check-slots.ts";
import { csrfOf } from "../support/dashboard-client.ts";
import { makeDataDir, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// Every sign-in runs argon2id (~100 ms of a core); a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

const PASSWORD = "correct horse battery staple";

test("a flood of sign-ins from ever-new forwarded addresses cannot keep the administrator out", async () => {
  const dir = makeDataDir();
  const server = await startServe([], {
    RISKCHECK_DATA_DIR: dir,
    RISKCHECK_DB: join(dir, "r.sqlite"),
    RISKCHECK_ADMIN_PASSWORD: PASSWORD,
    RISKCHECK_TRUST_PROXY: "127.0.0.1",
  });
  let attacking = true;
  try {
    // One sign-in form (its cookie and token), used for every attempt.
    const form = await fetch(`${server.url}/dashboard`);
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const csrf = csrfOf(await form.text());
    const signIn = (from: string, password: string) =>
      fetch(`${server.url}/dashboard/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, "x-forwarded-for": from },
        body: new URLSearchParams({ csrf, password }).toString(),
      }).then(async (res) => (await res.arrayBuffer(), res.status));
    const admin = "198.51.100.50";
    expect(await signIn(admin, PASSWORD)).toBe(303);

    let next = 0;
    const attackStatuses: number[] = [];
    const attacker = async () => {
      while (attacking)
        attackStatuses.push(
          await signIn(`10.${(next >> 16) & 255}.${(next >> 8) & 255}.${next++ & 255}`, "wrong password!"),
        );
    };
    const attackers = Array.from({ length: 6 }, attacker);
    while (!attackStatuses.includes(503)) await Bun.sleep(10);
    const adminStatuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      adminStatuses.push(await signIn(admin, PASSWORD));
      await Bun.sleep(50);
    }
    attacking = false;
    await Promise.all(attackers);
    // Before: the two shared checks were nearly always busy, and the administrator got 503.
    expect(adminStatuses).toEqual([303, 303, 303, 303, 303]);
    expect(attackStatuses).toContain(503);
  } finally {
    attacking = false;
    await server.stop();
  }
});

test("the reserved check is for clients that signed in before, one at a time, and slots come back once", () => {
  const slots = new PasswordCheckSlots();
  const now = Date.parse("2026-11-25T12:00:00Z");
  const shared = [slots.take("192.0.2.1", now), slots.take("192.0.2.2", now)];
  expect(shared.every((release) => release !== null)).toBe(true);
  expect(slots.take("192.0.2.3", now)).toBeNull();
  slots.signedInFrom("2001:db8:1:2::1", now);
  // The same /64, another address in it.
  const reserved = slots.take("2001:db8:1:2::99", now);
  expect(reserved).not.toBeNull();
  expect(slots.take("2001:db8:1:2::1", now)).toBeNull();
  reserved!();
  reserved!();
  expect(slots.take("2001:db8:1:2::1", now + 31 * 86_400_000)).toBeNull();
  shared[0]!();
  expect(slots.take("192.0.2.3", now)).not.toBeNull();
  expect(slots.take("192.0.2.4", now)).toBeNull();
});

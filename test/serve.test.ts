import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ServeProcess, makeDataDir, runCli, startServe } from "./support/processes.ts";
import { parsePrometheusText } from "./support/prometheus-text.ts";
import { BUNDLED_DATA_DIR } from "./support/test-app.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(30_000);

const METRICS_TOKEN = "metrics-token-for-tests";
let dataDir: string;
let env: Record<string, string>;
let server: ServeProcess;

beforeAll(async () => {
  dataDir = makeDataDir();
  env = { RISKCHECK_DATA_DIR: dataDir, RISKCHECK_DB: join(dataDir, "riskcheck.sqlite"), RISKCHECK_USAGE_FLUSH_MS: "60000", RISKCHECK_METRICS_TOKEN: METRICS_TOKEN };
  server = await startServe([], env);
});

afterAll(async () => {
  if (server.proc.exitCode === null) await server.stop();
});

const get = (path: string, key?: string) => fetch(server.url + path, { headers: key ? { authorization: `Bearer ${key}` } : {} });

describe("the real serve process", () => {
  test("listens on loopback and tells how to create a first key", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await server.waitForOutput("keys create --name");
    expect(server.output()).toContain("keys create --name");
  });

  test("a key created by the CLI works at once and a CLI revocation applies to the next request", async () => {
    const secret = runCli(["keys", "create", "--name", "e2e"], env).stdout.trimEnd().split("\n").at(-1)!;
    const ok = await get("/v1/check?email=someone@mailinator.com", secret);
    expect(ok.status).toBe(200);
    expect((await ok.json()) as object).toEqual({ email: "someone@mailinator.com", is_disposable: true, domain: "mailinator.com", free_email: false });

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

  test("health answers without a key", async () => {
    const res = await get("/healthz");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("ok");
  });

  test("/metrics counts what Bun's router served, behind RISKCHECK_METRICS_TOKEN", async () => {
    const secret = runCli(["keys", "create", "--name", "metrics"], env).stdout.trimEnd().split("\n").at(-1)!;
    expect((await get("/v1/ip-reputation-check?ip=not-an-ip", secret)).status).toBe(400);
    expect((await get("/metrics")).status).toBe(401);
    const res = await get("/metrics", METRICS_TOKEN);
    expect(res.status).toBe(200);
    const families = parsePrometheusText(await res.text());
    const sample = (family: string, labels: Record<string, string>) =>
      families.get(family)!.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(sample("riskcheck_requests_total", { endpoint: "/v1/ip-reputation-check", status: "400" })?.value).toBe(1);
    expect(sample("riskcheck_update_last_success_timestamp_seconds", {})?.value).toBe(Date.UTC(2026, 10, 23) / 1000);
    expect(sample("riskcheck_dataset_age_seconds", { dataset: "city-ipv4" })?.value).toBeGreaterThan(0);
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

describe("quota across restarts", () => {
  test("a restarted server keeps this month's counters", async () => {
    const dir = makeDataDir();
    const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "q.sqlite"), RISKCHECK_IP_QUOTA_PER_MONTH: "3" };
    const secret = runCli(["keys", "create", "--name", "q"], env).stdout.trimEnd().split("\n").at(-1)!;
    const call = (url: string) => fetch(`${url}/v1/ip-reputation-check?ip=8.8.8.8`, { headers: { authorization: `Bearer ${secret}` } });
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

describe("proxy trust in the real process", () => {
  test("X-Forwarded-For counts only from a configured proxy", async () => {
    const dir = makeDataDir();
    const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "p.sqlite") };
    const secret = runCli(["keys", "create", "--name", "p"], env).stdout.trimEnd().split("\n").at(-1)!;
    const ask = async (url: string) =>
      (await (await fetch(`${url}/v1/ip-reputation-check`, { headers: { authorization: `Bearer ${secret}`, "x-forwarded-for": "81.2.69.142" } })).json()) as { ip: string };
    const untrusted = await startServe([], env);
    expect((await ask(untrusted.url)).ip).toBe("127.0.0.1");
    await untrusted.stop();
    const trusted = await startServe([], { ...env, RISKCHECK_TRUST_PROXY: "127.0.0.1/32, ::1" });
    expect((await ask(trusted.url)).ip).toBe("81.2.69.142");
    await trusted.stop();
  });
});

describe("start-up failures", () => {
  test.each([
    ["datasets/fixture/ip/asn.idx", "corrupt index"],
    ["datasets/fixture/geo/city-ipv4.mmdb", "not a valid MaxMind DB file"],
    ["curated/hosting-asns.txt", "is not an AS number"],
  ])("a corrupt %s is named, with the fix", (file, problem) => {
    const dir = makeDataDir();
    const sub = file.slice(0, file.lastIndexOf("/"));
    // Replace the linked folder by a copy whose one file is broken.
    rmSync(join(dir, sub));
    cpSync(join(BUNDLED_DATA_DIR, sub.replace("datasets/fixture", "current")), join(dir, sub), { recursive: true, dereference: true });
    writeFileSync(join(dir, file), "AS-garbage\n".repeat(50));
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", dir]);
    expect(code).toBe(1);
    expect(stderr).toContain(join(dir, file.replace("datasets/fixture", "current")));
    expect(stderr).toContain(problem);
  });

  test("a missing dataset names the file and exits 1", () => {
    const dir = makeDataDir();
    const { code, stderr } = runCli(["serve", "--port", "0", "--data-dir", join(dir, "nowhere")]);
    expect(code).toBe(1);
    expect(stderr).toContain(join(dir, "nowhere", "current"));
    expect(stderr).toContain("npm install");
  });
});

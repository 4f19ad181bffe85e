/**
 * In-process micro-benchmarks of the request path's parts: `bun bench/micro.ts`.
 * Each line is the mean time per call over a warm loop; compare runs on the same machine.
 */
import { DEFAULT_REPORT_SETTINGS } from "../src/reports/report.ts";
import { resolve } from "node:path";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { classifyDomain } from "../src/email/classify.ts";
import { parseEmailAddress } from "../src/email/address.ts";
import { answerObject, ipAnswerJson } from "../src/ip/answer/ip-answer.ts";
import { ipFacts } from "../src/ip/answer/ip-facts.ts";
import { parseIpAddress } from "../src/ip/address/parse.ts";
import { DEFAULT_THRESHOLDS, verdict } from "../src/ip/verdict/reputation.ts";
import { SnapshotHolder } from "../src/datasets/snapshot.ts";
import { openDatabase } from "../src/stores/sqlite/database.ts";
import { createApp } from "../src/http/app.ts";
import { inMemoryChangeSignal } from "../src/stores/sqlite/change-signal.ts";
import { KeyAuthenticator } from "../src/keys/key-authenticator.ts";
import { SqliteKeyIndex } from "../src/stores/sqlite/key-index.ts";
import { SqliteKeyStore } from "../src/stores/sqlite/key-store.ts";
import { SqliteUsageStore } from "../src/stores/sqlite/usage-store.ts";
import { UsageRecorder } from "../src/keys/usage-recorder.ts";
import { LocalMonthlyQuota } from "../src/limits/local-monthly-quota.ts";
import { RateLimiter } from "../src/limits/rate-limiter.ts";
import { sqliteStores } from "../src/stores/sqlite/stores.ts";
import { openAdminPassword, wireApp } from "../src/app/wiring.ts";
import { AuditTrail } from "../src/audit/audit-trail.ts";
import { SqliteWrites } from "../src/stores/sqlite/lock-wait.ts";
import { DEFAULT_OVERRIDE_LIMITS } from "../src/email/overrides.ts";
import { makeAddressPool, makeEmailPool } from "./pools.ts";

const DATA = resolve(import.meta.dir, "../data");
const { snapshot } = await loadSnapshot(DATA, DEFAULT_THRESHOLDS);
const addresses = makeAddressPool(10_000);
const parsed = addresses.map((a) => parseIpAddress(a)!);
const emails = makeEmailPool(DATA, 10_000);
const domains = emails.map((e) => parseEmailAddress(e)?.domain ?? "gmail.com");

function bench(name: string, fn: (i: number) => unknown, iterations = 300_000): void {
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += fn(i) ? 1 : 0; // warm-up
  const started = Bun.nanoseconds();
  for (let i = 0; i < iterations; i++) sink += fn(i) ? 1 : 0;
  const ns = (Bun.nanoseconds() - started) / iterations;
  console.log(`${name.padEnd(34)} ${ns.toFixed(0).padStart(7)} ns${sink < 0 ? "" : ""}`);
}

const db = openDatabase(":memory:");
const signal = inMemoryChangeSignal();
const keys = new SqliteKeyStore(db, new SqliteWrites(db), signal);
const { secret, key } = await keys.create({ name: "bench" });
const authenticator = new KeyAuthenticator(new SqliteKeyIndex(db, signal));
const limiter = new RateLimiter();
const policy = { perMinute: 1e12, burst: 1e12 };
const usage = new UsageRecorder(new SqliteUsageStore(db, new SqliteWrites(db)));
const ip = snapshot.ip;
const v4 = parsed.filter((p) => p.version === 4);
const v6 = parsed.filter((p) => p.version === 6);

bench("parse IP address", (i) => parseIpAddress(addresses[i % addresses.length]));
bench("city lookup (v4)", (i) => ip.geo.lookup(v4[i % v4.length]));
bench("city lookup (v6)", (i) => ip.geo.lookup(v6[i % v6.length]));
bench("ASN index lookup", (i) => ip.asn.entryOf(parsed[i % parsed.length]));
bench(
  "reputation index lookup",
  (i) => ip.feeds.entryOf(parsed[i % parsed.length]) + ip.curated.entryOf(parsed[i % parsed.length]),
);
bench("IP facts (all lookups)", (i) => ipFacts(ip, parsed[i % parsed.length]));
bench("IP answer JSON, as served", (i) => ipAnswerJson(ip, parsed[i % parsed.length], null));
bench("IP answer JSON, JSON.stringify", (i) => JSON.stringify(answerObject(ipFacts(ip, parsed[i % parsed.length]))));
bench("parse email address", (i) => parseEmailAddress(emails[i % emails.length]));
bench("domain lookup", (i) => classifyDomain(snapshot.email, domains[i % domains.length]));
bench("key verification", () => authenticator.authenticate(secret));
const counterSamples = Array.from({ length: 64 }, (_, i) => ({
  bot: i % 3,
  probe: i % 5,
  rate: 0,
  attack: i % 7,
  crawler: i % 11 === 0 ? 1 : 0,
}));
const noFlags = {
  confirmedBad: false,
  verifiedCrawler: false,
  relay: false,
  anycast: false,
  allowlisted: false,
  denylisted: false,
};
bench("verdict (uncached)", (i) => verdict(counterSamples[i & 63], i & 0x7f, noFlags));
bench("rate limiter", () => limiter.take(key.id, policy, Date.now()));
const quota = new LocalMonthlyQuota(new Map(), Date.now());
bench("monthly quota check + count", () => {
  const now = Date.now();
  const decision = quota.check(key.id, 1e12, now);
  quota.countSuccess(key.id, now);
  return decision;
});
bench("usage record", () => usage.record(key.id, "ip", "ok", Date.now()));

// The whole request path in-process: the app's own fetch, on prebuilt requests (which name the address, so no server is asked).
const appStores = sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
const appAudit = new AuditTrail(appStores, { now: Date.now, logError: console.error });
const { deps, keys: appKeys } = await wireApp({
  stores: appStores,
  audit: appAudit,
  password: await openAdminPassword(appStores, appAudit, null),
  snapshots: new SnapshotHolder(snapshot),
  limits: { rate: { perMinute: 1e12, burst: 1e12 }, ipQuotaPerMonth: 1e12 },
  now: Date.now,
  client: { address: () => parseIpAddress("192.0.2.1"), info: () => ({ address: "192.0.2.1", https: false }) },
  logError: console.error,
  refreshState: () => null,
  reports: DEFAULT_REPORT_SETTINGS,
  overrideLimits: DEFAULT_OVERRIDE_LIMITS,
  metricsToken: null,
});
// What the server calls for every request; the API's routes answer synchronously.
const fetchOf = createApp(deps).fetch as (request: Request) => Response;
const authorization = { authorization: `Bearer ${(await appKeys.create({ name: "bench" })).secret}` };
const ipRequests = addresses.map(
  (a) =>
    new Request(`http://127.0.0.1:8080/v1/ip-reputation-check?ip=${encodeURIComponent(a)}`, { headers: authorization }),
);
const emailRequests = emails.map(
  (e) => new Request(`http://127.0.0.1:8080/v1/check?email=${encodeURIComponent(e)}`, { headers: authorization }),
);
bench("IP check request, in-process", (i) => fetchOf(ipRequests[i % ipRequests.length]).status === 200);
// Where the IP answer's cost beyond the floor goes: the same requests over 300,000 addresses
// never seen before (as wrk's ip-distinct), over one /25 (the lookups' memory stays in cache),
// and over private addresses (parsed, not looked up, the short answer).
const DISTINCT = 300_000;
const requestsFor = (url: (i: number) => string) =>
  Array.from({ length: DISTINCT }, (_, i) => new Request(url(i), { headers: authorization }));
const distinct = makeAddressPool(DISTINCT);
const ipPools = {
  "a new address each": requestsFor((i) => `http://127.0.0.1:8080/v1/ip-reputation-check?ip=${distinct[i]}`),
  "one /25": requestsFor((i) => `http://127.0.0.1:8080/v1/ip-reputation-check?ip=81.2.69.${(i & 127) + 1}`),
  "a private address": requestsFor((i) => `http://127.0.0.1:8080/v1/ip-reputation-check?ip=10.0.${i & 255}.1`),
};
for (const [name, requests] of Object.entries(ipPools))
  bench(`IP check, ${name}`, (i) => fetchOf(requests[i % DISTINCT]).status === 200, DISTINCT);
bench("email check request, in-process", (i) => fetchOf(emailRequests[i % emailRequests.length]).status === 200);

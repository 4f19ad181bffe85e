/**
 * The floor: what the IP check's HTTP work alone costs. The same Elysia setup, lifecycle
 * hooks and admission (key, rate limit, quota, usage, limit headers) as `riskcheck serve`,
 * built from the same modules over the same database, answering a fixed body of the given
 * size instead of parsing the address and looking it up.
 *
 * Given ANSWER_FILE, one real IP answer, it is the ceiling instead: the address read from the
 * query and parsed as the IP check does, then that answer with this address, so an answer that
 * costs nothing to look up and write. Nothing the real route does can answer quicker.
 *
 *   bun bench/floor-server.ts DATABASE [BODY_BYTES] [ANSWER_FILE]
 */
import { readFileSync } from "node:fs";
import { Elysia } from "elysia";
import { GcPacer, PACER_PERIOD_MS } from "../src/app/gc-pacer.ts";
import { StorageHealth } from "../src/faults/storage-health.ts";
import { TrafficCounter } from "../src/metrics/traffic-counter.ts";
import { type AdmissionDeps, admit } from "../src/http/admission.ts";
import { listen } from "../src/http/app.ts";
import { API_ERRORS } from "../src/http/errors.ts";
import { queryParam } from "../src/http/query.ts";
import { parseIpAddress } from "../src/ip/address/parse.ts";
import { lifecycle } from "../src/http/lifecycle.ts";
import { KeyAuthenticator } from "../src/keys/key-authenticator.ts";
import { UsageRecorder } from "../src/keys/usage-recorder.ts";
import { RateLimiter } from "../src/limits/rate-limiter.ts";
import { RequestMetrics } from "../src/metrics/request-metrics.ts";
import { openSqliteStores } from "../src/stores/sqlite/stores.ts";

const [database, size = "600", answerFile] = process.argv.slice(2);
if (!database) throw new Error("usage: bun bench/floor-server.ts DATABASE [BODY_BYTES] [ANSWER_FILE]");
const body = JSON.stringify({ ip: "192.0.2.1", pad: "x".repeat(Math.max(0, Number(size) - 29)) });
/** Everything after `{"ip":"…",` in the ceiling's answer. */
const answerTail = answerFile
  ? readFileSync(answerFile, "utf8")
      .trim()
      .replace(/^\{"ip":"[^"]*",/, "")
  : null;

const stores = openSqliteStores(database);
const serving = await stores.serving({ now: Date.now, logError: console.error });
const usage = new UsageRecorder(stores.usage);
const deps: AdmissionDeps = {
  authenticator: new KeyAuthenticator(serving.keys),
  limits: {
    settings: {
      rate: {
        perMinute: Number(process.env.RISKCHECK_RATE_PER_MINUTE ?? 0),
        burst: Number(process.env.RISKCHECK_RATE_BURST ?? 0),
      },
      ipQuotaPerMonth: Number(process.env.RISKCHECK_IP_QUOTA_PER_MONTH ?? 0),
    },
    rateLimiter: new RateLimiter(),
    quota: serving.quota,
  },
  usage,
  now: Date.now,
  clientAddress: (request) => parseIpAddress(app.server?.requestIP(request)?.address ?? ""),
};
const traffic = new TrafficCounter();
const app = new Elysia({ strictPath: true, systemRouter: false })
  .use(lifecycle(new RequestMetrics(), new StorageHealth(Date.now), console.error))
  .get("/v1/ip-reputation-check", ({ request }) => {
    traffic.served++;
    const admission = admit(deps, request, { permission: "check", usage: "ip", quotaUnits: 1 });
    if (admission instanceof Response) return admission;
    if (answerTail === null) return admission.answer(1, body);
    const param = queryParam(request.url, "ip");
    const ip = typeof param === "object" ? parseIpAddress(param.value) : null;
    return ip === null
      ? admission.refuse(API_ERRORS.invalidIp)
      : admission.answer(1, `{"ip":"${ip.text}",${answerTail}`);
  });
const pacer = new GcPacer(traffic);
setInterval(() => pacer.tick(), PACER_PERIOD_MS);
setInterval(() => void usage.flush().catch(console.error), 5_000);
const server = listen(app, "127.0.0.1", 0);
console.log(
  answerTail === null
    ? `floor listening on ${server.url.origin} (${body.length} bytes)`
    : `ceiling listening on ${server.url.origin}`,
);

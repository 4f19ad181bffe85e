import { resolve } from "node:path";
import { loadSnapshot } from "../src/datasets/load-snapshot.ts";
import { SnapshotHolder } from "../src/datasets/snapshot.ts";
import { openDatabase } from "../src/db.ts";
import { createApp } from "../src/http/app.ts";
import { inMemoryChangeSignal } from "../src/keys/change-signal.ts";
import { DEFAULT_THRESHOLDS } from "../src/ip/reputation.ts";
import { wireApp } from "../src/wiring.ts";
import { makeAddressPool, makeEmailPool } from "./pools.ts";

const DATA = resolve(import.meta.dir, "../data");
const { snapshot } = await loadSnapshot(DATA, DEFAULT_THRESHOLDS);
const db = openDatabase(":memory:");
const { deps, keys } = await wireApp({ db, keysChanged: inMemoryChangeSignal(), snapshots: new SnapshotHolder(snapshot), limits: { rate: { perMinute: 1e9, burst: 1e9 }, ipQuotaPerMonth: 1e12 }, adminPassword: null, now: Date.now, clientInfo: () => ({ address: "8.8.8.8", https: false }), cliCommand: "x", logError: console.error });
const app = createApp(deps);
const routes = (app as any).config.serve.routes;
const ipHandler = routes["/v1/ip-reputation-check"].GET;
const emailHandler = routes["/v1/check"].GET;
const { secret } = keys.create({ name: "b" });
const auth = { authorization: `Bearer ${secret}` };
const ipReqs = makeAddressPool(10_000).map((a) => new Request(`http://127.0.0.1:8080/v1/ip-reputation-check?ip=${encodeURIComponent(a)}`, { headers: auth }));
const emReqs = makeEmailPool(DATA, 10_000).map((e) => new Request(`http://127.0.0.1:8080/v1/check?email=${encodeURIComponent(e)}`, { headers: auth }));
function bench(name: string, fn: (i: number) => unknown, n = 300_000) {
  for (let i = 0; i < 30_000; i++) fn(i);
  const t = Bun.nanoseconds();
  for (let i = 0; i < n; i++) fn(i);
  console.log(name.padEnd(30), ((Bun.nanoseconds() - t) / n).toFixed(0), "ns");
}
for (let r = 0; r < (Number(process.env.ROUNDS) || 2); r++) {
  bench("ip handler", (i) => ipHandler(ipReqs[i % ipReqs.length], null));
  bench("email handler", (i) => emailHandler(emReqs[i % emReqs.length], null));
}
import { admit } from "../src/http/admission.ts";
import { queryParam } from "../src/http/query.ts";
import { parseIpAddress } from "../src/ip/parse.ts";
import { ipFacts } from "../src/ip/intelligence.ts";
import { answerJson } from "../src/ip/answer-json.ts";
const fixed = "x".repeat(600);
bench("admit only", (i) => admit(deps, ipReqs[i % ipReqs.length], "ip"));
bench("admit+query", (i) => { admit(deps, ipReqs[i % ipReqs.length], "ip"); return queryParam(ipReqs[i % ipReqs.length].url, "ip"); });
bench("admit+query+parse", (i) => { admit(deps, ipReqs[i % ipReqs.length], "ip"); const q = queryParam(ipReqs[i % ipReqs.length].url, "ip") as any; return parseIpAddress(q.value); });
bench("admit+query+parse+facts", (i) => { admit(deps, ipReqs[i % ipReqs.length], "ip"); const q = queryParam(ipReqs[i % ipReqs.length].url, "ip") as any; return ipFacts(snapshot.ip, parseIpAddress(q.value)!); });
bench("...+json", (i) => { admit(deps, ipReqs[i % ipReqs.length], "ip"); const q = queryParam(ipReqs[i % ipReqs.length].url, "ip") as any; return answerJson(ipFacts(snapshot.ip, parseIpAddress(q.value)!)); });
bench("...+json+Response", (i) => { const a = admit(deps, ipReqs[i % ipReqs.length], "ip") as any; const q = queryParam(ipReqs[i % ipReqs.length].url, "ip") as any; return new Response(answerJson(ipFacts(snapshot.ip, parseIpAddress(q.value)!)), {headers: a.headers}); });
bench("admit+fixed Response", (i) => { const a = admit(deps, ipReqs[i % ipReqs.length], "ip") as any; return new Response(fixed, {headers: a.headers}); });
bench("ip handler", (i) => ipHandler(ipReqs[i % ipReqs.length], null));
const parsedPool = ipReqs.map((r) => parseIpAddress((queryParam(r.url, "ip") as any).value)!);
const bodies = parsedPool.map((p) => answerJson(ipFacts(snapshot.ip, p)));
const flat = bodies.map((b) => { const s = (" " + b).slice(1); s.charCodeAt(3); return s; });
const asciiBodies = bodies.map((b) => b.replace(/[^\x00-\x7f]/g, "?"));
const h = { "content-type": "application/json" };
bench("Response(answerJson rope?)", (i) => new Response(bodies[i % bodies.length], { headers: h }));
bench("Response(flat)", (i) => new Response(flat[i % flat.length], { headers: h }));
bench("Response(ascii)", (i) => new Response(asciiBodies[i % asciiBodies.length], { headers: h }));
bench("Response(fixed)", (i) => new Response(fixed, { headers: h }));
console.log(bodies[0]);

import dgram from "node:dgram";
import * as packet from "dns-packet";
import { withinDeadline } from "./deadline.ts";

/** What the server says of one name: its records, or a failure, or nothing at all. */
export interface NameRecords {
  readonly mx?: readonly (readonly [priority: number, exchange: string])[];
  readonly a?: readonly string[];
  readonly aaaa?: readonly string[];
  /** Answer every question about the name with this response code. */
  readonly rcode?: "SERVFAIL" | "NXDOMAIN" | "REFUSED";
  /** Never answer. */
  readonly silent?: boolean;
  /** Answer this much later. */
  readonly delayMs?: number;
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

/**
 * A DNS server on 127.0.0.1 (a free UDP port) answering from `zone`, for the tests and the
 * benchmark: never the internet. A name it does not hold answers NXDOMAIN (or nothing); a name it holds
 * without records of the asked type answers NOERROR with none. `zone` may change while it runs.
 */
export async function startDnsServer(
  zone: Map<string, NameRecords>,
  /** What a name the zone does not hold gets: NXDOMAIN, or no answer at all (a server that never answers). */
  otherNames: "nxdomain" | "silent" = "nxdomain",
) {
  const socket = dgram.createSocket("udp4");
  const timers = new Set<Timer>();
  const queries: string[] = [];
  socket.on("message", (message, from) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (question === undefined) return;
    const name = question.name.toLowerCase();
    queries.push(`${question.type} ${name}`);
    const records = zone.get(name);
    if (records?.silent || (records === undefined && otherNames === "silent")) return;
    const rcode = records === undefined ? "NXDOMAIN" : (records.rcode ?? "NOERROR");
    const answers: packet.Answer[] = [];
    if (records !== undefined && rcode === "NOERROR") {
      if (question.type === "MX")
        for (const [preference, exchange] of records.mx ?? [])
          answers.push({ type: "MX", name, ttl: 300, data: { preference, exchange } });
      if (question.type === "A") for (const data of records.a ?? []) answers.push({ type: "A", name, ttl: 300, data });
      if (question.type === "AAAA")
        for (const data of records.aaaa ?? []) answers.push({ type: "AAAA", name, ttl: 300, data });
    }
    const reply = packet.encode({
      id: query.id,
      type: "response",
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | RCODES[rcode],
      questions: query.questions,
      answers,
    });
    const send = () => socket.send(reply, from.port, from.address);
    if (!records?.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, records.delayMs);
    timers.add(timer);
  });
  await withinDeadline(
    "the loopback DNS server's start",
    5_000,
    new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve)),
  );
  let stopped: Promise<void> | null = null;
  const stop = () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    stopped ??= withinDeadline(
      "the loopback DNS server's stop",
      5_000,
      new Promise<void>((resolve) => socket.close(() => resolve())),
    );
    return stopped;
  };
  return {
    /** As RISKCHECK_DNS_RESOLVER takes it. */
    address: `127.0.0.1:${socket.address().port}`,
    /** Every question asked, as `TYPE name`. */
    queries,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

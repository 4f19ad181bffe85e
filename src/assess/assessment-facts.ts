import { type IpChecked, reputationOf } from "../checks/answers.ts";
import type { Snapshot } from "../datasets/snapshot.ts";
import type { EmailAnswer } from "../email/email-answer-schema.ts";
import { overrideFor } from "../email/overrides.ts";
import { asnText } from "../ip/answer/ip-answer.ts";
import { verdictFlags } from "../ip/answer/ip-facts.ts";
import { ALL_KINDS, KIND } from "../ip/verdict/network-kinds.ts";
import { ruleOf } from "../ip/verdict/reputation.ts";
import type { Level } from "../ip/verdict/reputation-schema.ts";
import { type Reason, type ReasonCode, reason } from "./reason-codes.ts";

const RANK: Readonly<Record<Level, number>> = Object.freeze({
  ok: 0,
  informative: 1,
  suspicious: 2,
  warning: 3,
  bad: 4,
});

/** The source whose listing makes an address a Tor exit (`ip.tor`): the Tor Project's bulk exit list. */
export const TOR_EXITS_SOURCE = "tor-exits";

/** What a policy reads of the email address. */
export class EmailSide {
  constructor(
    readonly domain: string,
    readonly disposable: boolean,
    readonly free: boolean,
    /** DNS evidence said no mail can reach the domain; false when it was not asked or did not answer. */
    readonly undeliverable = false,
  ) {}
}

/** What a policy reads of the address. */
export interface IpSide {
  /** The level's rank in LEVELS_BY_RANK. */
  readonly level: number;
  readonly risky: boolean;
  /** The network kinds as bits (KIND). */
  readonly kinds: number;
  /** ISO 3166-1 alpha-2, "" when unknown. */
  readonly country: string;
  /** 0 when unknown. */
  readonly asn: number;
  readonly reports: number;
  readonly reportedLocally: boolean;
  readonly tor: boolean;
}

/**
 * One assessment's inputs as the rules see them, with the default policy's reasons and the
 * score they add up to. A side is null when the request did not give that value.
 */
export interface AssessmentFacts {
  readonly event: string | null;
  readonly email: EmailSide | null;
  readonly ip: IpSide | null;
  readonly reasons: readonly Reason[];
  /** The reasons' weights added up, at most 100. */
  readonly score: number;
}

/** The facts of one email answer and one IP answer (either may be absent), from the snapshot they were made with. */
export function assessmentFacts(
  snapshot: Snapshot,
  email: EmailAnswer | null,
  ip: IpChecked | null,
  event: string | null,
): AssessmentFacts {
  const reasons: Reason[] = [];
  const emailSide = email === null ? null : emailFacts(snapshot, email, reasons);
  const ipSide = ip === null ? null : ipFacts(snapshot, ip, reasons);
  let score = 0;
  for (const r of reasons) score += r.weight;
  return { event, email: emailSide, ip: ipSide, reasons, score: Math.min(100, score) };
}

function emailFacts(snapshot: Snapshot, a: EmailAnswer, reasons: Reason[]): EmailSide {
  const line = snapshot.email.overrides.size === 0 ? undefined : overrideFor(snapshot.email.overrides, a.domain);
  if (line !== undefined)
    reasons.push(
      reason(
        `override.${line.action}`,
        `${a.domain}: the operator's ${line.action} line for ${line.domain} (${line.reason})`,
      ),
    );
  else if (a.is_disposable) reasons.push(reason("email.disposable", `${a.domain} is a disposable-mail domain`));
  const undeliverable = line === undefined && a.mail?.deliverable === false;
  if (undeliverable)
    reasons.push(reason("email.undeliverable", `no mail can reach ${a.domain} (${undeliverableWhy(a)})`));
  return new EmailSide(a.domain, a.is_disposable, a.free_email, undeliverable);
}

const undeliverableWhy = (a: EmailAnswer) =>
  a.mail?.route?.kind === "null-mx" ? "its DNS publishes a null MX" : "its DNS has neither MX nor address";

function ipFacts(snapshot: Snapshot, c: IpChecked, reasons: Reason[]): IpSide {
  const r = reputationOf(c);
  const f = c.facts;
  if (f === null)
    return { level: 0, risky: false, kinds: 0, country: "", asn: 0, reports: 0, reportedLocally: false, tor: false };
  const kinds = f.flags & ALL_KINDS;
  // Every Tor exit is kind vpn (its list feeds vpn): other addresses need no lookup.
  const torIndex = kinds & KIND.vpn ? snapshot.ip.evidence.get(TOR_EXITS_SOURCE) : undefined;
  const side: IpSide = {
    level: RANK[r.reputation],
    risky: r.risky,
    kinds,
    country: f.located.countryCode,
    asn: f.owner.asn,
    reports: r.sum,
    reportedLocally: f.local !== null,
    tor: torIndex !== undefined && torIndex.lookup(c.parsed) !== null,
  };
  if (f.override !== null) {
    const { action, target, reason: why } = f.override;
    reasons.push(reason(`override.${action}`, `${f.ip}: the operator's ${action} line for ${target} (${why})`));
    return side;
  }
  if (r.reputation !== "ok")
    reasons.push(reason(`ip.reputation.${r.reputation}` as ReasonCode, levelFact(snapshot, c)));
  // A Tor exit is a VPN of its own kind: one signal, one reason.
  const vpn = !side.tor && (kinds & KIND.vpn) !== 0;
  const hosting = (kinds & KIND.hosting) !== 0;
  const network = vpn || hosting ? asnText(f.owner) : "";
  const inNetwork = network === "" ? "" : ` (${network})`;
  if (side.tor) reasons.push(reason("ip.tor", `${f.ip} is a Tor exit`));
  else if (vpn) reasons.push(reason("ip.kind.vpn", `${f.ip} is in a VPN network${inNetwork}`));
  if (hosting) reasons.push(reason("ip.kind.hosting", `${f.ip} is in a hosting network${inNetwork}`));
  if (f.local !== null) {
    let keys = 0;
    for (const category of f.local.categories) keys += category.counted;
    reasons.push(reason("ip.reported_locally", `${f.ip} was reported by ${keys} of this appliance's keys`));
  }
  return side;
}

/** The level in words, with what set it: the rule the verdict applied. */
function levelFact(snapshot: Snapshot, c: IpChecked): string {
  const f = c.facts!;
  const rule = ruleOf(f.counters, f.flags & ALL_KINDS, verdictFlags(f.flags), snapshot.ip.thresholds);
  const reports = `${rule.reports} independent report${rule.reports === 1 ? "" : "s"}`;
  const cappedBy =
    rule.capped?.by === "verified-crawler" ? "a verified crawler" : `shared infrastructure (${rule.capped?.by})`;
  const why =
    rule.id === "confirmed-bad"
      ? "on a confirmed-malicious list (Spamhaus DROP)"
      : rule.id === "benign-cap"
        ? `${reports}, capped: ${cappedBy}`
        : rule.id === "kind-scanner"
          ? "a scanner's range"
          : rule.id === "kind-vpn-or-hosting"
            ? "a VPN or hosting network, no reports"
            : reports;
  return `${f.ip}: reputation ${rule.level}, ${why}`;
}

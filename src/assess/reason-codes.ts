/**
 * The stable codes of an assessment's reasons, each with the points it adds to the score.
 * The weights are the default policy's (docs/assess.md has their calibration on the real
 * feeds); a code never changes meaning, and a new signal gets a new code.
 */
export const REASON_WEIGHTS = Object.freeze({
  /** The operator's deny line for the domain or the address: their own decision, a block on its own. */
  "override.deny": 100,
  /** The operator's allow line: the value counts as clean, whatever the lists say. */
  "override.allow": 0,
  /** The domain is disposable (listed with enough evidence, a reserved name …): a challenge on its own. */
  "email.disposable": 60,
  /**
   * With DNS evidence on: no mail can reach the domain (a null MX, or neither MX nor address): a
   * confirmation mail would never arrive, a challenge on its own.
   */
  "email.undeliverable": 50,
  /** Confirmed malicious (Spamhaus DROP) or 6 independent reports: a block on its own. */
  "ip.reputation.bad": 90,
  /** 3 or more independent reports: a challenge on its own. */
  "ip.reputation.warning": 60,
  /** 2 reports, or a scanner's range. */
  "ip.reputation.suspicious": 30,
  /** 1 report, or a VPN or hosting network without reports. */
  "ip.reputation.informative": 5,
  /** An exit of the Tor network: anonymous, and shared by everyone who uses it (it takes the place of ip.kind.vpn). */
  "ip.tor": 45,
  /** A VPN service's range or network. */
  "ip.kind.vpn": 25,
  /** A data centre's or cloud's range: people rarely sign up from one. */
  "ip.kind.hosting": 15,
  /** This appliance's own keys reported the address (POST /v1/reports) within the window. */
  "ip.reported_locally": 20,
} as const);

export type ReasonCode = keyof typeof REASON_WEIGHTS;

export const REASON_CODES = Object.freeze(Object.keys(REASON_WEIGHTS) as ReasonCode[]);

/** One signal behind a score: its code, the points it adds, and the fact it stands on, in words. */
export interface Reason {
  readonly code: ReasonCode;
  readonly weight: number;
  readonly fact: string;
}

export function reason(code: ReasonCode, fact: string): Reason {
  return { code, weight: REASON_WEIGHTS[code], fact };
}

import type { PolicyStore } from "../assess/policy-store.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { OverrideWrites } from "../audit/audited-override-stores.ts";
import type { OverrideLimits, OverrideStore } from "../email/overrides.ts";
import type { ParsedIp } from "../ip/address/parse.ts";
import type { IpAnswer } from "../ip/answer/ip-answer-schema.ts";
import type { IpOverrideStore } from "../ip/overrides/ip-override.ts";
import type { OverrideInForce } from "../ip/overrides/override-lines.ts";
import type { ServerLimits } from "../keys/key-settings.ts";
import type { KeyStore } from "../keys/key-store.ts";
import type { UsageRecorder } from "../keys/usage-recorder.ts";
import type { UsageStore } from "../keys/usage-store.ts";
import type { LocalReportIndex } from "../reports/local-report-index.ts";
import type { ReportStore } from "../reports/report-store.ts";
import type { AdminPassword } from "./admin-password.ts";
import type { SessionStore } from "./sessions.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";

/** What the dashboard works on: the stores, the data being served, the clock and the audit log. */
export interface DashboardDeps {
  readonly keys: KeyStore;
  readonly usage: UsageRecorder;
  readonly usageStore: UsageStore;
  readonly password: AdminPassword;
  readonly sessions: SessionStore;
  readonly throttle: SignInThrottle;
  /** What a key without limits of its own follows. */
  readonly serverLimits: ServerLimits;
  readonly now: () => number;
  /** What the operator should know about the data being served (the same as /healthz's). */
  readonly warnings: () => string[];
  readonly emailOverrides: OverrideStore;
  /** Serves the override lines as stored now, in this instance (the others follow within seconds). */
  readonly refreshOverrides: () => Promise<void>;
  readonly ipOverrides: IpOverrideStore;
  /** As refreshOverrides, for the IP lines. */
  readonly refreshIpOverrides: () => Promise<void>;
  /** The API's answer for the address, with its reasons (?explain=1), from the data being served. */
  readonly checkAddress: (ip: ParsedIp) => IpAnswer;
  /** data/ip/allowlist.txt's lines in force, from the data being served. */
  readonly ipAllowlistFile: () => readonly OverrideInForce[];
  readonly reports: {
    readonly store: ReportStore;
    readonly index: LocalReportIndex;
    readonly windowMs: number;
    /** Reads the store again, so that this instance's verdicts follow a deletion at once. */
    readonly refresh: () => Promise<void>;
  };
  readonly policy: {
    readonly store: PolicyStore;
    /** Serves the rules as stored now, in this instance (the others follow within 2 s). */
    readonly refresh: () => Promise<unknown>;
  };
  /** Where every act of a signed-in user, and every sign-in, is recorded, each act in its own transaction. */
  readonly audit: AuditTrail<DashboardWrites>;
  /** How many override lines the server keeps. */
  readonly overrideLimits: OverrideLimits;
}

/** What the dashboard's acts write, in the act's transaction. */
export type DashboardWrites = OverrideWrites & {
  readonly keys: KeyStore;
  readonly policy: PolicyStore;
  readonly reports: ReportStore;
  readonly audit: AuditLog;
};

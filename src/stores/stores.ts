import type { PolicyStore } from "../assess/policy-store.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import type { AdminPasswordStore } from "../dashboard/admin-password.ts";
import type { SessionStore } from "../dashboard/sessions.ts";
import type { SignInThrottle } from "../dashboard/sign-in-throttle.ts";
import type { KeyIndexSource } from "../keys/key-authenticator.ts";
import type { KeyStore } from "../keys/key-store.ts";
import type { UsageStore } from "../keys/usage-store.ts";
import type { MonthlyQuota } from "../limits/monthly-quota.ts";
import type { OverrideStore } from "../email/overrides.ts";
import type { IpOverrideStore } from "../ip/overrides/ip-override.ts";
import type { ReportStore } from "../reports/report-store.ts";

/** What an administrative act writes, with its audit event: the stores, bound to one transaction in `Stores.transaction`. */
export interface StoreWrites {
  readonly keys: KeyStore;
  readonly adminPassword: AdminPasswordStore;
  /** The operator's allow and deny lines for email domains. */
  readonly emailOverrides: OverrideStore;
  /** The operator's allow and deny lines for addresses, ranges and networks. */
  readonly ipOverrides: IpOverrideStore;
  /** The operator's assessment rules, and the assessments' daily counts. */
  readonly policy: PolicyStore;
  /** Local abuse reports (POST /v1/reports). */
  readonly reports: ReportStore;
  /** Every administrative act, append-only. */
  readonly audit: AuditLog;
}

/** Everything riskcheck keeps in its database, SQLite or PostgreSQL: what the CLI and the dashboard use. */
export interface Stores extends StoreWrites {
  readonly usage: UsageStore;
  readonly sessions: SessionStore;
  readonly signInThrottle: SignInThrottle;
  /**
   * Runs `work` in one transaction, with the stores it is given: what it writes is committed
   * together or not at all (an act and its audit event). A database that fails throws
   * StorageUnavailable, saying whether the work may have been committed.
   */
  transaction<T>(work: (tx: StoreWrites) => Promise<T>): Promise<T>;
  /** The schema versions opening moved the database between (from 0: made new), or null when it was up to date. */
  readonly schemaChange: SchemaChange | null;
  /** Which database, for messages: its path, or its URL without the password. */
  readonly description: string;
  /**
   * Why the database in use is no longer the one at its path (a file deleted, or replaced
   * by a restore with `mv`: the CLI now writes elsewhere), or null. Always null for PostgreSQL.
   */
  replacedOnDisk(): string | null;
  /** The request path's keys and quota, answered from memory and kept current the database's way. */
  serving(options: { now: () => number; logError: (line: string) => void }): Promise<ServingState>;
  close(): Promise<void>;
}

export interface SchemaChange {
  readonly from: number;
  readonly to: number;
}

export interface ServingState {
  readonly keys: KeyIndexSource;
  readonly quota: MonthlyQuota;
  /** Periodic upkeep, with the usage flush. */
  tick(nowMs: number): Promise<void>;
  /** At shutdown, after the last request: hands back what this instance holds of the shared quota. */
  release(): Promise<void>;
}

/** Why the database could not do what was asked: another process holds it, it cannot be reached, its disk is full, or it fails. */
export type StorageFaultReason = "locked" | "unreachable" | "full" | "failing";

/** Whether what was asked happened: surely not, or perhaps (a commit sent whose answer never came back). */
export type StorageOutcome = "not_done" | "unknown";

/** How long a client is asked to wait before it tries again, by reason: a lock is brief, a full disk needs an operator. */
export const RETRY_AFTER_SECONDS: Readonly<Record<StorageFaultReason, number>> = {
  locked: 2,
  unreachable: 5,
  full: 30,
  failing: 10,
};

/**
 * The database was unavailable, not the request wrong: the server answers 503 with Retry-After
 * and says whether anything was changed, never 500. Stores throw it where they know more than
 * the error says (a lock waited out, a commit whose answer was lost); `storageFaultOf` reads
 * the others from the databases' own codes.
 */
export class StorageUnavailable extends Error {
  constructor(
    message: string,
    readonly reason: StorageFaultReason,
    readonly outcome: StorageOutcome = "not_done",
  ) {
    super(message);
  }

  /** The same fault, when the work it stopped may have been committed. */
  withOutcome(outcome: StorageOutcome): StorageUnavailable {
    return outcome === this.outcome ? this : new StorageUnavailable(this.message, this.reason, outcome);
  }
}

/** SQLite's primary result codes (`SQLITE_IOERR_WRITE` is an IOERR) that mean the database, not the statement, failed. */
const SQLITE_REASONS: Readonly<Record<string, StorageFaultReason>> = {
  SQLITE_BUSY: "locked",
  SQLITE_LOCKED: "locked",
  SQLITE_FULL: "full",
  SQLITE_IOERR: "failing",
  SQLITE_READONLY: "failing",
  SQLITE_CANTOPEN: "failing",
  SQLITE_CORRUPT: "failing",
  SQLITE_NOTADB: "failing",
  SQLITE_PROTOCOL: "failing",
};

/** PostgreSQL's SQLSTATEs of the same kind: connection exceptions, a server shutting down or full, a statement's bound. */
function postgresReason(sqlState: string): StorageFaultReason | null {
  if (sqlState.startsWith("08") || sqlState === "57P01" || sqlState === "57P02" || sqlState === "57P03")
    return "unreachable";
  if (sqlState === "53300") return "unreachable";
  if (sqlState === "53100") return "full";
  if (sqlState.startsWith("53") || sqlState === "58030") return "failing";
  if (sqlState === "57014" || sqlState === "55P03" || sqlState === "40001" || sqlState === "40P01") return "locked";
  return null;
}

/** Network errors of a connection the client tried to open (nothing was sent) or had open (something may have been). */
const NEVER_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ERR_POSTGRES_CONNECTION_REFUSED",
]);
const NETWORK = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);

/**
 * The fault an error is, or null when it is another kind of failure (a bug, a refused input).
 * A PostgreSQL connection lost during a statement leaves its outcome unknown: a statement on
 * its own commits as it ends, and the answer may be what was lost.
 */
export function storageFaultOf(err: unknown): StorageUnavailable | null {
  if (err instanceof StorageUnavailable) return err;
  if (!(err instanceof Error)) return null;
  const { code, errno } = err as { code?: unknown; errno?: unknown };
  if (typeof code !== "string") return null;
  const message = err.message.replace(/\s+/g, " ").slice(0, 300);
  if (code.startsWith("SQLITE_")) {
    const reason = SQLITE_REASONS[code.split("_").slice(0, 2).join("_")];
    return reason ? new StorageUnavailable(`the SQLite database failed: ${message}`, reason) : null;
  }
  if (NEVER_SENT.has(code)) return new StorageUnavailable(`the database cannot be reached: ${message}`, "unreachable");
  if (code.startsWith("ERR_POSTGRES_CONNECTION") || code === "ERR_POSTGRES_IDLE_TIMEOUT" || NETWORK.has(code))
    return new StorageUnavailable(`the connection to the database was lost: ${message}`, "unreachable", "unknown");
  if (code.startsWith("ERR_POSTGRES") && typeof errno === "string") {
    const reason = postgresReason(errno);
    return reason ? new StorageUnavailable(`the PostgreSQL database failed: ${message}`, reason) : null;
  }
  return null;
}

import type { Database } from "bun:sqlite";
import type { ChangeSignal } from "./change-signal.ts";
import type { KeyRecord } from "./key-record.ts";
import type { KeyStore } from "./key-store.ts";
import { digestOfStoredHash, looksLikeSecret, secretDigest } from "./secret.ts";

export type Authentication =
  | { readonly outcome: "active"; readonly key: KeyRecord }
  | { readonly outcome: "revoked"; readonly key: KeyRecord }
  | { readonly outcome: "unknown" };

const UNKNOWN: Authentication = Object.freeze({ outcome: "unknown" });
/** Catches writers that did not bump the signal, such as a hand-run sqlite3 shell. */
const DATA_VERSION_POLL_MS = 1_000;

/**
 * Answers "which key is this?" from memory. Lookup is by SHA-256 of the presented
 * token, so response time depends on the digest, not on how much of a real secret
 * an attacker guessed: no constant-time comparison of secrets is needed.
 */
export class KeyAuthenticator {
  private byDigest = new Map<string, Authentication>();
  private seenSignal = -1;
  private seenDataVersion = -1;
  private lastPoll = 0;
  private readonly dataVersion;

  constructor(
    private readonly store: KeyStore,
    db: Database,
    private readonly signal: ChangeSignal,
    private readonly now: () => number = Date.now,
  ) {
    this.dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version");
    this.reload();
  }

  authenticate(token: string): Authentication {
    if (!looksLikeSecret(token)) return UNKNOWN;
    if (this.signal.read() !== this.seenSignal || this.now() - this.lastPoll > DATA_VERSION_POLL_MS) this.refreshIfChanged();
    const digest = secretDigest(token);
    const found = this.byDigest.get(digest);
    if (found) return found;
    // A key created by another process a moment ago: look once more before refusing.
    this.refreshIfChanged();
    return this.byDigest.get(digest) ?? UNKNOWN;
  }

  private refreshIfChanged(): void {
    this.lastPoll = this.now();
    const version = this.dataVersion.get()!.data_version;
    if (version !== this.seenDataVersion || this.signal.read() !== this.seenSignal) this.reload();
  }

  private reload(): void {
    this.seenSignal = this.signal.read();
    this.seenDataVersion = this.dataVersion.get()!.data_version;
    this.lastPoll = this.now();
    const next = new Map<string, Authentication>();
    for (const [hash, key] of this.store.allByHash()) {
      next.set(digestOfStoredHash(hash), Object.freeze({ outcome: key.revokedAt ? "revoked" : "active", key }));
    }
    this.byDigest = next;
  }
}

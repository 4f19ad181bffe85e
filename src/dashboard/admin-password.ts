import type { Database } from "bun:sqlite";

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export function checkNewPassword(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password can have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

/**
 * The account holder's password: RISKCHECK_ADMIN_PASSWORD when set (hashed once at
 * start, never kept in clear), else the argon2id hash `admin set-password` stored.
 */
export class AdminPassword {
  private constructor(
    private readonly db: Database,
    private readonly fromEnvironment: string | null,
  ) {}

  static async open(db: Database, environmentPassword: string | null): Promise<AdminPassword> {
    return new AdminPassword(db, environmentPassword === null ? null : await hashPassword(environmentPassword));
  }

  private storedHash(): string | null {
    return this.fromEnvironment ?? this.db.query<{ password_hash: string }, []>("SELECT password_hash FROM admin_password WHERE id = 1").get()?.password_hash ?? null;
  }

  isSet(): boolean {
    return this.storedHash() !== null;
  }

  /** Always runs a full argon2id verification when a password is set, so timing tells nothing. */
  async verify(candidate: string): Promise<boolean> {
    const hash = this.storedHash();
    if (hash === null || candidate.length > MAX_PASSWORD_LENGTH) return false;
    return Bun.password.verify(candidate, hash);
  }

  static async store(db: Database, password: string, now = new Date()): Promise<void> {
    const hash = await hashPassword(password);
    db.query(
      "INSERT INTO admin_password (id, password_hash, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at",
    ).run(hash, now.toISOString());
    // A new password signs everybody out.
    db.exec("DELETE FROM admin_sessions");
  }
}

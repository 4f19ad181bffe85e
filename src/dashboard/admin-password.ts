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

/** Where `admin set-password` keeps the argon2id hash. */
export interface AdminPasswordStore {
  passwordHash(): Promise<string | null>;
  /** Stores a new hash and ends every dashboard session: a new password signs everybody out. */
  replacePasswordHash(hash: string, now: Date): Promise<void>;
}

export async function setAdminPassword(store: AdminPasswordStore, password: string, now = new Date()): Promise<void> {
  await store.replacePasswordHash(await hashPassword(password), now);
}

/**
 * The account holder's password: RISKCHECK_ADMIN_PASSWORD when set (hashed once at
 * start, never kept in clear), else the argon2id hash `admin set-password` stored.
 * A RISKCHECK_ADMIN_PASSWORD the stored hash does not match (a new one, or none stored
 * yet) is stored in its place, which ends every session signed in under the old one.
 */
export class AdminPassword {
  private constructor(
    private readonly store: AdminPasswordStore,
    private readonly fromEnvironment: string | null,
  ) {}

  /** `stored`: told when the environment's password was stored, first (`set`) or in place of another (`changed`). */
  static async open(
    store: AdminPasswordStore,
    environmentPassword: string | null,
    stored: (how: "set" | "changed") => Promise<unknown> = async () => {},
  ): Promise<AdminPassword> {
    if (environmentPassword === null) return new AdminPassword(store, null);
    const current = await store.passwordHash();
    // One argon2id run either way: the stored hash is reused when it matches.
    if (current !== null && (await Bun.password.verify(environmentPassword, current)))
      return new AdminPassword(store, current);
    const hash = await hashPassword(environmentPassword);
    await store.replacePasswordHash(hash, new Date());
    await stored(current === null ? "set" : "changed");
    return new AdminPassword(store, hash);
  }

  private async storedHash(): Promise<string | null> {
    return this.fromEnvironment ?? (await this.store.passwordHash());
  }

  async isSet(): Promise<boolean> {
    return (await this.storedHash()) !== null;
  }

  /** Always runs a full argon2id verification when a password is set, so timing tells nothing. */
  async verify(candidate: string): Promise<boolean> {
    const hash = await this.storedHash();
    if (hash === null || candidate.length > MAX_PASSWORD_LENGTH) return false;
    return Bun.password.verify(candidate, hash);
  }
}

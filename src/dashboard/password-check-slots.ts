import { throttledClient } from "./sign-in-throttle.ts";

/**
 * Password checks (argon2id, 64 MiB and ~100 ms of a core each) running at once; more
 * sign-ins are asked to retry, so a flood from many addresses cannot exhaust the machine.
 */
export const SHARED_CHECKS = 2;
/**
 * One more check is kept for clients that signed in successfully before: a flood from
 * ever-new addresses (a botnet, or forged addresses behind a trusting proxy) fills the
 * shared checks, and every new address looks as innocent as the administrator's, but
 * none of them has ever signed in.
 */
export const RESERVED_CHECKS = 1;
/** How long, and how many, addresses that signed in are remembered (in memory; a restart forgets). */
const REMEMBER_MS = 30 * 86_400_000;
const REMEMBER_MOST = 1_024;

/** Who may start a password check now. */
export class PasswordCheckSlots {
  private shared = 0;
  private reserved = 0;
  /** Client (an IPv4 address or IPv6 /64) → when it last signed in, oldest first. */
  private readonly signedIn = new Map<string, number>();

  /** A slot for this client, released by calling the function returned; null when none is free for it. */
  take(address: string, nowMs: number): (() => void) | null {
    if (this.shared < SHARED_CHECKS) {
      this.shared++;
      return once(() => this.shared--);
    }
    if (this.reserved < RESERVED_CHECKS && this.knows(throttledClient(address), nowMs)) {
      this.reserved++;
      return once(() => this.reserved--);
    }
    return null;
  }

  /** The client signed in with the right password: it may use the reserved check from now on. */
  signedInFrom(address: string, nowMs: number): void {
    const client = throttledClient(address);
    this.signedIn.delete(client);
    this.signedIn.set(client, nowMs);
    if (this.signedIn.size > REMEMBER_MOST) this.signedIn.delete(this.signedIn.keys().next().value!);
  }

  private knows(client: string, nowMs: number): boolean {
    const at = this.signedIn.get(client);
    return at !== undefined && nowMs - at < REMEMBER_MS;
  }
}

function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (!done) release();
    done = true;
  };
}

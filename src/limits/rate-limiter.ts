export interface RatePolicy {
  /** Tokens added per minute; 0 means unlimited. */
  readonly perMinute: number;
  /** Bucket size: how many requests may arrive at once after a quiet spell. */
  readonly burst: number;
}

export type RateDecision =
  | { readonly allowed: true; readonly limit: number; readonly remaining: number }
  | { readonly allowed: false; readonly limit: number; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedMs: number;
  policy: RatePolicy;
}

/** One token bucket per key, in memory. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  take(keyId: string, policy: RatePolicy, nowMs: number): RateDecision | null {
    if (policy.perMinute === 0) return null;
    let bucket = this.buckets.get(keyId);
    if (bucket === undefined) {
      bucket = { tokens: policy.burst, updatedMs: nowMs, policy };
      this.buckets.set(keyId, bucket);
    } else if (bucket.policy.perMinute !== policy.perMinute || bucket.policy.burst !== policy.burst) {
      // The key's limits changed: keep what it had, within the new burst.
      bucket.tokens = Math.min(bucket.tokens, policy.burst);
      bucket.policy = policy;
    }
    const perMs = policy.perMinute / 60_000;
    if (nowMs > bucket.updatedMs) {
      bucket.tokens = Math.min(policy.burst, bucket.tokens + (nowMs - bucket.updatedMs) * perMs);
      bucket.updatedMs = nowMs;
    }
    if (bucket.tokens < 1) {
      return { allowed: false, limit: policy.burst, retryAfterSeconds: Math.ceil((1 - bucket.tokens) / perMs / 1000) };
    }
    bucket.tokens -= 1;
    return { allowed: true, limit: policy.burst, remaining: Math.floor(bucket.tokens) };
  }
}

/** The default policy, or the key's own rate with a burst no larger than one minute of it. */
export function ratePolicyFor(override: number | null, defaults: RatePolicy): RatePolicy {
  if (override === null || override === defaults.perMinute) return defaults;
  return { perMinute: override, burst: Math.max(1, Math.min(defaults.burst, override)) };
}

import { allowedFrom } from "../keys/allowed-networks.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import type { Outcome, UsageKind } from "../keys/usage.ts";
import type { ParsedIp } from "../ip/address/parse.ts";
import type { ApiError } from "./errors.ts";

export interface KeyUseDeps {
  /** The request's client address as the server resolves it (trusted proxies included); null without one. */
  readonly clientAddress: (request: Request) => ParsedIp | null;
  readonly usage: {
    wantsAddress(keyId: string, nowMs: number): boolean;
    usedFrom(keyId: string, ip: string | null, nowMs: number): void;
    record(keyId: string, usage: UsageKind, outcome: Outcome, nowMs: number): void;
  };
}

/**
 * After authentication and the permission, before the rate limit: refuses a client outside
 * the key's allowed networks with a 403 that names its address, counted as `forbidden`, and
 * notes the client address as the key's last (flushed with usage; for a key without
 * networks, looked up at most once per ADDRESS_REFRESH_MS). Null: go on.
 */
export function checkKeyUse(
  deps: KeyUseDeps,
  key: KeyRecord,
  request: Request,
  usage: UsageKind,
  nowMs: number,
): ApiError | null {
  if (key.allowedNetworks.length === 0 && !deps.usage.wantsAddress(key.id, nowMs)) return null;
  const client = deps.clientAddress(request);
  deps.usage.usedFrom(key.id, client?.text ?? null, nowMs);
  if (allowedFrom(key, client)) return null;
  deps.usage.record(key.id, usage, "forbidden", nowMs);
  return outsideNetworks(client?.text ?? null);
}

/** The 403 for a client outside the key's networks, naming its address. */
export function outsideNetworks(client: string | null): ApiError {
  return {
    status: 403,
    error: "forbidden",
    message:
      `This API key is not allowed from ${client ?? "a request without a client address"}: the key works only from ` +
      `its allowed networks; an operator can change them (riskcheck keys update ID_OR_NAME --allow-from CIDR,…)`,
  };
}

import type { Authentication } from "../keys/key-authenticator.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import type { Permission } from "../keys/permissions.ts";
import { API_ERRORS, type ApiError } from "./errors.ts";

export interface Authenticator {
  authenticate(token: string): Authentication;
}

const SCHEME = "bearer ";
const MAX_HEADER_LENGTH = 512;

/**
 * The token of an `Authorization: Bearer <token>` header: one run of visible ASCII,
 * nothing else. The scheme is case-insensitive (RFC 7235): `bearer` and `BEARER` too.
 */
export function bearerToken(authorization: string | null): string | null {
  if (authorization === null || authorization.length > MAX_HEADER_LENGTH) return null;
  const length = authorization.length;
  if (length <= SCHEME.length) return null;
  for (let i = 0; i < SCHEME.length; i++) {
    // OR 0x20 lower-cases the letters and leaves the space as it is.
    if ((authorization.charCodeAt(i) | 0x20) !== SCHEME.charCodeAt(i)) return null;
  }
  for (let i = SCHEME.length; i < length; i++) {
    const c = authorization.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return null;
  }
  return authorization.slice(SCHEME.length);
}

/**
 * The 401 variants: a missing or malformed Authorization header is "No API key
 * provided", a well-formed but unknown token "Invalid API key", a revoked key
 * "API key revoked" (the spec's answer for an expired key too) — the same on every endpoint. An active key without the permission
 * the route needs is the 403.
 */
export function authenticateRequest(
  authenticator: Authenticator,
  authorization: string | null,
  needs: Permission,
): KeyRecord | ApiError {
  const token = bearerToken(authorization);
  if (token === null) return API_ERRORS.missingKey;
  const result = authenticator.authenticate(token);
  if (result.outcome === "active") return result.key.permissions.includes(needs) ? result.key : API_ERRORS.forbidden;
  return result.outcome === "unknown" ? API_ERRORS.unknownKey : API_ERRORS.revokedKey;
}

import type { Authentication } from "../keys/key-authenticator.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import { API_ERRORS, type ApiError } from "./errors.ts";

export interface Authenticator {
  authenticate(token: string): Authentication;
}

/** What the bearer plugin extracted is used only when the header itself is well formed. */
const BEARER_HEADER = /^Bearer [\x21-\x7e]+$/;
const MAX_HEADER_LENGTH = 512;

/**
 * The 401 variants: a missing or malformed Authorization header is "No API key
 * provided", a well-formed but unknown token "Invalid API key", a revoked key
 * "API key revoked" — the same on every endpoint.
 */
export function authenticateRequest(authenticator: Authenticator, authorization: string | null, bearer: string | undefined): KeyRecord | ApiError {
  if (authorization === null || bearer === undefined || authorization.length > MAX_HEADER_LENGTH || !BEARER_HEADER.test(authorization)) {
    return API_ERRORS.missingKey;
  }
  const result = authenticator.authenticate(bearer);
  if (result.outcome === "active") return result.key;
  return result.outcome === "revoked" ? API_ERRORS.revokedKey : API_ERRORS.unknownKey;
}

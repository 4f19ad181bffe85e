import { ContentError } from "./parsed-source.ts";

/** Entries a list may fail to read, as a share of those it reads, before it is refused. */
export const MAX_REJECTED_SHARE = 0.01;

const MARKUP = /<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<script[\s>]|<meta[\s>]|<title>/i;

/** Text of a download; an HTML page or other markup (a login wall, a "please enable JavaScript" page) is refused. */
export function listText(bytes: Uint8Array, what: string): string {
  const text = new TextDecoder().decode(bytes);
  const start = text.trimStart();
  if (start.startsWith("<") || MARKUP.test(text.slice(0, 8192)))
    throw new ContentError(`looks like an HTML page, not ${what}`);
  return text;
}

/**
 * A list must yield entries, and at most a small share of its lines may be unreadable.
 * The refusal names where the first bad entry is, never what it says: refusals reach
 * /healthz and the dashboard, and the bytes may be anything a redirect or a wrong URL served.
 */
export function checkRejects(
  accepted: number,
  rejected: number,
  firstRejected: string | undefined,
  what: string,
): void {
  if (rejected > 0 && rejected > accepted * MAX_REJECTED_SHARE) {
    throw new ContentError(
      `${rejected} of ${accepted + rejected} entries are not ${what} (the first at ${firstRejected}); more than ` +
        `${MAX_REJECTED_SHARE * 100} % is not a damaged line but the wrong file`,
    );
  }
}

/** The feed's own date from its header comments: ipsum, FireHOL, Spamhaus write one. */
export function headerDate(text: string): string | null {
  const head = text.slice(0, 4096);
  const match = /^[#;]\s*(?:Last update|Source File Date|Last-Modified)\s*:\s*(.+?)\s*$/im.exec(head);
  return match ? isoDate(match[1]) : null;
}

/** An ISO timestamp for a date in any form JavaScript reads (a missing zone is UTC), or null. */
export function isoDate(text: string | number): string | null {
  const value = typeof text === "number" ? text : /^\d{4}-\d\d-\d\dT[\d:.]+$/.test(text) ? `${text}Z` : text;
  const at = typeof value === "number" ? value : Date.parse(value);
  return Number.isFinite(at) ? new Date(at).toISOString() : null;
}

/** A JSON document that must be an object (an error page or another format is refused). */
export function jsonObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  const text = listText(bytes, what);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ContentError(`not JSON; expected ${what}`);
  }
  if (document === null || typeof document !== "object" || Array.isArray(document))
    throw new ContentError(`not a JSON object; expected ${what}`);
  return document as Record<string, unknown>;
}

/** The members of `document[key]` when it is an array, else []. */
export function arrayAt(document: Record<string, unknown>, key: string): unknown[] {
  const value = document[key];
  return Array.isArray(value) ? value : [];
}

import { messagePage } from "./pages/keys.ts";
import type { Notice } from "./pages/notice.ts";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
} as const;

/** An HTML page with the dashboard's security headers. */
export function page(body: string, status = 200, extra: Record<string, string> = {}, cookies: string[] = []): Response {
  const headers = new Headers({ "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...extra });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(body, { status, headers });
}

/** A page that says what went wrong, with the way back. */
export function problem(title: string, text: string, status: number, extra: Record<string, string> = {}): Response {
  return page(messagePage(title, text), status, extra);
}

/** What a page or form gets when the database failed under it: what happened, and when to try again. */
export function unavailable(text: string, retryAfterSeconds: number): Response {
  return problem("Try again shortly", text, 503, { "retry-after": String(retryAfterSeconds) });
}

/** See other: where a form's action leads once it is done. */
export function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, ...SECURITY_HEADERS });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

/** The notice a `?done=WORD` names, if the section has one for it. */
export function doneNotice(request: Request, notices: ReadonlyMap<string, string>): Notice | undefined {
  const text = notices.get(new URL(request.url).searchParams.get("done") ?? "");
  return text === undefined ? undefined : { text };
}

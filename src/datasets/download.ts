import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Download =
  | { readonly changed: true; readonly bytes: Uint8Array; readonly etag?: string; readonly lastModified?: string }
  | { readonly changed: false };

export interface Validators {
  readonly etag?: string;
  readonly lastModified?: string;
}

const MAX_BYTES = 1024 * 1024 * 1024;
const TIMEOUT_MS = 10 * 60 * 1000;

/** Reports bytes received so far (and the total when known). */
export type Progress = (received: number, total: number | null) => void;

/**
 * Fetches a source, asking the server whether it changed since `previous`
 * (If-None-Match / If-Modified-Since; a file's modification time for file://).
 * Throws with a reason on anything but 200 or 304.
 */
export async function download(url: string, headers: Readonly<Record<string, string>>, previous: Validators, progress: Progress): Promise<Download> {
  if (url.startsWith("file://")) {
    const path = fileURLToPath(url);
    const lastModified = statSync(path).mtime.toUTCString();
    if (previous.lastModified === lastModified) return { changed: false };
    const bytes = await Bun.file(path).bytes();
    progress(bytes.byteLength, bytes.byteLength);
    return { changed: true, bytes, lastModified };
  }
  const target = new URL(url);
  const request = new Headers(headers);
  if (target.username) {
    // Credentials travel in a header, never in the URL that logs and errors print.
    request.set("authorization", `Basic ${btoa(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`)}`);
    target.username = "";
    target.password = "";
  }
  if (previous.etag) request.set("if-none-match", previous.etag);
  if (previous.lastModified) request.set("if-modified-since", previous.lastModified);
  const response = await fetch(target, { headers: request, redirect: "follow", signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (response.status === 304) return { changed: false };
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  const length = Number(response.headers.get("content-length")) || null;
  if (length !== null && length > MAX_BYTES) throw new Error(`${length} bytes is more than the ${MAX_BYTES} allowed`);
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body ?? []) {
    received += chunk.byteLength;
    if (received > MAX_BYTES) throw new Error(`more than the ${MAX_BYTES} bytes allowed`);
    chunks.push(chunk);
    progress(received, length);
  }
  if (length !== null && received !== length) throw new Error(`truncated: ${received} of ${length} bytes`);
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return {
    changed: true,
    bytes,
    etag: response.headers.get("etag") ?? undefined,
    lastModified: response.headers.get("last-modified") ?? undefined,
  };
}

/** "https://user:key@host/path" → "https://host/path", for logs and the manifest. */
export function redactUrl(url: string): string {
  return url.replace(/^(\w+:\/\/)[^/@]*@/, "$1");
}

/** A progress line on stderr: rewritten in place on a terminal, every few seconds otherwise. */
export function progressLine(name: string, write: (text: string) => void, isTty: boolean): Progress {
  const started = performance.now();
  let lastPrint = 0;
  return (received, total) => {
    const now = performance.now();
    if (now - lastPrint < (isTty ? 100 : 3000) && received !== total) return;
    lastPrint = now;
    const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;
    const rate = received / Math.max(0.001, (now - started) / 1000);
    const line = `${name}: ${mb(received)}${total ? ` of ${mb(total)}` : ""} at ${mb(rate)}/s`;
    write(isTty ? `\r\x1b[2K${line}` : `${line}\n`);
  };
}

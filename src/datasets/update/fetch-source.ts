import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type PackageFiles, packageName } from "./package-files.ts";
import { refusedRedirect } from "./redirect-target.ts";
import NPM_DATA_DATES from "./npm-data-dates.json" with { type: "json" };

export type Fetched =
  | {
      readonly changed: true;
      readonly bytes: Uint8Array;
      readonly etag?: string;
      readonly lastModified?: string;
      readonly packageVersion?: string;
      /** The date of the data where the transport tells it: Last-Modified, or the package's release. */
      readonly date: { readonly at: string; readonly from: "last-modified" | "package" } | null;
    }
  | { readonly changed: false };

export interface Validators {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly packageVersion?: string;
}

/** A source that cannot be reached from here at all (a package not installed); its last data stays. */
export class SourceUnavailable extends Error {}

const TIMEOUT_MS = 10 * 60 * 1000;
/** Redirects followed before a download is given up; each hop is checked by refusedRedirect. */
const MAX_REDIRECTS = 5;

/** A source larger than its format's ceiling, or one that unpacks to more: refused before it is held whole. */
export class SourceTooLarge extends Error {}

const mb = (bytes: number) => `${Math.round(bytes / 1_048_576)} MB`;

/** Reports bytes received so far (and the total when known). */
export type Progress = (received: number, total: number | null) => void;

/**
 * Fetches a source unless it is unchanged since `previous`: If-None-Match /
 * If-Modified-Since over HTTP, the modification time of a file://, the installed
 * version of an npm: package (looked up in `packages`). Throws with a reason on
 * anything but 200 or 304; unpacks .gz and MaxMind's .tar.gz. Neither the bytes read
 * nor what they unpack to may exceed `maxBytes` (SourceTooLarge): no file, download or
 * gzip bomb is ever held past it.
 */
export async function fetchSource(
  url: string,
  headers: Readonly<Record<string, string>>,
  previous: Validators,
  progress: Progress,
  packages: PackageFiles | null,
  maxBytes: number,
): Promise<Fetched> {
  const fetched = url.startsWith("npm:")
    ? await readPackageFile(url, previous, packages, maxBytes)
    : url.startsWith("file://")
      ? await readLocalFile(url, previous, maxBytes)
      : await download(url, headers, previous, progress, maxBytes);
  return fetched.changed ? { ...fetched, bytes: await unpack(fetched.bytes, maxBytes) } : fetched;
}

function checkFileSize(path: string, maxBytes: number): void {
  const size = statSync(path).size;
  if (size > maxBytes)
    throw new SourceTooLarge(
      `${path} has ${size} bytes, more than the ${mb(maxBytes)} a source of this format may have`,
    );
}

async function readPackageFile(
  url: string,
  previous: Validators,
  packages: PackageFiles | null,
  maxBytes: number,
): Promise<Fetched> {
  const path = url.slice("npm:".length);
  const name = packageName(path);
  const version = packages?.version(name) ?? null;
  if (version === null)
    throw new SourceUnavailable(
      `the npm package ${name} is not installed here${packages ? ` (${packages.where})` : ""}`,
    );
  if (previous.packageVersion === version) return { changed: false };
  const bytes = await packages!.read(path);
  if (bytes === null) throw new Error(`${name} ${version} has no file ${path.slice(name.length + 1)}`);
  if (bytes.byteLength > maxBytes)
    throw new SourceTooLarge(
      `${path} has ${bytes.byteLength} bytes, more than the ${mb(maxBytes)} a source of this format may have`,
    );
  const released = (NPM_DATA_DATES as Record<string, string>)[`${name}@${version}`];
  return {
    changed: true,
    bytes,
    packageVersion: version,
    date: released ? { at: new Date(released).toISOString(), from: "package" } : null,
  };
}

async function readLocalFile(url: string, previous: Validators, maxBytes: number): Promise<Fetched> {
  const path = fileURLToPath(url);
  const modified = statSync(path).mtime;
  const lastModified = modified.toUTCString();
  if (previous.lastModified === lastModified) return { changed: false };
  checkFileSize(path, maxBytes);
  return {
    changed: true,
    bytes: await Bun.file(path).bytes(),
    lastModified,
    date: { at: modified.toISOString(), from: "last-modified" },
  };
}

async function download(
  url: string,
  headers: Readonly<Record<string, string>>,
  previous: Validators,
  progress: Progress,
  maxBytes: number,
): Promise<Fetched> {
  const target = new URL(url);
  const request = new Headers(headers);
  if (target.username) {
    // Credentials travel in a header, never in the URL that logs and errors print.
    request.set(
      "authorization",
      `Basic ${btoa(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`)}`,
    );
    target.username = "";
    target.password = "";
  }
  if (previous.etag) request.set("if-none-match", previous.etag);
  if (previous.lastModified) request.set("if-modified-since", previous.lastModified);
  const response = await followRedirects(target, request);
  if (response.status === 304) return { changed: false };
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  const length = Number(response.headers.get("content-length")) || null;
  if (length !== null && length > maxBytes)
    throw new SourceTooLarge(`${length} bytes is more than the ${mb(maxBytes)} a source of this format may have`);
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body ?? []) {
    received += chunk.byteLength;
    if (received > maxBytes) throw new SourceTooLarge(`more than the ${mb(maxBytes)} a source of this format may have`);
    chunks.push(chunk);
    progress(received, length);
  }
  if (length !== null && received !== length) throw new Error(`truncated: ${received} of ${length} bytes`);
  const lastModified = response.headers.get("last-modified") ?? undefined;
  const modifiedAt = lastModified ? Date.parse(lastModified) : Number.NaN;
  return {
    changed: true,
    bytes: Buffer.concat(chunks),
    etag: response.headers.get("etag") ?? undefined,
    lastModified,
    date: Number.isFinite(modifiedAt) ? { at: new Date(modifiedAt).toISOString(), from: "last-modified" } : null,
  };
}

/**
 * The response to the declared URL, its redirects followed by hand: each must go to http(s)
 * on a public address (never loopback, private, link-local or metadata space), and the
 * source's headers and credentials go only to the origin they were declared for.
 */
async function followRedirects(target: URL, headers: Headers): Promise<Response> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  let url = target;
  for (let hop = 0; ; hop++) {
    const sameOrigin = url.origin === target.origin;
    const response = await fetch(url, { headers: sameOrigin ? headers : new Headers(), redirect: "manual", signal });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || response.status === 304 || location === null) return response;
    await response.body?.cancel();
    if (hop === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
    const next = URL.parse(location, url.href);
    const refusal = next === null ? "not a URL" : await refusedRedirect(next);
    if (refusal) throw new Error(`redirect refused: ${refusal}`);
    url = next!;
  }
}

/** gzip and tar.gz (MaxMind's packaging) to the file inside; anything else unchanged. */
async function unpack(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  // Imported here: a module the bundle imports statically is loaded by every start (node:zlib, ~3 ms of CPU).
  const { gunzipSync } = await import("node:zlib");
  let inflated: Uint8Array;
  try {
    inflated = gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw new SourceTooLarge(`unpacks to more than the ${mb(maxBytes)} a source of this format may have`);
    throw new Error(`not a readable gzip file (${(err as Error).message})`);
  }
  const isTar = new TextDecoder().decode(inflated.subarray(257, 262)) === "ustar";
  if (!isTar) return inflated;
  const members = [...(await new Bun.Archive(inflated).files()).entries()];
  const mmdb = members.find(([path]) => path.endsWith(".mmdb")) ?? members.sort((a, b) => b[1].size - a[1].size)[0];
  if (!mmdb) throw new Error("empty archive");
  return await mmdb[1].bytes();
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

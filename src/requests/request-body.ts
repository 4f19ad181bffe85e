/** The body's JSON when it is an object (not an array, not null); null for anything else, malformed JSON included. */
export function jsonObjectOf(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** Why a body was not read: over the limit (413), or it did not arrive whole (400). */
export type BodyProblem = { readonly problem: "too_large" | "incomplete" };

const TOO_LARGE: BodyProblem = Object.freeze({ problem: "too_large" });
const INCOMPLETE: BodyProblem = Object.freeze({ problem: "incomplete" });

/**
 * The body as text, read no further than `maxBytes`: a declared length over it is refused
 * unread, and a body that grows past it (chunked, or lying about its length) is cut off there.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string | BodyProblem> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return TOO_LARGE;
  if (request.body === null) return "";
  const pieces: Uint8Array[] = [];
  let length = 0;
  const reader = request.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel().catch(() => {});
        return TOO_LARGE;
      }
      pieces.push(value);
    }
  } catch {
    // The client closed the connection mid-body or sent a malformed chunked body.
    return INCOMPLETE;
  }
  return Buffer.concat(pieces, length).toString("utf8");
}

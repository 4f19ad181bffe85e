import { readBodyText } from "../requests/request-body.ts";
import { problem } from "./responses.ts";

/** The dashboard's forms are tiny: a body over this is no form of its own. */
const MAX_FORM_BYTES = 64 * 1024;

/** The dashboard's forms are URL-encoded; any other body is refused with 415, one that does not arrive whole with 400 or 413. */
export async function readForm(request: Request): Promise<URLSearchParams | Response> {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return problem(
      "Unsupported form",
      "The dashboard accepts only its own forms (application/x-www-form-urlencoded).",
      415,
    );
  const body = await readBodyText(request, MAX_FORM_BYTES);
  // The client's doing, not a server fault: a body over the limit, or one that did not arrive whole
  // (the connection closed mid-body, a malformed chunked body, shutdown cut it off). Not logged.
  if (typeof body !== "string" && body.problem === "too_large")
    return problem("Form too large", "The dashboard's forms are small; this one was over the upload limit.", 413);
  if (typeof body !== "string") return problem("Form not received", "The form did not arrive whole. Try again.", 400);
  return new URLSearchParams(body);
}

/** A field given exactly once, else undefined. */
export function field(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

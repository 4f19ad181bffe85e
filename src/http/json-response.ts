export const JSON_TYPE = "application/json";

export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": JSON_TYPE });

/** A 200 with a JSON body already written. */
export function jsonResponse(body: string): Response {
  return new Response(body, { headers: JSON_HEADERS });
}

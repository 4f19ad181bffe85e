export const KEY_NAME_MAX_LENGTH = 100;

/** Trims and checks a key name; returns an error sentence or the clean name. */
export function normaliseKeyName(raw: string): { name: string } | { error: string } {
  const name = raw.trim();
  if (name === "") return { error: "a key needs a descriptive name" };
  if (name.length > KEY_NAME_MAX_LENGTH) return { error: `a key name is at most ${KEY_NAME_MAX_LENGTH} characters` };
  // Control characters would corrupt one-line CLI output and logs; format characters (bidi
  // overrides, zero-width ones) and line separators make a name read as something else.
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name))
    return {
      error: "a key name cannot contain control or invisible formatting characters (such as bidirectional overrides)",
    };
  return { name };
}

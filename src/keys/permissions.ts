/**
 * What a key may do: `check` the two GET endpoints and the batch, `report` abuse with POST /v1/reports,
 * `manage` the override lines through /v1/overrides (never given unless asked for).
 */
export const PERMISSIONS = ["check", "report", "manage"] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** A key made without a word on it, and every key that existed before permissions, may check. */
export const DEFAULT_PERMISSIONS: readonly Permission[] = Object.freeze(["check"]);

/** "check,report" as the list it names, in the canonical order; an error sentence for anything else. */
export function parsePermissions(text: string): { permissions: readonly Permission[] } | { error: string } {
  const words = text
    .split(",")
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w !== "");
  const unknown = words.filter((w) => !(PERMISSIONS as readonly string[]).includes(w));
  if (unknown.length > 0)
    return {
      error: `unknown permission "${unknown[0]}"; a key's permissions are ${PERMISSIONS.join(" and/or ")}, comma-separated`,
    };
  if (words.length === 0) return { error: `a key needs at least one permission: ${PERMISSIONS.join(", ")}` };
  return { permissions: PERMISSIONS.filter((p) => words.includes(p)) };
}

/** As stored in a key's row: "check,report". */
export function permissionsText(permissions: readonly Permission[]): string {
  return permissions.join(",");
}

/** A stored list; words this version does not know are left out. */
export function permissionsOf(stored: string): readonly Permission[] {
  return PERMISSIONS.filter((p) => stored.split(",").includes(p));
}

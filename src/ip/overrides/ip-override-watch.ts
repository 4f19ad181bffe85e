import { OverrideWatch } from "../../email/override-watch.ts";
import type { IpOverrideLine, IpOverrideStore } from "./ip-override.ts";
import { OverrideLines } from "./override-lines.ts";

/** The IP override lines in force on this instance: the watch that follows the store, and the lines it keeps compiled for lookups. */
export function ipOverrideWatch(
  store: IpOverrideStore,
  now: () => number,
): { readonly watch: OverrideWatch<IpOverrideLine>; readonly lines: OverrideLines } {
  const lines = new OverrideLines();
  const watch = new OverrideWatch(store, (line) => line.target, now, {
    set: (line) => lines.set({ ...line, source: "database" }),
    delete: (target) => lines.delete(target),
    clear: () => lines.clear(),
  });
  return { watch, lines };
}

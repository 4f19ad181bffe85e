import { dataFiles } from "../datasets/data-layout.ts";
import { readManifest } from "../datasets/manifest.ts";

/** When a dataset version last became current (`riskcheck update` or the install): its manifest's `created`, or null. */
export async function lastUpdateSuccess(dataDir: string): Promise<string | null> {
  return (await readManifest(dataFiles(dataDir).manifest))?.created ?? null;
}

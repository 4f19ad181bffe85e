import { statSync } from "node:fs";
import { DatasetError } from "../ip/dataset-error.ts";

export interface TextDataset {
  readonly text: string;
  readonly modified: string;
}

export async function readTextDataset(file: string, options: { optional?: boolean } = {}): Promise<TextDataset | null> {
  let modified: Date;
  try {
    modified = statSync(file).mtime;
  } catch {
    if (options.optional) return null;
    throw new DatasetError(file, "missing");
  }
  try {
    return { text: await Bun.file(file).text(), modified: modified.toISOString() };
  } catch (err) {
    throw new DatasetError(file, `cannot be read (${(err as Error).message})`, "check its permissions");
  }
}

import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { releaseVersionPages } from "../../src/datasets/version-pages.ts";
import { mapDataFile } from "../../src/ip/mapped-file.ts";

const work = realpathSync(mkdtempSync(join(tmpdir(), "rk-version-pages-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SIZE = 4 * 1024 * 1024;
const bytes = Uint8Array.from({ length: SIZE }, (_, i) => (i * 2654435761) >>> 24);

/** This process's resident KiB of its mappings of `file`. */
function residentKib(file: string): number {
  let resident = 0;
  let inside = false;
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inside = line.endsWith(` ${file}`);
    else if (inside && line.startsWith("Rss:")) resident += Number(line.match(/(\d+) kB/)![1]);
  }
  return resident;
}

function touchAll(view: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < view.length; i += 4096) sum += view[i]!;
  return sum;
}

test.if(process.platform === "linux")(
  "a replaced version's mapped pages leave the process, its bytes still read the same, nothing else is touched",
  async () => {
    const old = join(work, "datasets", "old");
    const served = join(work, "datasets", "served");
    mkdirSync(join(old, "geo"), { recursive: true });
    mkdirSync(served, { recursive: true });
    writeFileSync(join(old, "geo", "city.table"), bytes);
    writeFileSync(join(served, "city.table"), bytes);
    const replaced = mapDataFile(join(old, "geo", "city.table")).bytes;
    const kept = mapDataFile(join(served, "city.table")).bytes;
    const anonymous = new Uint8Array(bytes);
    const sum = touchAll(replaced);
    touchAll(kept);
    expect(residentKib(join(old, "geo", "city.table"))).toBeGreaterThanOrEqual(SIZE / 1024 - 64);

    // Named through a link, as data/current names a version: the kernel names the real folder.
    symlinkSync(old, join(work, "current"));
    expect(await releaseVersionPages(join(work, "current"))).toBe(SIZE);

    expect(residentKib(join(old, "geo", "city.table"))).toBeLessThan(64);
    expect(residentKib(join(served, "city.table"))).toBeGreaterThanOrEqual(SIZE / 1024 - 64);
    // Read after the check, the served mapping stays reachable through it: a collection during the
    // release's turns would otherwise unmap it (its pages gone from RSS too) in a busy worker.
    expect(touchAll(kept)).toBe(sum);
    expect(Buffer.from(anonymous).equals(Buffer.from(bytes))).toBe(true);
    // Read again, the pages come back from the file.
    expect(touchAll(replaced)).toBe(sum);
    expect(Buffer.from(replaced).equals(Buffer.from(bytes))).toBe(true);
    expect(await releaseVersionPages(join(work, "datasets", "none"))).toBe(0);
  },
);

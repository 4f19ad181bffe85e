import { expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BUNDLED_SOURCES, runCliAsync } from "../support/processes.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { scaled } from "../support/slowness.ts";
import { smallDisk } from "../support/small-disk.ts";

setDefaultTimeout(scaled(60_000));

/** A 512 KiB tmpfs, where the machine lets this process mount one. */
const small = smallDisk("512k");

// Skipped where no small file system can be mounted (not root, or a container that refuses mounts):
// filling the real disk instead would disturb the whole machine.
test.skipIf(small === null)(
  "an update on a full disk says so and what to do, installs nothing and leaves no lock behind",
  async () => {
    // A data directory on the small file system whose current version is the bundled one (elsewhere):
    // the new version, copied there, cannot fit.
    const dir = small!;
    const version = basename(readlinkSync(join(BUNDLED_DATA_DIR, "current")));
    mkdirSync(join(dir, "datasets"));
    symlinkSync(join(BUNDLED_DATA_DIR, "datasets", version), join(dir, "datasets", version));
    symlinkSync(join("datasets", version), join(dir, "current"));
    const list = join(mkdtempSync(join(tmpdir(), "riskcheck-list-")), "list.txt");
    writeFileSync(list, "81.2.69.0/24\n203.0.113.9\n");
    writeFileSync(
      join(dir, "sources.json"),
      JSON.stringify({
        sources: [
          ...BUNDLED_SOURCES,
          { name: "list", url: `file://${list}`, format: "address-list", feeds: "attack", licence: "test" },
        ],
      }),
    );
    const result = await runCliAsync(["update", "--data-dir", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${dir}: the disk is full (`);
    expect(result.stderr).toContain("nothing was installed and the current data keeps serving. Free some space there");
    expect(readlinkSync(join(dir, "current"))).toBe(join("datasets", version));
    expect(readdirSync(join(dir, "datasets")).filter((n) => n.startsWith(".staging") || n.endsWith(".owner"))).toEqual(
      [],
    );
  },
);

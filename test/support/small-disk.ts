import { afterAll } from "bun:test";
import { mkdtempSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A tmpfs of `size` ("512k", "1m"), where the machine lets this process mount one (root), unmounted
 * after the file's tests; null elsewhere (not root, or a container that refuses mounts): a test
 * that needs a full disk is skipped then, since filling the real disk would disturb the whole machine.
 */
export function smallDisk(size: string): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), "riskcheck-full-"));
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]).exitCode !== 0) {
    rmdirSync(dir);
    return null;
  }
  afterAll(() => {
    // Lazily: a table a test's server mapped from it may not be unmapped yet (that waits for a collection).
    Bun.spawnSync(["umount", "-l", dir]);
    rmdirSync(dir);
  });
  return dir;
}

import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../../src/app/config.ts";
import { resolveClientAddress } from "../../src/ip/address/client-address.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { scaled } from "../support/slowness.ts";

const ROOT = resolve(import.meta.dir, "../..");
const operations = readFileSync(join(ROOT, "docs/operations.md"), "utf8");

/** Every unit file docs/operations.md writes out (an ini block's `# /etc/systemd/system/NAME` lines start one). */
function documentedUnits(): Map<string, string> {
  const units = new Map<string, string>();
  for (const [, block] of operations.matchAll(/```ini\n([\s\S]*?)```/g)) {
    let name: string | null = null;
    for (const line of block!.split("\n")) {
      const header = /^# \/etc\/systemd\/system\/(\S+)$/.exec(line);
      if (header) units.set((name = header[1]!), "");
      else if (name) units.set(name, `${units.get(name)}${line}\n`);
    }
  }
  return units;
}

const units = documentedUnits();
const service = units.get("riskcheck.service")!;

describe("the systemd units of docs/operations.md", () => {
  test("are all found: the service, and the update's service and timer", () => {
    expect([...units.keys()].sort()).toEqual([
      "riskcheck-update.service",
      "riskcheck-update.timer",
      "riskcheck.service",
    ]);
  });

  test("the service runs as a fixed user, who also runs the commands beside it, and trusts its proxy", () => {
    expect(service).toMatch(/^User=riskcheck$/m);
    expect(service).not.toMatch(/DynamicUser/);
    expect(operations).toContain(
      "`sudo -u riskcheck /usr/local/bin/riskcheck keys create --name my-app --data-dir /var/lib/riskcheck`",
    );
    // Behind a proxy on loopback: its settings are ones `serve` accepts, and the proxy's header is believed.
    const env = Object.fromEntries([...service.matchAll(/^Environment=(\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(service).toMatch(/^ExecStart=\S+ serve --host 127\.0\.0\.1 /m);
    const config = loadConfig({}, env);
    const trustProxy = { proxies: config.trustedProxies, header: config.trustProxyHeader };
    const forwarded = new Headers({ "x-forwarded-for": "198.51.100.7" });
    for (const proxy of ["127.0.0.1", "::1"])
      expect(resolveClientAddress(parseIpAddress(proxy)!, forwarded, trustProxy).text).toBe("198.51.100.7");
  });

  // systemd-analyze is there on a systemd host (Debian's systemd package); without it, there is nothing to ask.
  test.skipIf(!Bun.which("systemd-analyze"))("systemd-analyze verify finds nothing to say about any of them", () => {
    const dir = mkdtempSync(join(tmpdir(), "riskcheck-units-"));
    // verify wants every ExecStart= to name an executable that exists: this one stands in for the binary.
    for (const [name, text] of units)
      writeFileSync(
        join(dir, name),
        text.replaceAll(/\/(usr\/local\/bin|opt\/riskcheck)\/riskcheck\b/g, process.execPath),
      );
    const verified = Bun.spawnSync(
      ["systemd-analyze", "verify", "--man=no", ...[...units.keys()].map((n) => join(dir, n))],
      {
        timeout: scaled(30_000),
        killSignal: "SIGKILL",
      },
    );
    expect({ code: verified.exitCode, said: `${verified.stdout}${verified.stderr}` }).toEqual({ code: 0, said: "" });
  });
});

import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { linkSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, runCli } from "../support/processes.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { scaled } from "../support/slowness.ts";

// Real processes that load the bundled data; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const dir = mkdtempSync(join(tmpdir(), "riskcheck-scan-files-"));
const DATA = ["--data-dir", BUNDLED_DATA_DIR, "--db", join(dir, "none.sqlite")];
const USERS = "email,ip\njane@gmail.com,8.8.8.8\n";

describe("riskcheck scan refuses to write over its input, however the output is named", () => {
  test.each([
    ["the same path", (input: string) => input],
    ["another spelling of the path", () => join(dir, ".", "users.csv")],
    [
      "a hard link",
      (input: string) => {
        const link = join(dir, "hard.csv");
        linkSync(input, link);
        return link;
      },
    ],
    [
      "a symbolic link",
      (input: string) => {
        const link = join(dir, "soft.csv");
        symlinkSync(input, link);
        return link;
      },
    ],
  ])("%s: exit 2, and the input is left as it was", (_, outFor) => {
    const input = join(dir, "users.csv");
    writeFileSync(input, USERS);
    const { code, stderr } = runCli(["scan", input, "--out", outFor(input), ...DATA]);
    expect(code).toBe(2);
    expect(stderr).toContain("the output is the input file");
    expect(readFileSync(input, "utf8")).toBe(USERS);
  });

  test("standard input redirected from the file that --out names", () => {
    const input = join(dir, "stdin.csv");
    writeFileSync(input, USERS);
    const result = Bun.spawnSync([process.execPath, CLI, "scan", "--out", input, ...DATA], {
      stdin: Bun.file(input),
      timeout: scaled(30_000),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain("the output is the input file (standard input)");
    expect(readFileSync(input, "utf8")).toBe(USERS);
  });
});

describe("riskcheck scan on what is not a regular UTF-8 file", () => {
  test("a character device is read: /dev/null is 0 rows, exit 0", () => {
    const { code, stdout, stderr } = runCli(["scan", "/dev/null", ...DATA]);
    expect(stderr).toMatch(/^rows\s+0$/m);
    expect(stdout).toBe("");
    expect(code).toBe(0);
  });

  test("a directory is one line naming it, exit 1", () => {
    const { code, stderr } = runCli(["scan", dir, ...DATA]);
    expect(code).toBe(1);
    expect(stderr).toBe(`riskcheck: scan: ${dir}: a directory, not a file\n`);
  });

  test("UTF-32 is refused with exit 2 and a message saying how to convert it; UTF-16 with its mark is read", () => {
    const utf32 = join(dir, "users32.csv");
    writeFileSync(utf32, new Uint8Array([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0]));
    const refused = runCli(["scan", utf32, ...DATA]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "the input is UTF-32 (its byte order mark says so): scan reads UTF-8 or UTF-16; convert it first, e.g. iconv -f UTF-32 -t UTF-8",
    );
    const utf16 = join(dir, "users16.csv");
    writeFileSync(utf16, Buffer.from(`\uFEFF${USERS}`, "utf16le"));
    const read = runCli(["scan", utf16, ...DATA]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("2,jane@gmail.com,8.8.8.8,gmail.com,false,true,US,");
    expect(read.stderr).toContain('email column: "email"');
  });
});

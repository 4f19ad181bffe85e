import { describe, expect, test } from "bun:test";
import { MAX_RECORD_CHARS } from "../../src/scan/csv-records.ts";
import { type ScanOptions, ScanInputError, scan } from "../../src/scan/scan.ts";
import { createTestApp, testSnapshot } from "../support/test-app.ts";

const snapshot = await testSnapshot();
const DEFAULTS: ScanOptions = { explain: false, onlyRisky: false, columns: {} };

/** The bytes in pieces of `piece`, as a file or a pipe delivers them. */
async function* pieces(bytes: Uint8Array, piece: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += piece) yield bytes.subarray(i, i + piece);
}

async function runBytes(bytes: Uint8Array, options: Partial<ScanOptions> = {}, piece = 64 * 1024) {
  let out = "";
  const summary = await scan(pieces(bytes, piece), { write: (t) => void (out += t) }, snapshot, {
    ...DEFAULTS,
    ...options,
  });
  return { out, summary, lines: out.split("\n").filter(Boolean) };
}

const run = (text: string, options: Partial<ScanOptions> = {}, piece?: number) =>
  runBytes(new TextEncoder().encode(text), options, piece);
const json = (out: string) =>
  out
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe("every input format has the same length cap: one unreadable row per line too long, and nothing of it read as a row", () => {
  const long = "x".repeat(MAX_RECORD_CHARS + 10);
  test.each([
    ["plain lines", `a@gmail.com\n${long}@gmail.com\n8.8.8.8\n`],
    ["JSON Lines", `"a@gmail.com"\n"${long}@gmail.com"\n"8.8.8.8"\n`],
    ["CSV, an unquoted field", `email\na@gmail.com\n${long}@gmail.com\n8.8.8.8\n`],
    ["CSV, a quoted field", `email\na@gmail.com\n"${long}@gmail.com"\n8.8.8.8\n`],
  ])("%s", async (_, text) => {
    for (const piece of [64 * 1024, 4 * MAX_RECORD_CHARS]) {
      const { out, summary } = await run(text, { format: "jsonl" }, piece);
      const rows = json(out);
      const lineOffset = text.startsWith("email") ? 1 : 0;
      expect(rows).toHaveLength(3);
      expect(rows[1]).toEqual({
        line: 2 + lineOffset,
        error: "unreadable_row",
        message: expect.stringContaining(`longer than ${MAX_RECORD_CHARS} characters`),
      });
      expect(rows[2].line).toBe(3 + lineOffset);
      expect(rows[2].error).toBeUndefined();
      expect(JSON.stringify(rows[2].input)).toContain("8.8.8.8");
      expect(summary.badRows).toBe(1);
    }
  });

  test("a file of NULs without a line break is one unreadable row, read a piece at a time", async () => {
    const { out, summary } = await runBytes(new Uint8Array(3 * MAX_RECORD_CHARS), { format: "jsonl" });
    expect(json(out)).toEqual([{ line: 1, error: "unreadable_row", message: expect.stringContaining("longer than") }]);
    expect(summary.rows).toBe(1);
  });
});

describe("encodings: UTF-8, UTF-16 by its byte order mark; the rest refused", () => {
  const text = "email\na@gmail.com\nb@mailinator.com\n";
  const utf16 = (littleEndian: boolean) => {
    const bytes = new Uint8Array(2 + text.length * 2);
    const view = new DataView(bytes.buffer);
    view.setUint16(0, 0xfeff, littleEndian);
    for (let i = 0; i < text.length; i++) view.setUint16(2 + 2 * i, text.charCodeAt(i), littleEndian);
    return bytes;
  };

  test.each([
    ["UTF-16LE", true],
    ["UTF-16BE", false],
  ])("%s with its mark is read, whatever the pieces", async (_, littleEndian) => {
    for (const piece of [1, 3, 4096]) {
      const { lines } = await runBytes(utf16(littleEndian), {}, piece);
      expect(lines[0]).toStartWith("line,email,");
      expect(lines[1]).toStartWith("2,a@gmail.com,gmail.com,false,true");
      expect(lines[2]).toStartWith("3,b@mailinator.com,mailinator.com,true,false");
    }
  });

  test.each([
    ["UTF-32LE", [0xff, 0xfe, 0, 0, 0x61, 0, 0, 0], "the input is UTF-32"],
    ["UTF-32BE", [0, 0, 0xfe, 0xff, 0, 0, 0, 0x61], "the input is UTF-32"],
    ["UTF-16 without its mark", [0x61, 0, 0x40, 0, 0x62, 0], "looks like UTF-16 or UTF-32 without a byte order mark"],
    [
      "Latin-1",
      [...new TextEncoder().encode("email\nj"), 0xe9, ...new TextEncoder().encode("r@gmail.com\n")],
      "the input is not valid UTF-8",
    ],
  ])("%s is refused with a message", async (_, bytes, message) => {
    const refused = runBytes(new Uint8Array(bytes), {}, 2);
    await expect(refused).rejects.toThrow(ScanInputError);
    await expect(runBytes(new Uint8Array(bytes), {}, 2)).rejects.toThrow(message);
  });

  test("an input shorter than any mark is read", async () => {
    expect((await run("1.1")).lines[1]).toContain("invalid_ip");
  });
});

describe("the summary says where the values were read from", () => {
  test("CSV: the columns used, and the others whose names looked right", async () => {
    const { summary } = await run("email,backup_email,ip,last_ip\na@gmail.com,b@gmail.com,8.8.8.8,1.1.1.1\n");
    expect(summary.columns).toEqual([
      'email column: "email"; also seen, not checked: "backup_email" (--email-column NAME picks another)',
      'IP column: "ip"; also seen, not checked: "last_ip" (--ip-column NAME picks another)',
    ]);
  });

  test("CSV: a column named by the user, and a kind with no column", async () => {
    const { summary } = await run("email,backup_email\na@gmail.com,b@gmail.com\n", {
      columns: { email: "backup_email" },
    });
    expect(summary.columns).toEqual([
      'email column: "backup_email"; also seen, not checked: "email" (--email-column NAME picks another)',
      "IP column: none",
    ]);
  });

  test("JSON Lines: the keys used over all lines, and the others seen", async () => {
    const { summary } = await run(
      '{"email":"a@gmail.com","alt_email":"x@y.z"}\n{"contact_email":"b@gmail.com","signup_ip":"8.8.8.8"}\n',
    );
    expect(summary.columns).toEqual([
      'email column: "email", "contact_email"; also seen, not checked: "alt_email" (--email-column NAME picks another)',
      'IP column: "signup_ip"',
    ]);
  });

  test("plain lines", async () => {
    expect((await run("a@gmail.com\n")).summary.columns).toEqual([
      "one value per line: an email address when it has an @, else an IP address",
    ]);
  });
});

describe("CSV output", () => {
  test("a cell a spreadsheet would run as a formula is written as text, as reports export writes it", async () => {
    const { lines } = await run(
      'email,name\n=2+5@gmail.com,"=HYPERLINK(""http://x"")"\n+1@gmail.com,-2\n@SUM(A1)@gmail.com,ok\n',
    );
    expect(lines[1]).toStartWith(`2,'=2+5@gmail.com,"'=HYPERLINK(""http://x"")",gmail.com,false,true,`);
    expect(lines[2]).toStartWith("3,'+1@gmail.com,'-2,gmail.com,");
    expect(lines[3]).toStartWith("4,'@SUM(A1)@gmail.com,ok,");
  });
});

describe("a padded cell: scan trims it, the GET endpoint refuses it (docs/scan.md says so)", () => {
  const app = createTestApp({ ratePerMinute: 0 });

  test("the scan's answer is GET's for the trimmed value; GET of the padded value is a 400", async () => {
    const t = await app;
    const { secret } = await t.newKey();
    const { out } = await run("email,ip\n  a@gmail.com\t, 81.2.69.142 \n", { format: "jsonl" });
    const [row] = json(out);
    for (const [path, padded, answer] of [
      ["/v1/ip-reputation-check?ip=", " 81.2.69.142 ", row.ip],
      ["/v1/check?email=", "  a@gmail.com\t", row.email],
    ]) {
      const trimmed = await t.request(`${path}${encodeURIComponent(padded.trim())}`, { key: secret });
      expect(trimmed.status).toBe(200);
      expect(JSON.stringify(answer)).toBe(await trimmed.text());
      expect((await t.request(`${path}${encodeURIComponent(padded)}`, { key: secret })).status).toBe(400);
    }
  });
});

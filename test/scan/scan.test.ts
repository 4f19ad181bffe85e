import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { CsvRecords } from "../../src/scan/csv-records.ts";
import { type ScanOptions, ScanInputError, scan } from "../../src/scan/scan.ts";
import { mixedEmails, putOverrides } from "../support/mixed-emails.ts";
import { createTestApp, testSnapshot } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(60_000));

const snapshot = await testSnapshot();
const DEFAULTS: ScanOptions = { explain: false, onlyRisky: false, columns: {} };

/** The input in pieces of `piece` bytes, as a file or a pipe would deliver it. */
async function* pieces(text: string, piece = 7): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += piece) yield bytes.subarray(i, i + piece);
}

async function run(text: string, options: Partial<ScanOptions> = {}, piece?: number, over = snapshot) {
  let out = "";
  const summary = await scan(pieces(text, piece), { write: (t) => void (out += t) }, over, { ...DEFAULTS, ...options });
  return { out, summary, lines: out.split("\n").filter(Boolean) };
}

const jsonLines = (out: string) =>
  out
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

const CSV =
  '\uFEFFid,"Full name",E-mail,signup_ip\r\n1,"Doe, Jane",jane@gmail.com,8.8.8.8\r\n2,"Bob ""B""",bob@mailinator.com,not-an-ip\r\n3,broken,"x"y,1.1.1.1\r\n4,"two\nlines",,10.0.0.1\r\n5,Zed,zed@,\r\n';

describe("CSV input", () => {
  test("a BOM, quoted fields with commas and quotes, columns found by their names, a bad row in the middle", async () => {
    for (const piece of [1, 7, 4096]) {
      const { lines, summary } = await run(CSV, {}, piece);
      expect(lines[0]).toBe(
        "line,id,Full name,E-mail,signup_ip,domain,is_disposable,free_email,country_code,asn,organization,connection_type,risky,reputation,kind,error,message",
      );
      expect(lines[1]).toBe(
        '2,1,"Doe, Jane",jane@gmail.com,8.8.8.8,gmail.com,false,true,US,AS15169 Google LLC,Google LLC,Corporate,false,informative,hosting,,',
      );
      expect(lines[2]).toBe(
        '3,2,"Bob ""B""",bob@mailinator.com,not-an-ip,mailinator.com,true,false,,,,,,,,invalid_ip,invalid IP address format',
      );
      expect(lines[3]).toBe(`4${",".repeat(15)}unreadable_row,"unexpected ""y"" after a closing quote"`);
      expect(lines[4]).toBe('5,4,"two');
      expect(lines[5]).toBe('lines",,10.0.0.1,,,,,,,,false,ok,,,');
      expect(lines[6]).toBe("7,5,Zed,zed@,,,,,,,,,,,,invalid_email,The provided email address is not valid");
      expect(summary.toJSON()).toEqual({
        rows: 5,
        unreadable_rows: 1,
        emails: { checked: 3, invalid: 1, disposable: 1, free: 1 },
        ips: { checked: 3, invalid: 1, risky: 0, levels: { ok: 1, informative: 1, suspicious: 0, warning: 0, bad: 0 } },
        written: 5,
      });
    }
  });

  test("columns named by the user win over names that look right", async () => {
    const text = "email,contact,last_ip,ip\nnot-this@gmail.com,bob@mailinator.com,8.8.8.8,1.1.1.1\n";
    const [row] = jsonLines((await run(text, { format: "jsonl", columns: { email: "CONTACT", ip: "last_ip" } })).out);
    expect(row.email.email).toBe("bob@mailinator.com");
    expect(row.ip.ip).toBe("8.8.8.8");
    expect(row.input).toEqual({
      email: "not-this@gmail.com",
      contact: "bob@mailinator.com",
      last_ip: "8.8.8.8",
      ip: "1.1.1.1",
    });
  });

  test("a CSV without a column to check, or a named column it lacks, is refused before any row", async () => {
    await expect(run("name,city\na,b\n")).rejects.toThrow(ScanInputError);
    await expect(run("name,city\na,b\n")).rejects.toThrow('no email or IP column among "name", "city"');
    await expect(run("email,ip\na@b.c,1.1.1.1\n", { columns: { ip: "addr" } })).rejects.toThrow(
      "--ip-column addr: no such column",
    );
  });

  test("a row with another number of fields than the header is unreadable", async () => {
    const { lines, summary } = await run("email,ip\na@gmail.com\nb@gmail.com,8.8.8.8\n");
    expect(lines[1]).toEndWith("unreadable_row,1 fields where the header has 2");
    expect(lines[2]).toStartWith("3,b@gmail.com,8.8.8.8,gmail.com,");
    expect(summary.badRows).toBe(1);
  });

  test("a one-column CSV is recognised by its header", async () => {
    const { lines } = await run("email\njane@gmail.com\n");
    expect(lines[0]).toStartWith("line,email,domain,");
    expect(lines[1]).toStartWith("2,jane@gmail.com,gmail.com,false,true,");
  });
});

describe("JSON Lines input", () => {
  test("objects with their keys found by name, strings, and a broken line in the middle", async () => {
    const text =
      '{"user":1,"email":"jane@gmail.com","ip_address":"8.8.8.8"}\n"bob@mailinator.com"\n{"user":3,\n"1.1.1.1"\n[1]\n{"user":4}\n';
    const { out, summary } = await run(text);
    const rows = jsonLines(out);
    expect(rows[0]).toEqual({
      line: 1,
      input: { user: 1, email: "jane@gmail.com", ip_address: "8.8.8.8" },
      email: { email: "jane@gmail.com", is_disposable: false, domain: "gmail.com", free_email: true },
      ip: expect.objectContaining({ ip: "8.8.8.8", country_code: "US" }),
    });
    expect(rows[1]).toEqual({
      line: 2,
      input: "bob@mailinator.com",
      email: { email: "bob@mailinator.com", is_disposable: true, domain: "mailinator.com", free_email: false },
    });
    expect(rows[2]).toMatchObject({ line: 3, error: "unreadable_row", message: expect.stringContaining("not JSON") });
    expect(rows[3]).toMatchObject({ line: 4, input: "1.1.1.1", ip: { ip: "1.1.1.1", country_code: "AU" } });
    expect(rows[4]).toEqual({ line: 5, error: "unreadable_row", message: "a JSON line must be an object or a string" });
    expect(rows[5]).toEqual({ line: 6, input: { user: 4 } });
    expect(summary.toJSON()).toMatchObject({
      rows: 6,
      unreadable_rows: 2,
      emails: { checked: 2 },
      ips: { checked: 2 },
    });
  });
});

describe("plain lines", () => {
  test("each line's kind by itself; blank lines skipped; CSV output when asked", async () => {
    const { lines, summary } = await run("jane@gmail.com\r\n\n  8.8.8.8  \nnonsense\n2001:4860:4860::8888\n");
    expect(lines[0]).toStartWith("line,input,domain,");
    expect(lines[1]).toStartWith("1,jane@gmail.com,gmail.com,false,true,");
    expect(lines[2]).toStartWith("3,8.8.8.8,,,,US,");
    expect(lines[3]).toEndWith("invalid_ip,invalid IP address format");
    expect(lines[4]).toStartWith("5,2001:4860:4860::8888,,,,US,AS15169 Google LLC,");
    expect(summary.rows).toBe(4);
    expect(summary.invalidIps).toBe(1);
  });

  test("--only-risky writes only disposable or risky rows, and the summary still counts all", async () => {
    const { lines, summary } = await run("jane@gmail.com\nbob@mailinator.com\n8.8.8.8\nx@tempmail.dev\n", {
      onlyRisky: true,
      format: "jsonl",
    });
    expect(lines.map((l) => JSON.parse(l).input)).toEqual(["bob@mailinator.com", "x@tempmail.dev"]);
    expect(summary.rows).toBe(4);
    expect(summary.written).toBe(2);
  });

  test("an empty input writes nothing", async () => {
    expect((await run("")).out).toBe("");
    expect((await run("\n\n")).summary.rows).toBe(0);
  });
});

describe("the scan's answers are the API's", () => {
  const app = createTestApp({ ratePerMinute: 0 });

  test("over a few thousand mixed rows, each JSON Lines answer equals the GET endpoint's, with and without explain", async () => {
    const t = await app;
    const { secret } = await t.newKey();
    const values = mixedValues(3000);
    for (const explain of [false, true]) {
      const { out } = await run(values.join("\n"), { format: "jsonl", explain }, 64 * 1024);
      const rows = out.split("\n").filter(Boolean);
      expect(rows.length).toBe(values.length);
      const answers = await Promise.all(
        values.map(async (value, i) => {
          const path = `${value.includes("@") ? `/v1/check?email=` : `/v1/ip-reputation-check?ip=`}${encodeURIComponent(value)}${explain ? "&explain=1" : ""}`;
          const res = await t.request(path, { key: secret });
          const row = JSON.parse(rows[i]);
          const answer = value.includes("@") ? row.email : row.ip;
          return { status: res.status, body: await res.text(), answer };
        }),
      );
      let compared = 0;
      for (const { status, body, answer } of answers) {
        if (status === 200) {
          expect(JSON.stringify(answer)).toBe(body);
          compared++;
        } else {
          expect(status).toBe(400);
          const error = JSON.parse(body);
          expect(answer).toEqual({ input: expect.any(String), error: error.error, message: error.message });
        }
      }
      expect(compared).toBeGreaterThan(values.length * 0.8);
    }
  });

  test("with override lines, each email answer with explain equals the GET endpoint's over a few hundred mixed emails", async () => {
    const t = await createTestApp({ ratePerMinute: 0 });
    const { secret } = await t.newKey();
    await putOverrides(t);
    const served = t.deps.snapshots.current();
    const emails = mixedEmails(400);
    // JSON Lines objects: every value is read as an email address, also those without an @.
    const { out } = await run(
      emails.map((email) => JSON.stringify({ email })).join("\n"),
      { explain: true },
      4096,
      served,
    );
    const rows = jsonLines(out);
    expect(rows).toHaveLength(emails.length);
    let overridden = 0;
    for (const [i, email] of emails.entries()) {
      const res = await t.request(`/v1/check?email=${encodeURIComponent(email)}&explain=1`, { key: secret });
      if (res.status === 200) expect(JSON.stringify(rows[i].email)).toBe(await res.text());
      else expect(rows[i].email).toMatchObject({ input: email, error: "invalid_email" });
      if (rows[i].email.reasons?.override) overridden++;
    }
    expect(overridden).toBeGreaterThan(0);
  });
});

describe("--explain in CSV", () => {
  const app = createTestApp({ ratePerMinute: 0 });

  test("the ip_reasons column holds the reasons ?explain=1 gives, as JSON; empty for a private address", async () => {
    const t = await app;
    const { secret } = await t.newKey("scan-ip-explain");
    const { lines } = await run("ip\n8.8.8.8\n10.0.0.1\n", { explain: true });
    expect(lines[0]).toEndWith(",error,message,email_reasons,ip_reasons");
    const get = (await (await t.request("/v1/ip-reputation-check?ip=8.8.8.8&explain=1", { key: secret })).json()) as {
      reputation: { reasons: unknown };
    };
    const [record] = new CsvRecords().push(`${lines[1]}\n`);
    expect("fields" in record && JSON.parse(record.fields.at(-1)!)).toEqual(get.reputation.reasons);
    expect(lines[2]).toEndWith(",false,ok,,,,,");
  });

  test("the email_reasons column holds the reasons ?explain=1 gives to the email, as JSON; empty for an invalid one", async () => {
    const t = await app;
    const { secret } = await t.newKey("scan-email-explain");
    const { lines } = await run("email,ip\njane@gmial.com,8.8.8.8\nbad@,\n", { explain: true });
    const get = (await (await t.request("/v1/check?email=jane%40gmial.com&explain=1", { key: secret })).json()) as {
      reasons: { did_you_mean: string };
    };
    expect(get.reasons.did_you_mean).toBe("gmail.com");
    const [record, invalid] = new CsvRecords().push(`${lines[1]}\n${lines[2]}\n`);
    expect("fields" in record && JSON.parse(record.fields.at(-2)!)).toEqual(get.reasons);
    expect("fields" in record && JSON.parse(record.fields.at(-1)!)).toHaveProperty("rule");
    expect("fields" in invalid && invalid.fields.slice(-4)).toEqual([
      "invalid_email",
      "The provided email address is not valid",
      "",
      "",
    ]);
  });
});

/** Emails over listed and unlisted domains, IPv4 and IPv6 addresses across the space, and a few invalid values: reproducible. */
function mixedValues(n: number): string[] {
  let seed = 2026;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const domains = [
    "gmail.com",
    "mailinator.com",
    "sub.33mail.com",
    "tempmail.dev",
    "duck.com",
    "example.org",
    "yahoo.com",
    "tuta.io",
    "edu.pl",
    "EXAMPLE.COM",
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = random();
    if (i % 50 === 0)
      out.push(["bad@", "no-at-sign-but-not-ip", "999.1.1.1", "@example.com", "01.2.3.4"][(i / 50) % 5]);
    else if (r < 0.5) out.push(`user${i}@${domains[Math.floor(random() * domains.length)]}`);
    else if (r < 0.9) out.push([0, 0, 0, 0].map(() => Math.floor(random() * 256)).join("."));
    else
      out.push(
        Array.from({ length: 8 }, () => Math.floor(random() * 65536).toString(16))
          .join(":")
          .replace(/^[0-9a-f]+/, `2a0${Math.floor(random() * 10)}`),
      );
  }
  return out;
}

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The manual points at itself and at the code: every relative link must reach a file (and
 * its #anchor a heading), and every src/, test/, bench/ or scripts/ path it writes in code
 * must exist, so that moving a file or renaming a heading without the manual fails here.
 */

const ROOT = resolve(import.meta.dir, "../..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Page {
  /** The text outside fenced code blocks. */
  readonly prose: string;
  /** Inline code spans and fenced blocks. */
  readonly code: string[];
}

function read(page: string): Page {
  const text = readFileSync(join(ROOT, page), "utf8");
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string[] | null = null;
  for (const line of text.split("\n")) {
    if (/^\s*```/.test(line)) {
      if (fence) code.push(fence.join("\n"));
      fence = fence ? null : [];
    } else if (fence) fence.push(line);
    else prose.push(line);
  }
  const outside = prose.join("\n");
  for (const m of outside.matchAll(/(`+)([^`][\s\S]*?)\1/g)) code.push(m[2]!);
  return { prose: outside.replace(/(`+)[^`][\s\S]*?\1/g, (span) => span.replace(/[[\]()]/g, " ")), code };
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2 … */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]+>/g, "");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

function links(prose: string): string[] {
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe.each(PAGES)("%s", (page) => {
  const { prose, code } = read(page);

  test("every relative link reaches a file, and its #anchor a heading there", () => {
    const broken: string[] = [];
    for (const link of links(prose)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
      const [path, anchor] = link.split("#") as [string, string | undefined];
      const target = path === "" ? page : relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(path)));
      if (!existsSync(join(ROOT, target))) {
        broken.push(`${link}: no file ${target}`);
        continue;
      }
      if (anchor !== undefined && !anchors(readFileSync(join(ROOT, target), "utf8")).has(decodeURIComponent(anchor))) {
        broken.push(`${link}: no heading #${anchor} in ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("every src/, test/, bench/ or scripts/ path it names in code exists", () => {
    const paths = new Set(
      code.flatMap((text) =>
        [...text.matchAll(/(?<![\w./-])((?:src|test|bench|scripts)\/[\w./-]*[\w/])/g)].map((m) => m[1]!),
      ),
    );
    const missing = [...paths].filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});

test("the link check's anchors follow GitHub's rules", () => {
  const page = [
    "# Bulk checks: `riskcheck scan` and `POST /v1/check/batch`",
    "## `?explain=1`: why",
    "## Limits and quota",
    "## Limits and quota",
    "```",
    "# not a heading",
    "```",
    "### Café, Straße & the [link](x.md)",
  ].join("\n");
  expect([...anchors(page)]).toEqual([
    "bulk-checks-riskcheck-scan-and-post-v1checkbatch",
    "explain1-why",
    "limits-and-quota",
    "limits-and-quota-1",
    "café-straße--the-link",
  ]);
});

test("the README links every page of the manual", () => {
  const linked = new Set(links(read("README.md").prose).map((l) => l.split("#")[0]));
  const unlinked = PAGES.filter((p) => p !== "README.md" && !linked.has(p));
  expect(unlinked).toEqual([]);
});

import { expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The layout's rules (docs/architecture.md), read from the source: every import counts,
 * `import type` and `typeof import(…)` included, since a type-only circle still ties the
 * files together.
 */
const ROOT = resolve(import.meta.dir, "../..");
const SRC = join(ROOT, "src");

/**
 * Every folder of src/ and the other folders it may import, lowest first: a folder that is
 * not here fails the test that lists src/, so a new one gets its place before it gets code.
 * The domain folders (time, runtime, text, email, limits, ip, keys, datasets) import no web layer,
 * store implementation, composition root or command line.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  time: [],
  runtime: [],
  requests: [],
  text: [],
  // TypeBox schema forms for the answers' declarations.
  schema: [],
  // What a failing database is (locked, unreachable, full), whichever kind it is, and what this instance saw of it.
  faults: [],
  email: ["schema", "time"],
  limits: [],
  // An IP override line's reason and expiry are checked as an email line's are (one parser, email/overrides.ts).
  ip: ["email", "runtime", "schema"],
  keys: ["ip", "time"],
  datasets: ["email", "ip", "runtime", "time"],
  metrics: ["datasets"],
  reports: ["ip", "text"],
  // The resolver behind the email room's DNS port (node:dns), as stores are behind the other ports.
  dns: ["email"],
  checks: ["datasets", "email", "ip"],
  assess: ["checks", "datasets", "email", "ip", "schema", "time"],
  // The audit log's events, and the stores' ports it records acts on.
  audit: ["assess", "email", "faults", "ip", "keys"],
  scan: ["assess", "checks", "datasets", "email", "ip", "text"],
  dashboard: ["assess", "audit", "email", "ip", "keys", "reports", "requests", "text", "time"],
  http: [
    "assess",
    "audit",
    "checks",
    "dashboard",
    "datasets",
    "email",
    "faults",
    "ip",
    "keys",
    "limits",
    "metrics",
    "reports",
    "requests",
    "schema",
  ],
  stores: ["assess", "audit", "dashboard", "email", "faults", "ip", "keys", "limits", "reports", "runtime"],
  app: [
    "assess",
    "audit",
    "dashboard",
    "datasets",
    "dns",
    "email",
    "faults",
    "http",
    "ip",
    "keys",
    "limits",
    "metrics",
    "reports",
    "runtime",
    "stores",
    "time",
  ],
  cli: [
    "app",
    "assess",
    "audit",
    "checks",
    "dashboard",
    "datasets",
    "dns",
    "email",
    "faults",
    "http",
    "ip",
    "keys",
    "limits",
    "metrics",
    "reports",
    "runtime",
    "scan",
    "stores",
    "text",
    "time",
  ],
};

const SPECIFIERS = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /^\s*import\s*["']([^"']+)["']/gm,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Each src file (relative to src/) with what it imports: other src files (relative to src/) and packages. */
function importGraph(): Map<string, { files: string[]; packages: string[] }> {
  const graph = new Map<string, { files: string[]; packages: string[] }>();
  for (const path of sourceFiles(SRC)) {
    const text = readFileSync(path, "utf8");
    const specifiers = new Set(SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1])));
    const files: string[] = [];
    const packages: string[] = [];
    for (const specifier of specifiers) {
      if (!specifier.startsWith(".")) packages.push(specifier);
      else {
        const target = resolve(dirname(path), specifier);
        if (target.startsWith(`${SRC}/`) && target.endsWith(".ts")) files.push(relative(SRC, target));
      }
    }
    graph.set(relative(SRC, path), { files, packages });
  }
  return graph;
}

const topFolder = (file: string) => file.split("/")[0];

/** Every import cycle, each as the files around it, first file repeated at the end (Tarjan's strongly connected components, then one circle through each). */
function cycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) components.push(component);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return components.map((component) => circleThrough(component.sort()[0], new Set(component), edges));
}

/** The shortest way from `start` back to itself inside one component. */
function circleThrough(start: string, component: Set<string>, edges: Map<string, string[]>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const between: string[] = [];
        for (let u = v; u !== start; u = cameFrom.get(u)!) between.unshift(u);
        return [start, ...between, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** A file's imports that load what they name: not `import type`, not `import(…)` (an `import { type A }` loads its file). */
const LOADING =
  /^\s*(?:import|export)\s+(?!type\s)[\w\s{},*$]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;

/** What importing `entries` loads: their LOADING imports, followed through src/. */
function loadedWith(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const path = join(SRC, file);
    for (const m of readFileSync(path, "utf8").matchAll(LOADING)) {
      const specifier = (m[1] ?? m[2])!;
      if (!specifier.startsWith(".")) packages.add(specifier);
      else if (specifier.endsWith(".ts")) visit(relative(SRC, resolve(dirname(path), specifier)));
    }
  };
  for (const entry of entries) visit(entry);
  return { files, packages };
}

const graph = importGraph();

test("the reader finds the imports it checks, type-only ones included", () => {
  expect(graph.size).toBeGreaterThan(100);
  expect(graph.get("stores/stores.ts")?.files).toContain("keys/key-store.ts"); // `import type { KeyStore }`
  expect(graph.get("http/app.ts")?.packages).toContain("elysia");
  expect(
    cycles(
      new Map([
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", ["a"]],
        ["d", ["a"]],
      ]),
    ),
  ).toEqual([["a", "b", "c", "a"]]);
});

test("src/ holds only folders", () => {
  expect(readdirSync(SRC).filter((name) => !statSync(join(SRC, name)).isDirectory())).toEqual([]);
});

test("every folder of src/ has its place in the rules", () => {
  const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
  expect(folders.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
});

test("each folder imports only the folders below it, and only the web layer imports Elysia", () => {
  const wrong: string[] = [];
  for (const [file, { files, packages }] of graph) {
    const from = topFolder(file);
    for (const target of files) {
      const to = topFolder(target);
      if (to !== from && !MAY_IMPORT[from]?.includes(to)) wrong.push(`${file} → ${target}`);
    }
    if (from !== "http")
      for (const name of packages)
        if (name === "elysia" || name.startsWith("elysia/") || name.startsWith("@elysiajs/"))
          wrong.push(`${file} → ${name}`);
  }
  expect(wrong).toEqual([]);
});

test("only the command line imports the composition root, nothing imports the command line, and only the composition root and the command line pick a store implementation", () => {
  for (const [from, allowed] of Object.entries(MAY_IMPORT)) {
    if (allowed.includes("app")) expect(from).toBe("cli");
    expect(allowed).not.toContain("cli");
    if (allowed.includes("stores")) expect(["app", "cli"]).toContain(from);
  }
});

test("ip/ does not import datasets/, scan/ nothing of http/, and no route imports another route", () => {
  expect(MAY_IMPORT.ip).not.toContain("datasets");
  expect(MAY_IMPORT.scan).not.toContain("http");
  const wrong = [...graph].flatMap(([file, { files }]) =>
    file.startsWith("http/routes/")
      ? files.filter((t) => t.startsWith("http/routes/")).map((t) => `${file} → ${t}`)
      : [],
  );
  expect(wrong).toEqual([]);
});

test("no import cycles, type-only ones included", () => {
  const edges = new Map([...graph].map(([file, { files }]) => [file, files]));
  expect(cycles(edges).map((circle) => circle.join(" → "))).toEqual([]);
});

test("a builtin module other than the few a start can afford is loaded where it is used, not imported at the top", () => {
  const afforded = ["node:fs", "node:fs/promises", "node:path", "node:util", "node:buffer", "node:url", "node:os"];
  const wrong = sourceFiles(SRC).flatMap((path) =>
    [...readFileSync(path, "utf8").matchAll(LOADING)]
      .map((m) => (m[1] ?? m[2])!)
      .filter((name) => name.startsWith("node:") && !afforded.includes(name))
      .map((name) => `${relative(SRC, path)} → ${name}`),
  );
  expect(wrong).toEqual([]);
});

test("tldts is loaded at its first use (email/public-suffix.ts), not imported at the top: it builds its trie as it loads", () => {
  const wrong = sourceFiles(SRC).flatMap((path) =>
    [...readFileSync(path, "utf8").matchAll(LOADING)]
      .map((m) => (m[1] ?? m[2])!)
      .filter((name) => name === "tldts" || name.startsWith("tldts/"))
      .map((name) => `${relative(SRC, path)} → ${name}`),
  );
  expect(wrong).toEqual([]);
  expect(graph.get("email/public-suffix.ts")?.packages).toContain("tldts"); // its `import type`, which loads nothing
});

test("the CLI starts with the command tables alone: each command imports its code (stores, Elysia, the dataset code) when it runs", () => {
  const { files, packages } = loadedWith(["cli/main.ts", "cli/dispatch.ts"]);
  expect(files).toContain("cli/email-commands.ts"); // the reader follows the imports
  const heavy = [...files].filter(
    (f) =>
      ["checks", "http", "scan"].includes(topFolder(f)) ||
      // The settings table checks a database URL's text; the stores themselves open with their command.
      (topFolder(f) === "stores" && f !== "stores/postgres/connection-url.ts") ||
      f.startsWith("datasets/update/") ||
      f === "datasets/load-snapshot.ts" ||
      (f.startsWith("cli/") &&
        !/^cli\/(main|dispatch|start-serve-load|help|command-spec|commands|[a-z]+-commands?)\.ts$/.test(f)),
  );
  expect(heavy).toEqual([]);
  expect([...packages].filter((name) => name.includes("elysia"))).toEqual([]);
});

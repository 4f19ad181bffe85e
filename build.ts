/**
 * `bun run build`: one self-contained executable for this machine, dist/riskcheck.
 * `bun run release`: the binaries a team downloads, dist/release/riskcheck-linux-{x64,arm64},
 * and their SHA256SUMS.
 *
 * Each carries its baseline (embedded, zstd-compressed): the dataset version the postinstall's
 * code composes from the installed packages (the `npm:` sources of data/sources.json), and the
 * seed files of a new data directory. A first start in an empty data directory writes them.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVE_RUNTIME_FLAGS } from "./src/app/runtime-flags.ts";
import { checkoutBaseline, readSeedFiles } from "./src/datasets/baseline/baseline.ts";
import { installBaseline } from "./src/datasets/baseline/install-baseline.ts";
import { embeddedName } from "./src/datasets/baseline/seed-files.ts";
import { DEFAULT_THRESHOLDS } from "./src/ip/verdict/reputation.ts";
import NPM_DATA_DATES from "./src/datasets/update/npm-data-dates.json" with { type: "json" };
import { nodeModulesPackages, packageName } from "./src/datasets/update/package-files.ts";
import { parseSources } from "./src/datasets/update/sources.ts";
import type { BuildInfo } from "./src/runtime/build-info.ts";
import { codeDigest, DIGESTED_MODULES } from "./src/runtime/code-digest.ts";

/** zstd level of the embedded baseline: 9 makes 179 MB 69.7 MB (~17 s of CPU); the zstd tool's 19 saves ~15 % for 25 times as long. */
const ZSTD_LEVEL = 9;
const RELEASE_TARGETS = ["bun-linux-x64", "bun-linux-arm64"] as const;

const release = process.argv.includes("--release");
const sourcesFile = "data/sources.json";
const paths = parseSources(readFileSync(sourcesFile, "utf8"), sourcesFile)
  .filter((s) => s.url.startsWith("npm:"))
  .map((s) => s.url.slice("npm:".length));
const installed = nodeModulesPackages("node_modules");
const versions: Record<string, string> = {};
for (const path of paths) {
  const name = packageName(path);
  const version = installed.version(name);
  if (version === null) fail(`${name} is not installed: run npm install first`);
  versions[name] = version;
}
const dates = Object.entries(versions).map(
  ([name, version]) => (NPM_DATA_DATES as Record<string, string>)[`${name}@${version}`],
);
if (dates.includes(undefined as never))
  fail("a bundled package has no date in src/datasets/update/npm-data-dates.json");
const baseline = await baselineFiles();
const seed = Object.fromEntries(
  [...readSeedFiles("data")].map(([path, bytes]) => [path, new TextDecoder().decode(bytes)]),
);
const info: BuildInfo = {
  commit: commit(),
  codeDigests: Object.fromEntries(DIGESTED_MODULES.map((module) => [module, codeDigest(`./src/${module}`)])),
  dataDate: dates.sort().at(-1)!.slice(0, 10),
  packages: versions,
  version: baseline.version,
  links: baseline.links,
  seed,
};
const outfiles = release
  ? RELEASE_TARGETS.map((target) => [target, `./dist/release/riskcheck-${target.slice("bun-".length)}`] as const)
  : [[undefined, "./dist/riskcheck"] as const];
for (const [target, outfile] of outfiles) {
  const result = await Bun.build({
    // The Workers a dataset load and the SQLite checkpoints run in are programs of their own inside the
    // executable; the version's files are embedded.
    entrypoints: [
      "./src/cli/main.ts",
      "./src/datasets/load-worker.ts",
      "./src/stores/sqlite/checkpoint-worker.ts",
      ...baseline.files,
    ],
    compile: { outfile, execArgv: SERVE_RUNTIME_FLAGS, ...(target ? { target } : {}) },
    root: "./src",
    naming: { asset: "[name].[ext]" },
    define: { RISKCHECK_BUILD: JSON.stringify(info) },
    minify: true,
    // The code ships as bytecode, so a start does not parse it (a quarter off, docs/benchmarks.md);
    // with bytecode the format would default to CommonJS, which has no top-level await.
    bytecode: true,
    format: "esm",
    sourcemap: "linked",
  });
  if (!result.success) {
    for (const message of result.logs) console.error(message);
    process.exit(1);
  }
  console.log(
    `built ${outfile} (${mb(Bun.file(outfile).size)}; commit ${info.commit}, embedded data of ${info.dataDate})`,
  );
}
if (release) {
  const sums = outfiles.map(
    ([, outfile]) =>
      `${createHash("sha256").update(readFileSync(outfile)).digest("hex")}  ${outfile.split("/").at(-1)}\n`,
  );
  writeFileSync("dist/release/SHA256SUMS", sums.join(""));
  console.log(`wrote dist/release/SHA256SUMS\n${sums.join("")}`);
}

/**
 * The dataset version the postinstall's code makes from the installed packages (the seed files
 * travel in BUILD_INFO), each file compressed apart, so that a first start writes one file at a
 * time; made once per set of inputs (dist/baseline/<hash>/).
 */
async function baselineFiles(): Promise<{ files: string[]; version: string; links: Record<string, string> }> {
  const hash = createHash("sha256").update(`zstd ${ZSTD_LEVEL} per file\n${JSON.stringify(versions)}\n`);
  // The version's content follows from the packages, data/'s files and the code that composes and checks it.
  for (const pattern of [
    "data/sources.json",
    "data/curated/*",
    "data/email/*.txt",
    "data/ip/*.txt",
    "src/datasets/**",
    "src/ip/**",
    "src/email/**",
  ]) {
    for (const path of [...new Bun.Glob(pattern).scanSync(".")].sort())
      hash.update(`${path}\n`).update(readFileSync(path));
  }
  const dir = join("dist", "baseline", hash.digest("hex").slice(0, 16));
  const made = join(dir, "version.json");
  if (existsSync(made)) return JSON.parse(readFileSync(made, "utf8"));

  const started = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), "riskcheck-build-"));
  try {
    const report = await installBaseline(dataDir, checkoutBaseline("."), {
      thresholds: DEFAULT_THRESHOLDS,
      keepVersions: 1,
      env: {},
    });
    if (!report.version)
      fail(
        `the bundled data made no version: ${report.outcomes.map((o) => `${o.name} ${o.outcome} ${o.detail}`).join("; ")}`,
      );
    const root = join(dataDir, "datasets", report.version);
    const files: string[] = [];
    const links: Record<string, string> = {};
    const stored = new Map<string, string>();
    let [plain, compressed] = [0, 0];
    mkdirSync(dir, { recursive: true });
    for (const path of [...new Bun.Glob("**/*").scanSync({ cwd: root, dot: true })].sort()) {
      const { dev, ino } = statSync(join(root, path));
      const same = stored.get(`${dev}:${ino}`);
      if (same) {
        links[path] = same;
        continue;
      }
      stored.set(`${dev}:${ino}`, path);
      const bytes = readFileSync(join(root, path));
      const packed = Bun.zstdCompressSync(bytes, { level: ZSTD_LEVEL });
      const file = join(dir, embeddedName(path));
      writeFileSync(file, packed);
      files.push(file);
      plain += bytes.byteLength;
      compressed += packed.byteLength;
    }
    const baseline = { files, version: report.version, links };
    writeFileSync(`${made}.tmp`, JSON.stringify(baseline));
    renameSync(`${made}.tmp`, made);
    console.log(
      `baseline: version ${report.version}, ${files.length} files, ${mb(plain)} → ${mb(compressed)} (zstd ${ZSTD_LEVEL}, ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    return baseline;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function commit(): string {
  const head = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { stderr: "ignore" });
  if (head.exitCode !== 0) return "unknown";
  const dirty =
    Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { stderr: "ignore" })
      .stdout.toString()
      .trim() !== "";
  return `${head.stdout.toString().trim()}${dirty ? "-modified" : ""}`;
}

/** Megabytes of 10^6 bytes, as the size budget (200 MB) counts them. */
function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function fail(message: string): never {
  console.error(`build: ${message}`);
  process.exit(1);
}

import { SERVE_RUNTIME_FLAGS } from "./src/app/runtime-flags.ts";

/** Compiles the CLI and server into one self-contained executable; datasets stay in the data directory. */
const result = await Bun.build({
  // The Worker a dataset load runs in is a program of its own inside the executable.
  entrypoints: ["./src/cli/main.ts", "./src/datasets/load-worker.ts"],
  compile: { outfile: "./dist/riskcheck", execArgv: SERVE_RUNTIME_FLAGS },
  minify: true,
  sourcemap: "linked",
});
if (!result.success) {
  for (const message of result.logs) console.error(message);
  process.exit(1);
}
console.log(`built ${result.outputs.map((o) => o.path).join(", ")}`);

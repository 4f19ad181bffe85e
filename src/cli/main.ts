#!/usr/bin/env bun
/**
 * The program's entry. For `serve`, the first dataset load (`startServeLoad`) begins before
 * the rest of the program (Elysia, the stores, the routes) is imported; when it needs the
 * email lists' Worker (a version's lists not yet kept as served), a cold start waits for the
 * longer of the two rather than for both. Only light modules are imported up here.
 */
import { startServeLoad } from "./start-serve-load.ts";

const argv = Bun.argv.slice(2);
const startedLoad = startServeLoad(argv, process.env);
const { main } = await import("./dispatch.ts");
const code = await main(argv, { startedLoad });
if (code >= 0) process.exit(code);

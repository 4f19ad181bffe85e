/**
 * `bun peak-rss.ts OUT COMMAND…` runs COMMAND, passing its output through, and writes its
 * peak RSS in bytes to OUT. A process of its own, because a Subprocess's resourceUsage()
 * reports the most that any child of the calling process used, not that child's own peak.
 */
const [out, ...command] = process.argv.slice(2);
const child = Bun.spawn(command, { stdin: "ignore", stdout: "inherit", stderr: "inherit" });
process.on("SIGTERM", () => child.kill("SIGKILL"));
const code = await child.exited;
await Bun.write(out, String(child.resourceUsage()!.maxRSS));
process.exit(code);
export {};

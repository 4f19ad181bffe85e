/** Whether this is the compiled binary (`bun run build`), whose own files live under /$bunfs/, rather than Bun running the sources. */
export const RUNNING_COMPILED = Bun.main.startsWith("/$bunfs/");

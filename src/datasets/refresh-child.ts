import type { RefreshResult } from "./refresh-scheduler.ts";
import type { UpdateReport } from "./update/update.ts";

/** Set for the update the server runs on its schedule: what it records is the server's doing, not a CLI user's. */
export const RUN_BY_SERVER_VARIABLE = "RISKCHECK_UPDATE_RUN_BY_SERVER";

/** How an audit event's JSON line starts (audit/audit-lines.ts), as a CLI command writes it to standard error. */
const AUDIT_LINE_START = '{"log":"riskcheck.audit"';

/**
 * Runs `riskcheck update --json` as a child process, so an update's parsing and
 * compiling (hundreds of MB at peak) never share the server's heap or stall its
 * requests. `command` runs riskcheck itself (the binary, or bun and the script).
 * The audit events' JSON lines it writes to standard error (RISKCHECK_AUDIT_LOG=stdout)
 * go to `auditLines`: the server's standard output.
 */
export class UpdateChild {
  private process: ReturnType<typeof Bun.spawn> | null = null;

  constructor(
    private readonly command: readonly string[],
    private readonly args: readonly string[],
    private readonly env: Record<string, string | undefined>,
    private readonly now: () => number,
    private readonly auditLines: (text: string) => void = () => {},
  ) {}

  async run(): Promise<RefreshResult> {
    const child = Bun.spawn([...this.command, "update", "--json", ...this.args], {
      env: { ...this.env, [RUN_BY_SERVER_VARIABLE]: "1" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.process = child;
    try {
      const [stdout, errors, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      const lines = errors.split("\n");
      for (const line of lines) if (line.startsWith(AUDIT_LINE_START)) this.auditLines(`${line}\n`);
      const stderr = lines.filter((line) => !line.startsWith(AUDIT_LINE_START)).join("\n");
      let report: UpdateReport | { error: string } | null = null;
      try {
        report = JSON.parse(stdout) as UpdateReport | { error: string };
      } catch {
        // No report: the update could not run at all; its one-line error is on stderr.
      }
      if (report === null || "error" in report) {
        const reason =
          report?.error ??
          (stderr
            .trim()
            .split("\n")
            .at(-1)
            ?.replace(/^riskcheck: /, "") ||
            `exit status ${code}`);
        return { finishedAt: this.now(), version: null, error: reason, failedSources: [] };
      }
      const failedSources = report.outcomes
        .filter((o) => o.outcome === "failed")
        .map((o) => ({ name: o.name, detail: o.problem ?? o.detail, keeps: o.keeps ?? null }));
      // Every download failed (the network is down, the feed server unreachable): not a
      // success, so it is retried an hour later and /healthz and /metrics say so.
      const unreached = report.version === null && report.reached === 0 && failedSources.length > 0;
      return {
        finishedAt: this.now(),
        version: report.version,
        error: report.refused.length
          ? `refused: ${report.refused.join("; ")}`
          : unreached
            ? `no source could be reached (${failedSources.length} failed)`
            : null,
        failedSources,
      };
    } finally {
      this.process = null;
    }
  }

  /** Stops a running update; its staging folder and lock are cleaned up by the next one. */
  stop(): void {
    this.process?.kill("SIGTERM");
  }
}

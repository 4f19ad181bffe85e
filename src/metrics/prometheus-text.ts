/** Prometheus' text exposition format (version 0.0.4), written one metric family at a time. */

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;

export class PrometheusText {
  private readonly lines: string[] = [];

  family(name: string, type: "counter" | "gauge" | "histogram", help: string): this {
    this.lines.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, labels: Labels, value: number): this {
    const pairs = Object.entries(labels).map(([label, text]) => `${label}="${escapeLabelValue(text)}"`);
    this.lines.push(`${name}${pairs.length ? `{${pairs.join(",")}}` : ""} ${formatValue(value)}`);
    return this;
  }

  toString(): string {
    return `${this.lines.join("\n")}\n`;
  }
}

function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}

/**
 * A strict reader of Prometheus' text exposition format (0.0.4), for tests: throws on any
 * line the format does not allow, on a sample whose family has no TYPE before it, on a
 * family declared twice, and on histograms whose buckets are not cumulative or whose
 * +Inf bucket differs from _count.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly type: string;
  readonly help: string;
  readonly samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = '([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"';
const VALUE = "(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]Inf|NaN)";
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: -?\\d+)?$`);
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("the exposition does not end with a line break");
  const families = new Map<string, Family & { helpSeen: boolean }>();
  const lines = text.slice(0, -1).split("\n");
  for (const [number, line] of lines.entries()) {
    const fail = (why: string) => new Error(`line ${number + 1}: ${why}: ${JSON.stringify(line)}`);
    const help = line.match(HELP_LINE);
    const type = line.match(TYPE_LINE);
    if (help || type) {
      const name = (help ?? type)![1];
      const family = families.get(name) ?? { type: "", help: "", helpSeen: false, samples: [] };
      if (help) {
        if (family.helpSeen) throw fail("second HELP");
        families.set(name, { ...family, help: help[2], helpSeen: true });
      } else {
        if (family.type) throw fail("second TYPE");
        if (family.samples.length) throw fail("TYPE after samples");
        families.set(name, { ...family, type: type![2] });
      }
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const match = line.match(SAMPLE_LINE);
    if (!match) throw fail("not a sample");
    const name = match[1];
    const family = familyOf(name, families);
    if (!family) throw fail("sample of a family without TYPE");
    const labels: Record<string, string> = {};
    for (const [, label, value] of (match[2] ?? "").matchAll(new RegExp(LABEL, "g"))) {
      if (label in labels) throw fail(`label ${label} twice`);
      labels[label] = value.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    family.samples.push({ name, labels, value: Number(match.at(-1)!.replace("Inf", "Infinity")) });
  }
  for (const [name, family] of families) if (family.type === "histogram") checkHistogram(name, family);
  return families;
}

function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  for (const [name, family] of families) {
    const suffixes = SUFFIXES[family.type] ?? [""];
    if (suffixes.some((suffix) => sampleName === name + suffix)) return family;
  }
  return undefined;
}

function checkHistogram(name: string, family: Family): void {
  const series = new Map<string, Sample[]>();
  for (const s of family.samples) {
    const { le: _, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), s]);
  }
  for (const [key, samples] of series) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`);
    const count = samples.find((s) => s.name === `${name}_count`);
    if (!count || !samples.some((s) => s.name === `${name}_sum`)) throw new Error(`${name}${key}: no _sum or _count`);
    const bounds = buckets.map((b) => Number(b.labels.le.replace("Inf", "Infinity")));
    if (bounds.at(-1) !== Infinity) throw new Error(`${name}${key}: the last bucket is not +Inf`);
    for (let i = 1; i < buckets.length; i++) {
      if (!(bounds[i] > bounds[i - 1])) throw new Error(`${name}${key}: bucket bounds not increasing`);
      if (buckets[i].value < buckets[i - 1].value) throw new Error(`${name}${key}: buckets not cumulative`);
    }
    if (buckets.at(-1)!.value !== count.value) throw new Error(`${name}${key}: +Inf bucket differs from _count`);
  }
}

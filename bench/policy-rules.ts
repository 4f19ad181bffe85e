/**
 * A rule set of `n` rules for the benchmarks, shaped like a team's: lists of countries,
 * networks and domains, levels, kinds, events and scores, half of them in shadow. None
 * matches the bench's traffic (each rule wants an event, a country or a network it never
 * sees), so every assessment walks all of them: the cost of the rules, not of a short cut.
 */
export function benchRules(n: number): { rules: object[] } {
  const countries = ["KP", "IR", "SY", "CU", "SD", "BY", "VE", "MM", "AF", "YE"];
  const rules = Array.from({ length: n }, (_, i) => {
    const never = [
      { field: "event", op: "equals", value: `never-${i}` },
      { field: "ip.asn", op: "in", value: Array.from({ length: 20 }, (_, k) => 4_200_000_000 + i * 20 + k) },
      { field: "email.domain", op: "in", value: Array.from({ length: 50 }, (_, k) => `rule${i}-name${k}.invalid`) },
    ][i % 3];
    return {
      id: `bench-${i}`,
      conditions: {
        all: [
          {
            any: [
              { field: "ip.country", op: "in", value: countries.slice(i % 5, (i % 5) + 5) },
              { field: "score", op: "at_least", value: i % 100 },
            ],
          },
          { field: "ip.kind", op: "has_none", value: ["crawler"] },
          never,
        ],
      },
      decision: ["allow", "challenge", "block"][i % 3],
      reason: `bench rule ${i}`,
      mode: i % 2 === 0 ? "enforce" : "shadow",
    };
  });
  return { rules };
}

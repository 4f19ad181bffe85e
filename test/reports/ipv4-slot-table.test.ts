import { expect, test } from "bun:test";
import { Ipv4SlotTable } from "../../src/reports/ipv4-slot-table.ts";

test("agrees with a Map through 200,000 random adds and deletes, clustered keys included", () => {
  const table = new Ipv4SlotTable();
  const map = new Map<number, number>();
  let seed = 42;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let step = 0; step < 200_000; step++) {
    // Half the keys from a small range (colliding runs), half anywhere in 32 bits.
    const key = random() < 0.5 ? Math.floor(random() * 5_000) : Math.floor(random() * 2 ** 32);
    if (map.has(key) && random() < 0.6) {
      table.delete(key);
      map.delete(key);
    } else if (!map.has(key)) {
      table.add(key, step);
      map.set(key, step);
    }
    if (step % 10_000 === 0) for (const [k, v] of map) expect(table.get(k)).toBe(v);
  }
  expect(table.size).toBe(map.size);
  for (const [k, v] of map) expect(table.get(k)).toBe(v);
  for (let k = 0; k < 5_000; k++) if (!map.has(k)) expect(table.get(k)).toBe(-1);
  expect(table.get(2 ** 32 - 1)).toBe(map.get(2 ** 32 - 1) ?? -1);
});

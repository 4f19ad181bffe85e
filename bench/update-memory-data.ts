/** Synthetic IP lists for bench/update-memory.ts: a relay geofeed with places, a dense address list. */

const COUNTRIES = [
  "US",
  "GB",
  "DE",
  "FR",
  "JP",
  "CA",
  "AU",
  "BR",
  "IN",
  "NL",
  "ES",
  "IT",
  "SE",
  "MX",
  "KR",
  "PL",
  "CH",
  "NO",
  "SG",
  "ZA",
];

/** Row i's place: ~2,000 places, three neighbouring rows sharing one. */
function placeOf(i: number): string {
  const p = Math.floor(i / 3) % 2000;
  const country = COUNTRIES[p % COUNTRIES.length];
  return `${country},${country}-R${p % 37},City ${p}`;
}

export function syntheticGeofeed(rows: number): string {
  const lines: string[] = ["# synthetic RFC 8805 geofeed: prefix,country,region,city,postal"];
  const v4Rows = Math.round(rows * 0.6);
  for (let i = 0; i < v4Rows; i++) {
    // 23.0.0.0 onwards, one /28 a row.
    const a = 0x17000000 + i * 16;
    lines.push(`${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}/28,${placeOf(i)},`);
  }
  for (let i = 0; i < rows - v4Rows; i++)
    lines.push(`2a02:26f7:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::/64,${placeOf(i)},`);
  return `${lines.join("\n")}\n`;
}

/** Single addresses, the `from`-th onwards: 11.0.0.1, 11.0.1.1, … */
export function syntheticAddressList(entries: number, from = 0): string {
  const lines: string[] = [];
  for (let i = from; i < from + entries; i++) lines.push(`${11 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}.1`);
  return `${lines.join("\n")}\n`;
}

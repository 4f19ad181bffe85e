/**
 * Domains of the major mailbox providers: an address one slip away from one of them
 * (`gmial.com`, `hotmial.com`, `gmail.con`) is most likely a typo of it.
 */
const MAJOR_PROVIDERS = [
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "yahoo.co.uk",
  "yahoo.fr",
  "ymail.com",
  "hotmail.com",
  "hotmail.co.uk",
  "hotmail.fr",
  "outlook.com",
  "live.com",
  "msn.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.com",
  "protonmail.com",
  "proton.me",
  "gmx.com",
  "gmx.de",
  "gmx.net",
  "web.de",
  "yandex.ru",
  "mail.ru",
  "qq.com",
  "163.com",
  "naver.com",
  "comcast.net",
  "verizon.net",
  "orange.fr",
];
const PROVIDERS = new Set(MAJOR_PROVIDERS);

/**
 * The major provider `domain` is probably a typo of, or null; `isProvider` tells the
 * mailbox providers known otherwise (`protonmail.ch` is no typo of `protonmail.com`).
 * Never changes a verdict: a hint for the caller's form.
 */
export function didYouMean(domain: string, isProvider: (domain: string) => boolean = () => false): string | null {
  if (PROVIDERS.has(domain) || isProvider(domain)) return null;
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const provider of MAJOR_PROVIDERS) {
    if (Math.abs(provider.length - domain.length) > 2) continue;
    // Two slips only in a longer name: in a short one, two edits reach real domains.
    const allowed = provider.length >= 10 ? 2 : 1;
    const distance = editDistance(domain, provider, allowed);
    if (distance <= allowed && distance < bestDistance) {
      best = provider;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance (insertions, deletions, substitutions and swaps of
 * neighbours), or more than `limit` once every path exceeds it.
 */
export function editDistance(a: string, b: string, limit: number): number {
  const width = b.length + 1;
  let before = new Array<number>(width).fill(0);
  let previous = Array.from({ length: width }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(width);
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        d = Math.min(d, before[j - 2] + 1);
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length];
}

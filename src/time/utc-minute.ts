/** An ISO instant as the pages show it: to the minute, in UTC ("2026-11-24 00:02 UTC"). */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

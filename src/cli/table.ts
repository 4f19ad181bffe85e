import { escapeControlCharacters } from "../text/control-characters.ts";

/**
 * Prints rows as columns, each as wide as its widest cell on a terminal; the first row is the heading. Cells hold text
 * from outside (names, reasons): their control characters are printed escaped.
 */
export function printTable(cells: string[][]): void {
  const table = cells.map((row) => row.map(escapeControlCharacters));
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => Bun.stringWidth(row[i]))));
  for (const row of table)
    console.log(
      row
        .map((cell, i) => cell + " ".repeat(widths[i] - Bun.stringWidth(cell)))
        .join("  ")
        .trimEnd(),
    );
}

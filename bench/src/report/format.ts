/**
 * How the pages write figures (rates, ratios, bytes, rounds), table cells and paragraphs.
 */

export const mps = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
export const kps = (x: number) => `${(x / 1e3).toFixed(1)} k/s`;
export const ns = (rate: number) => `${(1e9 / rate).toFixed(0)} ns`;
export const ratio = (x: number) => `${x.toFixed(2)}x`;
export const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
export const bytes = (x: number) => `${x.toFixed(1)} B`;
export const rounds = (xs: number[], scale: number, digits: number) =>
  xs.map((x) => (x / scale).toFixed(digits)).join(' ');
export const count = (n: number) => n.toLocaleString('en-US');
export const rps = (x: number) => Math.round(x).toLocaleString('en-US');
export const us = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} µs`;
/** Escapes a table cell. */
const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A markdown table, its cells escaped. */
export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

export const code = (s: string) => `\`${s}\``;

/**
 * A markdown document built a paragraph at a time: each argument of {@link Doc.p} is one
 * paragraph (a blank line after it); consecutive list items stay one list.
 */
export class Doc {
  private readonly out: string[] = [];

  p(...blocks: string[]): void {
    blocks.forEach((block, i) => {
      this.out.push(block);
      const next = blocks[i + 1];
      if (!(block.startsWith('- ') && next?.startsWith('- '))) this.out.push('');
    });
  }

  toString(): string {
    return `${this.out.join('\n').trimEnd()}\n`;
  }
}

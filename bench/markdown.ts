/** Column alignment in a Markdown table: `---` (left) or `--:` (right). */
export type Alignment = 'left' | 'right';

/**
 * A Markdown table with padded columns, as the project's formatter (Biome) writes them, so the
 * files the bench writes pass `npm run lint` as they are: right-aligned columns are padded on the left
 * and marked `--:` in the delimiter row.
 */
export const markdownTable = (header: string[], rows: string[][], align: Alignment[] = []): string => {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const pad = (cell: string, i: number) =>
    align[i] === 'right' ? cell.padStart(widths[i] as number) : cell.padEnd(widths[i] as number);
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const delimiter = widths.map((width, i) => (align[i] === 'right' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)));
  return [line(header), `| ${delimiter.join(' | ')} |`, ...rows.map(line)].join('\n');
};

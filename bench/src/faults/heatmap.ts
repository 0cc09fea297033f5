// The heat map's inputs (docs/reliability.svg, drawn by heatmap-svg.ts): one square per cell,
// a column per fault, a row per subject, its band the over-admission relative to the cell's
// documented bound. Pure (types only), so the page test imports it under jest.
import type { Matrix } from './render.js';

/** The bands, in the legend's order; a cell with no bound (a peer, `allow`) is grey. */
export const BANDS = [
  'none over',
  'over, at most half its bound',
  'over, within its bound',
  'past its bound',
  'no bound: none over',
  'no bound: some over',
] as const;
export type Band = (typeof BANDS)[number];

export interface HeatCell {
  fault: string;
  subject: string;
  over: number;
  bound: number | null;
  band: Band;
  /** The square's text: the over-admission, as a share of the bound when it has one. */
  text: string;
}

export function band(over: number, bound: number | null): Band {
  if (bound === null) return over === 0 ? 'no bound: none over' : 'no bound: some over';
  if (over === 0) return 'none over';
  if (over > bound) return 'past its bound';
  return over <= bound / 2 ? 'over, at most half its bound' : 'over, within its bound';
}

/** One square per cell of `m`, in the page's order (faults and subjects as they first come). */
export function heatmapCells(m: Matrix): HeatCell[] {
  return m.cells.map((c) => {
    const over = c.figures.over;
    const bound = c.bounds.over;
    return {
      fault: c.faultId,
      subject: c.id.slice(c.id.indexOf('/') + 1),
      over,
      bound,
      band: band(over, bound),
      text: bound === null || over === 0 ? String(over) : `${Math.round((100 * over) / bound)}%`,
    };
  });
}

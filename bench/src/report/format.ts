/** How the pages and the parts' console write figures: rates, ratios, bytes, rounds. */
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

// How the benchmarks write and summarise numbers: one format for every report, and the percentiles they quote.

/** A number as the reports write it (thousands separated, `digits` decimals); `n/a` when there is none. */
export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';

/** The `p`th percentile of `values` (nearest rank). */
export const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;

export const median = (values: number[]) => percentile(values, 50);

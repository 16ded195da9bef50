// Reading Prometheus metrics as a scraper does.

/** Prometheus text format: `name{label="value",…} number` lines, comments and blank lines left out. */
export function parseMetrics(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/i.exec(line);
      if (!match) throw new Error(`not a metric line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/\b(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels` (0 when there is none). */
export function valueOf(
  metrics: ReturnType<typeof parseMetrics>,
  name: string,
  labels: Record<string, string> = {},
): number {
  return metrics
    .filter((m) => m.name === name && Object.entries(labels).every(([k, v]) => m.labels[k] === v))
    .reduce((sum, m) => sum + m.value, 0);
}

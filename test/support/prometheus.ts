/** One sample's value from Prometheus text: the line with this name and exactly these labels. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').match(/[a-zA-Z_]\w*="(?:[^"\\]|\\.)*"/g) ?? [];
    if (have.sort().join(',') === want) return Number(m[3]);
  }
  return undefined;
}

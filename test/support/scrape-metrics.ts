/** One scrape of a `/metrics` endpoint: the value of a series, 0 when absent. */
export interface Scrape {
  text: string;
  /** The value of `name` with exactly these labels (any order); 0 when the series is absent. */
  value(name: string, labels?: Record<string, string>): number;
}

/** Scrapes `url` (Prometheus text format), with the admin token when given. */
export async function scrapeMetrics(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const text = await res.text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, key, value]) => `${key}=${value}`)
      .sort()
      .join(',');
    values.set(`${match[1]}|${labels}`, Number(match[3]));
  }
  return {
    text,
    value(name, labels = {}) {
      const key = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join(',');
      return values.get(`${name}|${key}`) ?? 0;
    },
  };
}

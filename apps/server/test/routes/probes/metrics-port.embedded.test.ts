import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { devEnv, freePort, startServer } from '../../support/process.ts';
import { parsePrometheus, samplesOf, sampleValue } from '../../support/prometheus.ts';

const TOKEN = 'scrape-token-0123456789abcdef';

// ARBITER_METRICS_PORT: the scrape moves to a listener of its own, which the process closes
// with the main one. The real `arbiter serve`, as a deployment runs it.
describe('/metrics on ARBITER_METRICS_PORT', () => {
  it('is served on its own port only, counts the main listener, and closes on SIGTERM', async () => {
    const port = await freePort();
    const server = await startServer({
      ...devEnv(mkdtempSync(join(tmpdir(), 'arbiter-metrics-port-'))),
      ARBITER_METRICS: 'true',
      ARBITER_METRICS_TOKEN: TOKEN,
      ARBITER_METRICS_PORT: String(port),
      ARBITER_SHUTDOWN_DELAY_SECONDS: '0',
    });
    const metricsUrl = `http://127.0.0.1:${port}/metrics`;
    try {
      expect(server.output()).toContain(`Metrics: http://127.0.0.1:${port}/metrics`);
      // The main listener has no /metrics: a 404 problem, counted as an unmatched route.
      const main = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(main.status).toBe(404);
      expect(main.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      for (let i = 0; i < 2; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

      const refused = await fetch(metricsUrl);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { type: string }).type).toBe(
        '/problems/missing-credential',
      );
      const scrape = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(scrape.status).toBe(200);
      const samples = samplesOf(parsePrometheus(await scrape.text()));
      const requests = (labels: Record<string, string>) =>
        sampleValue(samples, 'arbiter_http_requests_total', labels);
      expect(requests({ route: '/healthz', status_class: '2xx' })).toBe(2);
      expect(requests({ route: 'unmatched', status_class: '4xx' })).toBe(1);
      // The metrics listener's own answers are not counted as the API's requests.
      expect(samples.filter((s) => s.labels.route === '/metrics')).toEqual([]);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });
});

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** One request the service sent to Stripe's API, as stripe-mock received it. */
export interface StripeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The form-encoded parameters, keys as sent (`metadata[arbiter_org_id]`). */
  params: Record<string, string>;
}

export interface StripeMock {
  /** The API origin to configure as ARBITER_STRIPE_API_BASE. */
  origin: string;
  /** Every request in order, recorded by a pass-through in front of stripe-mock. */
  requests: StripeRequest[];
  close(): Promise<void>;
}

const ENSURE_SCRIPT = fileURLToPath(
  new URL('../../../../scripts/ensure-stripe-mock.sh', import.meta.url),
);

/** Stripe's stripe-mock on free loopback ports (installed with `go install` when missing). */
async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const binary = execFileSync('bash', [ENSURE_SCRIPT], { encoding: 'utf8' }).trim();
  // Both listeners on loopback with system-chosen ports: its HTTPS default is a fixed port on all addresses.
  const child = spawn(binary, ['-http-addr', '127.0.0.1:', '-https-addr', '127.0.0.1:'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Listening for HTTP at address: 127\.0\.0\.1:(\d+)/.exec(output);
      if (found) resolve(Number(found[1]));
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`stripe-mock exited (${code}): ${output}`)));
  });
  return { child, port };
}

/** Forwards every request to stripe-mock unchanged and records it. */
async function startRecorder(target: number, requests: StripeRequest[]) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://stripe.test');
      const form = req.method === 'GET' ? url.searchParams : new URLSearchParams(body.toString());
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        headers: req.headers,
        params: Object.fromEntries(form),
      });
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: target,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

export async function startStripeMock(): Promise<StripeMock> {
  const { child, port } = await startServer();
  const requests: StripeRequest[] = [];
  const recorder = await startRecorder(port, requests);
  return {
    origin: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`,
    requests,
    async close() {
      recorder.close();
      child.kill();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

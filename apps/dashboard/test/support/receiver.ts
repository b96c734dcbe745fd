import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** Where to point an endpoint: `http://127.0.0.1:<port>/hook`. */
  url: string;
  received: Received[];
  /** The status every request is answered with from now on. */
  answer(status: number): void;
  close(): Promise<void>;
}

/**
 * A webhook receiver on the loopback: records every request and answers the status it is told
 * (200 by default). The test server allows private addresses (ARBITER_WEBHOOKS_ALLOW_PRIVATE).
 */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'broken');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (s) => {
      status = s;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

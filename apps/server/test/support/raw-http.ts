import { connect } from 'node:net';

/**
 * HTTP/1.1 over a raw socket, for what inject() and fetch cannot send: bytes Node's parser
 * refuses, or a body that pauses halfway.
 */

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request's text: the request line, `Host`, `Connection: close`, `headers`, then `body`. */
export function rawRequest(
  method: string,
  path: string,
  headers: string[] = [],
  body = '',
): string {
  return [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close', ...headers]
    .concat(['', body])
    .join('\r\n');
}

/**
 * Writes `parts` as they are, `pauseMs` apart, to the server on `port`, and reads the answer
 * until the server closes the connection.
 */
export function sendRaw(
  port: number,
  parts: string | Buffer | readonly (string | Buffer)[],
  pauseMs = 0,
): Promise<RawAnswer> {
  const queue = typeof parts === 'string' || Buffer.isBuffer(parts) ? [parts] : [...parts];
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', function writeNext() {
      const part = queue.shift();
      if (part === undefined) return;
      socket.write(part);
      if (queue.length > 0) setTimeout(writeNext, pauseMs);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const split = all.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = all.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => {
          const i = l.indexOf(':');
          return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()];
        }),
      );
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]),
        headers,
        body: all.slice(split + 4),
      });
    });
  });
}

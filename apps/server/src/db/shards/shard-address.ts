/**
 * How a shard is named to people (logs, the health route, refusals): host, port and database
 * of its URL, never the user or password it carries.
 */
export function shardAddress(url: string): string {
  try {
    const u = new URL(url);
    const port = u.port === '' ? '' : `:${u.port}`;
    return `${u.hostname}${port}${u.pathname}`;
  } catch {
    return 'an unparsable URL';
  }
}

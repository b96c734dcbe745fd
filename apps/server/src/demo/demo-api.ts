/** An answer: its status and its parsed JSON body (shapes are the API's, read where used). */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the body's shape is the route's, known at each call site
  body: any;
}

/** The few HTTP calls the demo makes, against a running Arbiter, as any API user would. */
export class DemoApi {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** A dashboard call with the session token; answers status and parsed body. */
  async dashboard(method: string, path: string, body?: unknown) {
    return this.send(method, path, { authorization: `Bearer ${this.token}` }, body);
  }

  /** An ingest call with an API key. */
  async ingest(key: string, method: string, path: string, body: unknown, contentType?: string) {
    return this.send(method, path, { 'x-api-key': key }, body, contentType);
  }

  private async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Answer> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': contentType },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }

  /** A call that must succeed with `expected`; anything else stops the demo with the answer. */
  static expect(what: string, res: Answer, ...expected: number[]): Answer['body'] {
    if (!expected.includes(res.status))
      throw new DemoError(`${what} failed with ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
}

/** A failure the demo explains in one sentence rather than a stack trace. */
export class DemoError extends Error {}

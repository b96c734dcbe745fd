/** One call of the HTTP API, as a tool makes it: the route's method, its path, query and body. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** The path with its parameters filled in, e.g. `/v1/experiments/checkout-copy`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/** The API's answer: its status and its JSON body (a problem's body when not 2xx). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/**
 * The one seam the MCP server reaches the product through: the routes themselves, called with
 * the caller's own credential, so a tool allows, refuses and validates exactly as its route does.
 */
export type Api = (request: ApiRequest) => Promise<ApiAnswer>;

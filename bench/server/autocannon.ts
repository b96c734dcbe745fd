/**
 * autocannon (the HTTP load generator the benches drive in-process), typed: it ships no type
 * declarations, so the part of its surface the benches use is declared here once.
 */
// @ts-expect-error autocannon ships no type declarations; the shape used is typed below.
import autocannonUntyped from 'autocannon';

export interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
export interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}
export interface AutocannonOptions {
  url: string;
  connections: number;
  /** Seconds to run; or `amount` requests. */
  duration?: number;
  amount?: number;
  pipelining: number;
  method: string;
  headers: Record<string, string>;
  requests: Array<{ setupRequest(request: AutocannonRequest): AutocannonRequest }>;
}
export interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(
    event: 'response',
    listener: (client: unknown, status: number, bytes: number, ms: number) => void,
  ): void;
}
export const autocannon = autocannonUntyped as (options: AutocannonOptions) => AutocannonInstance;

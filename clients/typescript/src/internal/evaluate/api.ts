import { ArbiterError } from '../../errors.ts';
import type { DatasetItem, OfflineRun } from '../../evaluation.ts';
import type { Transport } from '../transport.ts';
import type { ConfigDocument } from '../wire.ts';
import type { ResultMeasurements } from './task-measure.ts';

/** One row of `POST /v1/offline-runs/{run_id}/results`. */
export interface ResultRow extends Partial<ResultMeasurements> {
  item_id: string;
  variant: string;
  repeat: number;
  output?: unknown;
  error?: string;
  scores?: Record<string, number>;
}

export interface ResultsAnswer {
  accepted: number;
  duplicates: number;
  conflicts: number;
  errors: { index: number; message: string }[];
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** An item of `GET /v1/offline-runs/{run_id}/items`, reduced to what says which results exist. */
export interface HeldItem {
  id: string;
  variants: Record<string, { repeat: number }[]>;
}

/** The page size of both item listings: the largest the server gives. */
const DATASET_PAGE = 1_000;
const RUN_ITEMS_PAGE = 500;

const segment = (value: string) => encodeURIComponent(value);

/**
 * The offline-evaluation routes, through the client's transport (its retries, `Retry-After`
 * and timeouts). Unlike the event pipeline, a refusal is thrown: `evaluate` is an explicit call.
 */
export class EvaluationApi {
  constructor(private readonly transport: Transport) {}

  createRun(experiment: string, body: Record<string, unknown>): Promise<OfflineRun> {
    return this.call(
      'POST',
      `/v1/experiments/${segment(experiment)}/offline-runs`,
      'creating the run',
      body,
    );
  }

  getRun(runId: string): Promise<OfflineRun> {
    return this.call('GET', `/v1/offline-runs/${segment(runId)}`, `reading run ${runId}`);
  }

  completeRun(runId: string): Promise<OfflineRun> {
    return this.call(
      'POST',
      `/v1/offline-runs/${segment(runId)}/complete`,
      `completing run ${runId}`,
    );
  }

  uploadResults(runId: string, results: readonly ResultRow[]): Promise<ResultsAnswer> {
    return this.call('POST', `/v1/offline-runs/${segment(runId)}/results`, 'uploading results', {
      results,
    });
  }

  datasetId(dataset: string): Promise<{ id: string }> {
    return this.call('GET', `/v1/datasets/${segment(dataset)}`, `reading dataset ${dataset}`);
  }

  config(): Promise<ConfigDocument> {
    return this.call('GET', '/v1/config', 'reading the config');
  }

  /** The pinned version's items, page by page, by id. */
  async *items(datasetId: string, version: number): AsyncGenerator<DatasetItem[]> {
    let after: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ version: String(version), limit: String(DATASET_PAGE) });
      if (after !== undefined) query.set('starting_after', after);
      const page = await this.call<Page<DatasetItem>>(
        'GET',
        `/v1/datasets/${segment(datasetId)}/items?${query}`,
        'reading the dataset items',
      );
      if (page.data.length > 0) yield page.data;
      const last = page.data[page.data.length - 1];
      if (!page.has_more || last === undefined) return;
      after = last.id;
    }
  }

  /** Every item of a run with the results it holds, by id. */
  async *heldResults(runId: string): AsyncGenerator<HeldItem[]> {
    let after: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ sort: 'item', limit: String(RUN_ITEMS_PAGE) });
      if (after !== undefined) query.set('starting_after', after);
      const page = await this.call<Page<HeldItem>>(
        'GET',
        `/v1/offline-runs/${segment(runId)}/items?${query}`,
        `reading the results run ${runId} holds`,
      );
      yield page.data;
      const last = page.data[page.data.length - 1];
      if (!page.has_more || last === undefined) return;
      after = last.id;
    }
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    what: string,
    body?: unknown,
  ): Promise<T> {
    const result = await this.transport.request(
      method,
      path,
      body === undefined ? {} : { body: JSON.stringify(body) },
    );
    if (result.kind === 'ok') return result.body as T;
    const detail = result.kind === 'not-modified' ? 'HTTP 304' : result.detail;
    throw new ArbiterError(`evaluate: ${what} failed: ${detail}`);
  }
}

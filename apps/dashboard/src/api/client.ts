import createClient, { type Middleware } from 'openapi-fetch';
import { clearSession, sessionToken } from '../auth/session.ts';
import { ProblemError, toProblem } from './problem.ts';
import type { paths } from './schema.d.ts';

/** The dashboard uses only the public /v1 API, same origin, with the session JWT as a bearer. */
const auth: Middleware = {
  onRequest({ request }) {
    const token = sessionToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ response }) {
    // An expired or foreign session: forget it so the app shows the sign-in page.
    if (response.status === 401) clearSession();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(auth);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful answer, or the problem it carries as a thrown ProblemError. */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (e) {
    throw new ProblemError(0, 'The server could not be reached', String(e), 'about:blank');
  }
  if (answer.error !== undefined || !answer.response.ok)
    throw toProblem(answer.response.status, answer.error);
  return answer.data as T;
}

/** Response body types straight from the OpenAPI document. */
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
export type Body<
  P extends keyof paths,
  M extends keyof paths[P],
  S extends number = 200,
> = paths[P][M] extends { responses: infer R } ? (S extends keyof R ? Json<R[S]> : never) : never;

/** Request body types, likewise (a body the route may go without is still its JSON shape). */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer R;
}
  ? Json<NonNullable<R>>
  : never;

export type Experiment = Body<'/v1/experiments/{id}', 'get'>;
export type Results = Body<'/v1/experiments/{id}/results', 'get'>;
export type MetricResult = Results['results'][string];
/** A results summary entry: the run served plus its guardrail violation count. */
export type SummaryEntry = Body<'/v1/results/summary', 'get'>[number];
export type Distribution = MetricResult['distribution'];
export type Live = Body<'/v1/experiments/{id}/live', 'get'>;
export type Traffic = Body<'/v1/experiments/{id}/traffic', 'get'>;
export type KeySummary = Body<'/v1/keys', 'get'>[number];
export type AuditEntry = Body<'/v1/audit', 'get'>[number];
export type Usage = Body<'/v1/usage', 'get'>;
export type Whoami = Body<'/v1/whoami', 'get'>;
export type BillingSummary = Body<'/v1/billing/summary', 'get'>;
export type InboxItem = Body<'/v1/admin/inbox', 'get'>['items'][number];
export type AdminOrgSummary = Body<'/v1/admin/orgs', 'get'>[number];
export type Health = Body<'/v1/admin/health', 'get'>;
export type ExperimentInput = RequestBody<'/v1/experiments', 'post'>;
export type MetricDefinition = ExperimentInput['metrics'][number];
export type Variant = NonNullable<ExperimentInput['variants']>[number];
export type Method = MetricDefinition['method_default'];
export type Dataset = Body<'/v1/datasets/{id}', 'get'>;
export type DatasetItemsPage = Body<'/v1/datasets/{id}/items', 'get'>;
export type DatasetItem = DatasetItemsPage['data'][number];
export type UploadAnswer = Body<'/v1/datasets/{id}/items', 'post'>;
export type OfflineRun = Body<'/v1/offline-runs/{run_id}', 'get'>;
export type Comparison = NonNullable<OfflineRun['comparisons']>[string];
export type NonDeterminism = NonNullable<OfflineRun['summary']>[string];
export type Scorer = OfflineRun['scorers'][number];
export type RunItemsPage = Body<'/v1/offline-runs/{run_id}/items', 'get'>;
export type RunItem = RunItemsPage['data'][number];
export type RunItemsSort = RunItemsPage['sort'];
export type Layer = Body<'/v1/layers/{id}', 'get'>;
export type LayerRun = Layer['bucket_map'][number];
export type LayerInput = RequestBody<'/v1/layers', 'post'>;
export type Holdout = Body<'/v1/holdouts/{id}', 'get'>;
export type HoldoutInput = RequestBody<'/v1/holdouts', 'post'>;
export type HoldoutChange = RequestBody<'/v1/holdouts/{id}', 'put'>;
export type Prompt = Body<'/v1/prompts/{name}', 'get'>;
export type PromptSummary = Body<'/v1/prompts', 'get'>[number];
export type PromptVersion = Prompt['versions'][number];

import { type AnalysisCode, AnalysisError } from '../analysis/outcomes.ts';
import { type DomainCode, DomainError } from '../domain/outcomes.ts';
import { type IngestCode, IngestError } from '../ingest/outcomes.ts';
import { type IntegrationCode, IntegrationError } from '../integrations/outcomes.ts';
import { ProblemError, type ProblemSlug } from './problems.ts';

/** The one place a layer's outcome code becomes a problem type of the catalogue. */
const PROBLEM_OF = {
  domain: {
    'experiment-not-found': 'experiment-not-found',
    'experiment-name-taken': 'experiment-name-taken',
    'config-too-large': 'config-too-large',
    'org-config-too-large': 'org-config-too-large',
    'frozen-field': 'frozen-field',
    'allocation-not-sticky': 'allocation-not-sticky',
    'plan-required': 'plan-required',
    'config-invalid': 'validation-error',
    'metric-not-found': 'metric-not-found',
    'method-invalid': 'validation-error',
    'key-not-revealable': 'key-not-revealable',
    'secret-key-not-configured': 'secret-key-not-configured',
    'contact-limit': 'contact-limit',
    'user-deleted': 'invalid-credential',
    'org-deleted': 'membership-revoked',
    'membership-revoked': 'membership-revoked',
    'identity-provider-not-configured': 'identity-provider-not-configured',
    'identity-provider-failed': 'identity-provider-failed',
    'identity-event-invalid': 'validation-error',
    'org-not-found': 'org-not-found',
    'cursor-invalid': 'validation-error',
    'billing-not-configured': 'billing-not-configured',
    'plan-already-active': 'plan-already-active',
    'no-billing-account': 'no-billing-account',
    'dataset-invalid': 'validation-error',
    'dataset-not-found': 'dataset-not-found',
    'dataset-name-taken': 'dataset-name-taken',
    'dataset-item-not-found': 'dataset-item-not-found',
    'dataset-version-not-found': 'dataset-version-not-found',
    'offline-run-invalid': 'validation-error',
    'offline-run-not-found': 'offline-run-not-found',
    'offline-run-not-open': 'offline-run-not-open',
    'saved-group-not-found': 'saved-group-not-found',
    'saved-group-key-taken': 'saved-group-key-taken',
    'saved-group-too-large': 'org-config-too-large',
    'layer-not-found': 'layer-not-found',
    'webhook-endpoint-not-found': 'webhook-endpoint-not-found',
    'model-price-not-found': 'model-price-not-found',
    'webhook-endpoint-limit': 'webhook-endpoint-limit',
    'webhook-delivery-not-found': 'webhook-delivery-not-found',
    'webhook-url-refused': 'webhook-url-refused',
    'layer-name-taken': 'layer-name-taken',
    'layer-full': 'layer-full',
    'layer-not-sticky': 'allocation-not-sticky',
    'holdout-not-found': 'holdout-not-found',
    'holdout-name-taken': 'holdout-name-taken',
    'holdout-not-sticky': 'allocation-not-sticky',
    'invalid-transition': 'invalid-transition',
    'rollout-not-found': 'rollout-not-found',
    'rollout-conflict': 'rollout-conflict',
    'prompt-not-found': 'prompt-not-found',
    'prompt-name-taken': 'prompt-name-taken',
  } satisfies Record<DomainCode, ProblemSlug>,
  ingest: {
    'nothing-accepted': 'validation-error',
    'allowance-exceeded': 'allowance-exceeded',
    'experiment-not-found': 'experiment-not-found',
    'test-event-limit': 'test-event-limit',
    'import-unreadable': 'import-format',
    'otlp-unreadable': 'otlp-payload-invalid',
    'otlp-too-large': 'payload-too-large',
  } satisfies Record<IngestCode, ProblemSlug>,
  analysis: {
    'fold-behind': 'fold-behind',
    'manual-run-limit': 'manual-run-limit',
    'dimension-unknown': 'dimension-unknown',
    'breakdown-not-computed': 'breakdown-not-computed',
  } satisfies Record<AnalysisCode, ProblemSlug>,
  integration: {
    'billing-provider-failed': 'billing-provider-failed',
  } satisfies Record<IntegrationCode, ProblemSlug>,
};

function slugOf(error: unknown): ProblemSlug | null {
  if (error instanceof DomainError) return PROBLEM_OF.domain[error.code];
  if (error instanceof IngestError) return PROBLEM_OF.ingest[error.code];
  if (error instanceof AnalysisError) return PROBLEM_OF.analysis[error.code];
  if (error instanceof IntegrationError) return PROBLEM_OF.integration[error.code];
  return null;
}

/** The problem an outcome answers with; null for an error that is no outcome (a bug). */
export function problemOfOutcome(error: unknown): ProblemError | null {
  const slug = slugOf(error);
  if (slug === null) return null;
  const outcome = error as DomainError | IngestError | AnalysisError | IntegrationError;
  const headers: Record<string, string> =
    outcome.retryAfterSeconds === null ? {} : { 'retry-after': String(outcome.retryAfterSeconds) };
  return new ProblemError(slug, outcome.detail, outcome.extra, headers);
}

import { Outcome } from '../kernel/outcome.ts';

/** Every expected failure of the domain layer. */
export type DomainCode =
  | 'experiment-not-found'
  | 'experiment-name-taken'
  | 'config-too-large'
  | 'org-config-too-large'
  | 'frozen-field'
  | 'allocation-not-sticky'
  | 'plan-required'
  | 'config-invalid'
  | 'metric-not-found'
  | 'method-invalid'
  | 'key-not-revealable'
  | 'secret-key-not-configured'
  | 'contact-limit'
  | 'user-deleted'
  | 'org-deleted'
  | 'membership-revoked'
  | 'identity-provider-not-configured'
  | 'identity-provider-failed'
  | 'identity-event-invalid'
  | 'org-not-found'
  | 'cursor-invalid'
  | 'billing-not-configured'
  | 'plan-already-active'
  | 'no-billing-account'
  | 'dataset-invalid'
  | 'dataset-not-found'
  | 'dataset-name-taken'
  | 'dataset-item-not-found'
  | 'dataset-version-not-found'
  | 'offline-run-invalid'
  | 'offline-run-not-found'
  | 'offline-run-not-open';

export class DomainError extends Outcome<DomainCode> {}

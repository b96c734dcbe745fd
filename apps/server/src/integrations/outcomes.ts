import { Outcome } from '../kernel/outcome.ts';

/** Every expected failure of an adapter to an outside service. */
export type IntegrationCode = 'billing-provider-failed';

export class IntegrationError extends Outcome<IntegrationCode> {}

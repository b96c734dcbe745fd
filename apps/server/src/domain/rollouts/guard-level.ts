import { SRM_HALT_P } from '@arbiter/stats';

/**
 * The guard's family-wise error rate: the chance that it ever acts on a guardrail, over the
 * whole ramp, when the treatment changes nothing. Each (guardrail, treatment) pair is tested at
 * this rate divided by the number of pairs.
 */
export const GUARD_ALPHA = 0.05;

/** An SRM p-value below this pauses the ramp: the analysis' own halt threshold. */
export const SRM_PAUSE_P = SRM_HALT_P;

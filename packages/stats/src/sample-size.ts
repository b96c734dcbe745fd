import { Z_80, Z_975 } from './distributions.ts';
import { type ArmSummary, centred } from './summary.ts';

/**
 * Users per arm for a two-sided test at α = 0.05 to reach 80 % power against a relative
 * minimum detectable effect `mde` of the control mean, by the normal approximation:
 * ⌈(z₀.₉₇₅ + z₀.₈)² · (s_c² + s_t²) / (mde · |mean_c|)²⌉ with the arms' sample variances
 * (ddof 1). Null when the control mean is 0 (no relative effect exists) or an arm has fewer
 * than two users (no variance yet).
 */
export function sampleSizePerArm(
  control: ArmSummary,
  treatment: ArmSummary,
  mde: number,
): number | null {
  if (control.n < 2 || treatment.n < 2 || !(mde > 0)) return null;
  const c = centred(control);
  const t = centred(treatment);
  if (c.mean === 0 || !Number.isFinite(c.mean)) return null;
  const variances = c.m2 / (c.n - 1) + t.m2 / (t.n - 1);
  const needed = ((Z_975 + Z_80) ** 2 * variances) / (mde * Math.abs(c.mean)) ** 2;
  return Number.isFinite(needed) ? Math.ceil(needed) : null;
}

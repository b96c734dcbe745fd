import type { Experiment, SummaryEntry } from '../../api/client.ts';

/**
 * An experiment's lifecycle as the dashboard words it. The server decides every transition
 * (and refuses the others with its invalid-transition problem); this module only says which
 * buttons a state offers and what users get after each, in the words the confirmations use.
 */

export type Status = Experiment['status'];
export type StopRecord = NonNullable<Experiment['stop']>;
export type Conclusion = StopRecord['conclusion'];
export type Action = 'start' | 'stop' | 'archive' | 'unarchive';

export const STATUS_LABEL: Record<Status, string> = {
  draft: 'Draft',
  running: 'Running',
  stopped: 'Stopped',
  archived: 'Archived',
};

/** The transitions the server allows from each state, as buttons, in the order shown. */
const ACTIONS: Record<Status, readonly Action[]> = {
  draft: ['start', 'archive'],
  running: ['stop'],
  stopped: ['archive'],
  archived: ['unarchive'],
};
export const actionsFor = (status: Status): readonly Action[] => ACTIONS[status];

export const ACTION_LABEL: Record<Action, string> = {
  start: 'Start',
  stop: 'Stop',
  archive: 'Archive',
  unarchive: 'Unarchive',
};

export const CONCLUSION_LABEL: Record<Conclusion, string> = {
  ship: 'Ship a variant',
  rollback: 'Roll back to control',
  inconclusive: 'Inconclusive: serve control',
};

/** The experiment's control: its first variant (the first arm of an experiment without a list). */
export function controlOf(e: Pick<Experiment, 'variants' | 'allocation'>): string {
  return e.variants?.[0]?.key ?? e.allocation[0]?.variant ?? 'control';
}

/** What a stop serves: the shipped variant, or the control after a rollback or no conclusion. */
export function servedBy(conclusion: Conclusion, variant: string, control: string): string {
  return conclusion === 'ship' ? variant : control;
}

const NO_EXPOSURE =
  'No exposure of this experiment is sent any more; targeting, layers and holdouts still decide who is eligible, and anyone they exclude keeps your code’s default.';

/** What stopping with this conclusion gives users, for the stop confirmation. */
export function stopOutcome(served: string): string {
  return `From their next config poll, every eligible user gets ${served}, with its prompt and variables, whatever their bucket. ${NO_EXPOSURE}`;
}

/** What the other transitions give users, for their confirmations. */
export function actionOutcome(action: Exclude<Action, 'stop'>, e: Experiment): string {
  if (action === 'start') {
    const arms = e.allocation.map((a) => `${a.variant} ${a.weight}%`).join(', ');
    return `From their next config poll, eligible users are split as allocated (${arms}) and their exposures are sent and counted.`;
  }
  if (action === 'archive') {
    const now =
      e.stop === null
        ? 'Users keep getting your code’s default'
        : `Users stop getting ${e.stop.served_variant} and get your code’s default`;
    return `${now}: the experiment leaves the config, so assign returns null for it and sends no exposure. Its results stay readable, and Unarchive brings it back as ${e.stop === null ? 'a draft' : 'stopped'}.`;
  }
  if (e.stop === null)
    return 'Back to draft: assign keeps returning null (your code’s default) and sends no exposure until it is started.';
  return `Back to stopped: ${stopOutcome(e.stop.served_variant)}`;
}

export interface StopChoice {
  conclusion: Conclusion;
  variant: string;
  reason: string;
  /** With ship of a variant on a stored prompt: whether its version becomes `production`. */
  releasePrompt?: boolean;
}

/** The stored prompt version a variant references, if it references one. */
export function promptOf(e: Experiment, variant: string): { name: string; version: number } | null {
  const prompt = e.variants.find((v) => v.key === variant)?.prompt;
  return typeof prompt === 'object' && prompt !== null ? prompt : null;
}

/**
 * The stop route's body: `variant` only with ship, `reason` only when one was written,
 * `release_prompt: false` only when a ship was told to leave the prompt's label.
 */
export function stopBody(c: StopChoice) {
  const reason = c.reason.trim() === '' ? {} : { reason: c.reason.trim() };
  if (c.conclusion !== 'ship') return { conclusion: c.conclusion, ...reason };
  const release = c.releasePrompt === false ? { release_prompt: false } : {};
  return { conclusion: c.conclusion, variant: c.variant, ...reason, ...release };
}

/** What a ship does to the prompt's label, for the confirmation. */
export function releaseOutcome(
  prompt: { name: string; version: number },
  release: boolean,
): string {
  return release
    ? `The prompt ${prompt.name} version ${prompt.version} becomes its production version, so code that reads production gets it too.`
    : `The prompt ${prompt.name} keeps its production label where it is.`;
}

/** The stop form's starting point: the recommended treatment when the last run says ship. */
export function stopDefault(last: SummaryEntry | undefined): {
  conclusion: Conclusion | '';
  variant: string;
} {
  const d = last?.decision;
  if (d?.recommendation === 'ship' && d.treatment !== null)
    return { conclusion: 'ship', variant: d.treatment };
  return { conclusion: '', variant: '' };
}

/** An instant as the dashboard states it: "2026-11-29 11:40 UTC". */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A stopped experiment's line: what is served, since when, by whom. */
export function servingSentence(stop: StopRecord): string {
  const how =
    stop.conclusion === 'ship'
      ? `shipped ${stop.served_variant}`
      : stop.conclusion === 'rollback'
        ? 'rolled back'
        : 'stopped as inconclusive';
  return `Every eligible user gets ${stop.served_variant} since ${utcMinute(stop.stopped_at)}: ${how} by ${stop.stopped_by}.`;
}

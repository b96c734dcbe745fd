/**
 * The small interfaces the layers share, in a module that imports nothing, so any layer may
 * depend on them without depending on the layer that implements them.
 */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface JudgeInput {
  rubric: string;
  prompt: string;
  response: string;
}

export type JudgeOutcome = { ok: true; score: number } | { ok: false; reason: string };

/** Scores one model call against a metric's rubric; never throws for a remote failure. */
export interface Judge {
  score(input: JudgeInput): Promise<JudgeOutcome>;
}

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  replyTo?: string;
}

export type MailOutcome = { ok: true } | { ok: false; reason: string };

/** Sends one mail; never throws for a remote failure (the outcome says why). */
export interface Mailer {
  send(message: MailMessage): Promise<MailOutcome>;
  close(): void;
}

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

/** An organization as the identity provider holds it. */
export interface DirectoryOrg {
  externalId: string;
  /** Most members the provider lets the org have; null = unlimited. */
  seatCap: number | null;
}

/** The identity provider's Backend API, as far as seat caps go; rejects on a remote failure. */
export interface IdentityDirectory {
  listOrgs(): Promise<DirectoryOrg[]>;
  setSeatCap(externalId: string, seatCap: number | null): Promise<void>;
}

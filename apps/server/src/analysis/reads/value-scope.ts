export interface WindowDays {
  /** Inclusive UTC dates, YYYY-MM-DD. */
  from: string;
  to: string;
}

/** Which experiment and window per-user values are of; `orgId` scopes shared metrics. */
export interface ValueScope {
  experimentId: string;
  orgId: string;
  window: WindowDays;
  /**
   * Where the window ends when not at a midnight: a stopped experiment's stop. Its last day is
   * then read as the fold made it of that day's events before the cut (`dailyRows`).
   */
  cut?: Date;
  /**
   * Every experiment of the org, read from the control database: the experiments an org-wide
   * CUPED covariate reads outcomes under. The event data may be on shards, which do not hold
   * the `experiments` table, so the list travels into their statements as a parameter.
   */
  orgExperimentIds?: readonly string[];
}

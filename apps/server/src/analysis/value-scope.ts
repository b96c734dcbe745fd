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
}

/** What the HTTP layer needs to know about authentication (mapped from ops config). */
export type AuthSettings = {
  readonly enabled: boolean;
};

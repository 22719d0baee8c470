/** One stream per rule: its definition and its state changes are decided together. */
export const alertStream = (alertId: string): string => `alert-${alertId}`;

/** A refused or failed call, carrying the server's own words (`{"detail", "code"}`) for the page to show. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, detail: string) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** The message a person should see for any thrown value. */
export const messageOf = (error: unknown): string => {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  if (error instanceof Error) return error.message;
  return String(error);
};

/** An error the edge answers as `{"detail": message, "code": code}` with this status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const notFound = (what: string, id: string): HttpError => new HttpError(404, 'not_found', `${what} not found: ${id}`);

/** A value as error messages quote it: JSON-quoted, cut at 100 characters. */
export const shown = (raw: string): string => JSON.stringify(raw.length > 100 ? `${raw.slice(0, 100)}…` : raw);

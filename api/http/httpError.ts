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

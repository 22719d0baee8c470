import { ApiError } from './apiError.ts';

type HttpOptions = {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly json?: unknown;
  readonly query?: Readonly<Record<string, string | number | boolean | null | undefined>>;
  readonly signal?: AbortSignal;
  /** Set for the auth endpoints themselves: a 401 there is an answer, not an expired session. */
  readonly noRefresh?: boolean;
};

let rootPath = '';
let onSessionLost: () => void = () => undefined;

/** Called once at start: where the API lives and what to do when the session cannot be renewed. */
export const configureHttp = (options: { rootPath: string; onSessionLost: () => void }) => {
  rootPath = options.rootPath;
  onSessionLost = options.onSessionLost;
};

/** Tells the app its session is over (it goes to the login page, keeping where the person was). */
export const sessionLost = (): void => onSessionLost();

export const apiUrl = (path: string): string => `${rootPath}${path}`;

/**
 * One refresh at a time: parallel calls that all got 401 wait for the same POST /auth/refresh
 * (the refresh token is single use, a second refresh would be refused and end the session).
 */
let refreshing: Promise<boolean> | null = null;
export const renewSession = (): Promise<boolean> => {
  refreshing ??= fetch(apiUrl('/auth/refresh'), { method: 'POST', credentials: 'same-origin' })
    .then((response) => response.ok)
    .catch(() => false)
    .finally(() => {
      setTimeout(() => (refreshing = null), 0);
    });
  return refreshing;
};

const send = (path: string, options: HttpOptions): Promise<Response> => {
  const url = new URL(apiUrl(path), window.location.origin);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== null && value !== undefined && value !== '') url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  return fetch(url, {
    method: options.method ?? 'GET',
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    credentials: 'same-origin',
    signal: options.signal,
  });
};

export const errorOf = async (response: Response): Promise<ApiError> => {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { detail?: unknown; code?: unknown; errors?: { message?: string }[] };
    const detail = typeof body.detail === 'string' ? body.detail : body.errors?.[0]?.message;
    if (detail) return new ApiError(response.status, typeof body.code === 'string' ? body.code : `http_${response.status}`, detail);
  } catch {
    // not JSON
  }
  return new ApiError(response.status, `http_${response.status}`, text.trim().slice(0, 300) || `${response.status} ${response.statusText}`);
};

/**
 * A call to the server's API. An expired access token is renewed once with the refresh cookie and
 * the call retried, so a page left open keeps working; when that fails the session is over.
 */
export const http = async <T>(path: string, options: HttpOptions = {}): Promise<T> => {
  let response = await send(path, options);
  if (response.status === 401 && !options.noRefresh) {
    if (await renewSession()) response = await send(path, options);
    if (response.status === 401) onSessionLost();
  }
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
};

import { randomBytes } from 'node:crypto';
import type { TestServer } from './testServer.ts';

/** A SERVICE_SECRET-shaped random value (≥ 32 chars, a digit, a lowercase letter). */
export const randomSecret = (): string => `s3cr${randomBytes(24).toString('hex')}`;

/** Auth on, with fresh secrets; spread into `startTestServer({ env })`. */
export const authEnv = (extra: Record<string, string> = {}) => {
  const secret = randomSecret();
  const adminSecret = randomSecret();
  return { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: secret, SERVICE_ADMIN_SECRET: adminSecret, ...extra };
};

export type Reply = {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly headers: Headers;
  /** `name=value` of each Set-Cookie, for a later `cookie` header. */
  readonly cookies: Record<string, string>;
  readonly setCookies: string[];
};

export type Credentials = { readonly bearer?: string; readonly cookie?: string };

export const callAs = async (
  server: Pick<TestServer, 'baseUrl'>,
  method: string,
  path: string,
  options: { readonly as?: Credentials; readonly json?: unknown; readonly headers?: Record<string, string> } = {},
): Promise<Reply> => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.as?.bearer !== undefined) headers.authorization = `Bearer ${options.as.bearer}`;
  if (options.as?.cookie !== undefined) headers.cookie = options.as.cookie;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    redirect: 'manual',
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON
  }
  const setCookies = res.headers.getSetCookie();
  const cookies: Record<string, string> = {};
  for (const line of setCookies) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    cookies[pair!.slice(0, at)] = pair!.slice(at + 1);
  }
  return { status: res.status, body, headers: res.headers, cookies, setCookies };
};

/** Logs in; returns the cookie header of the new session (throws unless 204). */
export const login = async (
  server: Pick<TestServer, 'baseUrl'>,
  email: string,
  password: string,
): Promise<Credentials & { access: string; refresh: string }> => {
  const reply = await callAs(server, 'POST', '/auth/login', { json: { email, password } });
  if (reply.status !== 204) throw new Error(`login as ${email}: ${reply.status} ${JSON.stringify(reply.body)}`);
  const access = reply.cookies['loupe-access-token']!;
  const refresh = reply.cookies['loupe-refresh-token']!;
  return { cookie: `loupe-access-token=${access}; loupe-refresh-token=${refresh}`, access, refresh };
};

/** Creates a local user through the REST API as `admin`; returns its global id. */
export const createUser = async (
  server: Pick<TestServer, 'baseUrl'>,
  admin: Credentials,
  user: { email: string; username: string; role: string; password?: string },
): Promise<string> => {
  const reply = await callAs(server, 'POST', '/v1/users', {
    as: admin,
    json: { user: { ...user, auth_method: 'LOCAL' }, send_welcome_email: false },
  });
  if (reply.status !== 201) throw new Error(`create ${user.email}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data.id as string;
};

/** Issues an API key (`/v1/user/api_keys` with a session, or `/v1/system/api_keys`); returns id and value. */
export const createKey = async (
  server: Pick<TestServer, 'baseUrl'>,
  as: Credentials,
  kind: 'user' | 'system',
  name = 'test key',
): Promise<{ id: string; key: string }> => {
  const reply = await callAs(server, 'POST', `/v1/${kind}/api_keys`, { as, json: { data: { name } } });
  if (reply.status !== 201) throw new Error(`create ${kind} key: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { id: reply.body.data.id, key: reply.body.data.key };
};

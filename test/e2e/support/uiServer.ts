import { ensureUiBuilt } from '../../../ui/scripts/ensureUiBuilt.ts';
import { authEnv } from '../../support/authClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

export type UiServer = TestServer & {
  /** SERVICE_ADMIN_SECRET when auth is on (for setting up fixtures through the API). */
  readonly adminSecret: string | null;
  /** The browser URL of an app path, e.g. `href('/projects')`. */
  href(path: string): string;
};

/**
 * The whole server in-process (random ports, fresh database of the selected backend) serving the
 * built UI. Builds ui/dist first when it is missing or older than the sources, so a browser test
 * never looks at a stale page.
 */
export const startUiServer = async (options: { auth: boolean; env?: Record<string, string> }): Promise<UiServer> => {
  await ensureUiBuilt({ log: (line) => console.log(line) });
  const env = options.auth ? authEnv(options.env) : { ...options.env };
  const server = await startTestServer({ env });
  return {
    ...server,
    adminSecret: options.auth ? (env as { SERVICE_ADMIN_SECRET: string }).SERVICE_ADMIN_SECRET : null,
    href: (path: string) => `${server.baseUrl}${path}`,
  };
};

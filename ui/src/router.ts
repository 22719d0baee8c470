import { createRouter, type HooksContext } from 'sv-router';
import { ApiError } from './lib/api/apiError.ts';
import { session } from './lib/identity/session.svelte.ts';
import NotFoundPage from './pages/NotFoundPage.svelte';
import RootRedirect from './pages/RootRedirect.svelte';
import AppShell from './shell/AppShell.svelte';
import PublicShell from './shell/PublicShell.svelte';

/** Where to come back to after signing in. */
const here = (context: HooksContext): string => {
  const search = new URLSearchParams(Object.entries(context.search).map(([k, v]) => [k, String(v)])).toString();
  return `${context.pathname}${search ? `?${search}` : ''}`;
};

/** Every page of the app shell needs to know who is asking; with auth on, a session. */
const requireSession = async (context: HooksContext): Promise<void> => {
  if (!session.loaded) {
    try {
      await session.load();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        throw navigate('/login', { search: { returnTo: here(context) }, replace: true });
      throw error;
    }
  }
  if (!session.signedIn) throw navigate('/login', { search: { returnTo: here(context) }, replace: true });
  if (session.viewer?.passwordNeedsReset) throw navigate('/change-password', { search: { returnTo: here(context) }, replace: true });
};

/** The sign-in pages make no sense with auth off, or for someone already signed in. */
const skipWhenSignedIn = async (context: HooksContext): Promise<void> => {
  if (!session.config.authEnabled) throw navigate('/projects', { replace: true });
  if (context.pathname === '/login' && session.loaded && session.signedIn && !session.viewer?.passwordNeedsReset) {
    throw navigate('/projects', { replace: true });
  }
};

/**
 * Every page. Pages are loaded on demand, so the first load carries only the shell and the page
 * asked for. Later issues add their sections under the app shell ('/datasets', '/prompts', ...).
 */
export const { p, navigate, isActive, route } = createRouter({
  '/login': { '/': () => import('./pages/identity/LoginPage.svelte'), layout: PublicShell, hooks: { beforeLoad: skipWhenSignedIn } },
  '/forgot-password': {
    '/': () => import('./pages/identity/ForgotPasswordPage.svelte'),
    layout: PublicShell,
    hooks: { beforeLoad: skipWhenSignedIn },
  },
  '/reset-password-with-token': {
    '/': () => import('./pages/identity/ResetPasswordPage.svelte'),
    layout: PublicShell,
    hooks: { beforeLoad: skipWhenSignedIn },
  },
  '/change-password': { '/': () => import('./pages/identity/ForcedPasswordChangePage.svelte'), layout: PublicShell },
  '/logout': { '/': () => import('./pages/identity/LoggedOutPage.svelte'), layout: PublicShell },
  '/': {
    layout: AppShell,
    hooks: { beforeLoad: requireSession },
    '/': RootRedirect,
    '/projects': () => import('./pages/projects/ProjectsPage.svelte'),
    // A project opens on its traces; trace and session pages hang below it.
    '/projects/:projectId': {
      '/': () => import('./pages/tracing/ProjectTracesPage.svelte'),
      '/traces': () => import('./pages/tracing/ProjectTracesPage.svelte'),
      '/spans': () => import('./pages/tracing/ProjectSpansPage.svelte'),
      '/sessions': () => import('./pages/tracing/ProjectSessionsPage.svelte'),
      '/users': () => import('./pages/tracing/ProjectUsersPage.svelte'),
      '/metrics': () => import('./pages/metrics/ProjectMetricsPage.svelte'),
      '/alerts': () => import('./pages/alerts/ProjectAlertsPage.svelte'),
      '/alerts/:alertId': () => import('./pages/alerts/AlertRulePage.svelte'),
      '/traces/:traceId': () => import('./pages/tracing/TraceDetailPage.svelte'),
      '/sessions/:sessionId': () => import('./pages/tracing/SessionDetailPage.svelte'),
    },
    // Stable links for other tools: look the object up, then land on its page.
    '/redirects': {
      '/projects/:id': () => import('./pages/redirects/RedirectPage.svelte'),
      '/traces/:id': () => import('./pages/redirects/RedirectPage.svelte'),
      '/spans/:id': () => import('./pages/redirects/RedirectPage.svelte'),
      '/sessions/:id': () => import('./pages/redirects/RedirectPage.svelte'),
    },
    '/datasets': {
      '/': () => import('./pages/datasets/DatasetsPage.svelte'),
      '/:datasetId': () => import('./pages/datasets/DatasetPage.svelte'),
      '/:datasetId/compare': () => import('./pages/datasets/ComparePage.svelte'),
      '/:datasetId/experiments/:experimentId': () => import('./pages/datasets/ExperimentPage.svelte'),
    },
    '/prompts': {
      '/': () => import('./pages/prompts/PromptsPage.svelte'),
      '/:name': () => import('./pages/prompts/PromptPage.svelte'),
    },
    '/playground': () => import('./pages/playground/PlaygroundPage.svelte'),
    '/settings': {
      '/': () => import('./pages/settings/SettingsPage.svelte'),
      '/:tab': () => import('./pages/settings/SettingsPage.svelte'),
    },
    '/profile': () => import('./pages/identity/ProfilePage.svelte'),
    '*': NotFoundPage,
  },
});

/**
 * Opens an app link as built by `p()` (it carries the root path and may carry a query), the way a
 * click on that link would: `navigate` takes a route path and its search apart, and would encode a
 * `?` into the path and put the root path in twice.
 */
export const openHref = (href: string): Promise<unknown> => {
  const url = new URL(href, window.location.origin);
  const root = session.config.rootPath;
  const path = root && url.pathname.startsWith(`${root}/`) ? url.pathname.slice(root.length) : url.pathname;
  return navigate(path as '/projects', { search: Object.fromEntries(url.searchParams), hash: url.hash || undefined });
};

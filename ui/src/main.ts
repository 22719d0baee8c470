import { mount } from 'svelte';
import App from './App.svelte';
import { configureHttp } from './lib/api/http.ts';
import { readConfig } from './lib/config.ts';
import { session } from './lib/identity/session.svelte.ts';
import { theme } from './lib/theme/theme.svelte.ts';
import './styles/app.css';

// Before anything renders, so a dark page does not flash light first.
theme.start();

const PUBLIC_PAGES = ['/login', '/forgot-password', '/reset-password-with-token', '/logout'];

const start = async () => {
  const config = await readConfig();
  session.config = config;
  // Imported after the config: the router reads nothing at import, but pages may.
  const { navigate, route } = await import('./router.ts');
  configureHttp({
    rootPath: config.rootPath,
    // The refresh token ran out (or was revoked) while the page was open: sign in again, then come back.
    onSessionLost: () => {
      const wasSignedIn = session.loaded;
      session.forget();
      const path = route.pathname;
      if (!wasSignedIn || PUBLIC_PAGES.some((page) => path.startsWith(page))) return;
      void navigate('/login', { search: { returnTo: `${path}${window.location.search}` } });
    },
  });
  // A ctrl/cmd/shift/middle click opens a new tab as usual: the router must not take it over.
  window.addEventListener(
    'click',
    (event) => {
      const modified = event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
      if (modified && (event.target as Element | null)?.closest?.('a[href]')) event.stopImmediatePropagation();
    },
    { capture: true },
  );
  mount(App, { target: document.getElementById('app')!, props: { rootPath: config.rootPath } });
};

void start();

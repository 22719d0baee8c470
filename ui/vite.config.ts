import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

/** The server `npm run dev:ui` talks to (hot reload here, API there). */
const server = 'http://localhost:6006';
const apiPaths = ['/v1', '/graphql', '/auth', '/ui-config.json', '/healthz', '/readyz', '/oauth2'];

export default defineConfig(({ command }) => ({
  root: import.meta.dirname,
  // Relative asset URLs: chunks find each other next to themselves, and the server rewrites the
  // two links in index.html, so one build works under any SERVICE_HOST_ROOT_PATH.
  // (`npm run dev:ui` serves from / so that deep links find the sources.)
  base: command === 'build' ? './' : '/',
  plugins: [svelte()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline module-preload polyfill: the Content-Security-Policy allows no inline script.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 400,
  },
  server: {
    port: 5173,
    proxy: Object.fromEntries(apiPaths.map((path) => [path, { target: server, changeOrigin: false }])),
  },
}));

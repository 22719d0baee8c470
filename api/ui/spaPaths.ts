/**
 * The app's own pages: on a reload or a pasted link, the server answers these with index.html
 * and the router in the page takes over. Any other path keeps its own answer (the API's JSON 404),
 * so /v1, /graphql, /auth, /healthz ... are never shadowed. A new top-level section of the UI adds
 * its path here.
 */
export const SPA_PATHS: readonly string[] = [
  '/',
  '/login',
  '/logout',
  '/forgot-password',
  '/reset-password-with-token',
  '/change-password',
  '/profile',
  '/projects{/*rest}',
  '/datasets{/*rest}',
  '/prompts{/*rest}',
  '/playground',
  '/settings{/*rest}',
  '/redirects/*rest',
];

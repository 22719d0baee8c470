import type { AppDeps } from '../appDeps.ts';
import type { RouteDef } from '../http/route.ts';
import { ldapLoginRoute } from './ldap/ldapLoginRoute.ts';
import { loginRoute } from './loginRoute.ts';
import { oauth2Routes } from './oauth2/oauth2Routes.ts';
import { logoutRoute } from './logoutRoute.ts';
import { passwordResetRoutes } from './passwordResetRoutes.ts';
import { refreshRoute } from './refreshRoute.ts';

/** `/auth/*`: mounted only with auth enabled, as in the reference (there is no identity otherwise). */
export const authRoutes = (deps: AppDeps): RouteDef[] =>
  deps.settings.auth.enabled
    ? [
        loginRoute(deps),
        logoutRoute(deps),
        refreshRoute(deps),
        ...passwordResetRoutes(deps),
        ...oauth2Routes(deps),
        ...ldapLoginRoute(deps),
      ]
    : [];

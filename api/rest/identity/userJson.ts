import type { UserRow } from '../../../projections/identity/userQueries.ts';
import { toGlobalId } from '../../http/globalId.ts';

export const userGlobalId = (userId: string): string => toGlobalId('User', userId);

/** A user as the reference's REST API shows it (LocalUser / OAuth2User / LDAPUser); unset fields are left out. */
export const userJson = (user: UserRow): Record<string, unknown> => {
  const common = {
    id: userGlobalId(user.userId),
    email: user.email ?? '',
    username: user.username,
    role: user.role,
    auth_method: user.authMethod,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
  switch (user.authMethod) {
    case 'LOCAL':
      return { ...common, password_needs_reset: user.passwordNeedsReset };
    case 'OAUTH2':
      return {
        ...common,
        ...(user.oauth2ClientId === null ? {} : { oauth2_client_id: user.oauth2ClientId }),
        ...(user.oauth2UserId === null ? {} : { oauth2_user_id: user.oauth2UserId }),
      };
    case 'LDAP':
      return common;
  }
};

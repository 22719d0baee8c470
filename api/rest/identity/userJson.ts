import type { UserRow } from '../../../projections/identity/userQueries.ts';
import { z } from 'zod';
import { toGlobalId } from '../../http/globalId.ts';
import { isoTime } from '../../http/responseSchemas.ts';

export const userGlobalId = (userId: string): string => toGlobalId('User', userId);

/** `userJson`'s shape: the fields every kind of user has (and the kind's own ones, optional). */
export const userSchema = z.object({
  id: z.string(),
  email: z.string(),
  username: z.string(),
  role: z.string(),
  auth_method: z.enum(['LOCAL', 'OAUTH2', 'LDAP']),
  created_at: isoTime,
  updated_at: isoTime,
  password_needs_reset: z.boolean().optional(),
  oauth2_client_id: z.string().optional(),
  oauth2_user_id: z.string().optional(),
});

/** A user as the reference's REST API shows it (LocalUser / OAuth2User / LDAPUser); unset fields are left out. */
export const userJson = (user: UserRow): z.infer<typeof userSchema> => {
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

import { http } from '../api/http.ts';

export type Role = 'SYSTEM' | 'ADMIN' | 'MEMBER' | 'VIEWER';
export type AuthMethod = 'LOCAL' | 'OAUTH2' | 'LDAP';

/** The signed-in person, as GET /v1/user shows them. */
export type Viewer = {
  readonly id: string;
  readonly email: string;
  readonly username: string;
  readonly role: Role;
  readonly authMethod: AuthMethod;
  /** The default admin's first login, or a password an admin set: must be changed before anything else. */
  readonly passwordNeedsReset: boolean;
};

type UserJson = {
  id?: string;
  email?: string;
  username?: string;
  role?: Role;
  auth_method: AuthMethod | 'ANONYMOUS';
  password_needs_reset?: boolean;
};

export const viewerFromJson = (user: UserJson): Viewer | null =>
  user.auth_method === 'ANONYMOUS'
    ? null
    : {
        id: user.id ?? '',
        email: user.email ?? '',
        username: user.username ?? '',
        role: user.role ?? 'VIEWER',
        authMethod: user.auth_method,
        passwordNeedsReset: user.password_needs_reset === true,
      };

/** null when auth is off (nobody is signed in, everybody may do everything but manage credentials). */
export const fetchViewer = async (): Promise<Viewer | null> => viewerFromJson((await http<{ data: UserJson }>('/v1/user')).data);

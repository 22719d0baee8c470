export { AUTH_METHODS, type AuthMethod } from './events.ts';

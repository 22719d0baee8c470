import jmespath from 'jmespath';
import type { AssignableRole } from '../../../domain/identity/roles.ts';
import { parseAssignableRole } from '../../../domain/identity/roles.ts';
import type { OAuth2ProviderSettings } from './oauth2Settings.ts';

export type Claims = Readonly<Record<string, unknown>>;

/** A JMESPath result, or undefined when the expression fails on these claims (e.g. contains() on a missing array). */
export const evaluatePath = (claims: Claims, expression: string): unknown => {
  try {
    const value = jmespath.search(claims, expression);
    return value === null ? undefined : value;
  } catch {
    return undefined;
  }
};

const scalar = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

/** Groups as a list of strings: a string is one group, a list keeps its scalar items, anything else is none. */
export const groupsOf = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.map(scalar).filter((g): g is string => g !== undefined);
  const one = scalar(value);
  return one === undefined ? [] : [one];
};

/** One role value: a scalar, or a list's first scalar item; blank is none. */
export const roleValueOf = (value: unknown): string | undefined => {
  const raw = Array.isArray(value) ? scalar(value[0]) : scalar(value);
  const trimmed = raw?.trim();
  return trimmed === '' ? undefined : trimmed;
};

/** The claim values that decide whether the ID token alone is enough (else userinfo is fetched). */
export const needsUserinfo = (provider: OAuth2ProviderSettings, claims: Claims): boolean => {
  const email = evaluatePath(claims, provider.emailAttributePath);
  if (typeof email !== 'string' || email.trim() === '') return true;
  if (provider.groupsAttributePath !== null && groupsOf(evaluatePath(claims, provider.groupsAttributePath)).length === 0) return true;
  if (provider.roleAttributePath !== null && roleValueOf(evaluatePath(claims, provider.roleAttributePath)) === undefined) return true;
  return false;
};

export type RoleDecision =
  /** No role path: the provider says nothing (new users VIEWER, existing keep theirs). */
  | { readonly kind: 'none' }
  | { readonly kind: 'role'; readonly role: AssignableRole }
  /** Strict and the value is missing, unmapped or invalid. */
  | { readonly kind: 'denied' };

/**
 * The seed's role rules: with a mapping the provider value is looked up exactly; without one it
 * must itself name ADMIN, MEMBER or VIEWER (any case). Anything else is VIEWER, or a refusal when
 * strict. SYSTEM is never the answer (not assignable).
 */
export const decideRole = (provider: OAuth2ProviderSettings, claims: Claims): RoleDecision => {
  if (provider.roleAttributePath === null) return { kind: 'none' };
  const value = roleValueOf(evaluatePath(claims, provider.roleAttributePath));
  const role =
    value === undefined
      ? null
      : provider.roleMapping.length > 0
        ? (provider.roleMapping.find(([key]) => key === value)?.[1] ?? null)
        : parseAssignableRole(value);
  if (role !== null) return { kind: 'role', role };
  return provider.roleAttributeStrict ? { kind: 'denied' } : { kind: 'role', role: 'VIEWER' };
};

/** Whether the groups let the user in (always, without a group rule). */
export const inAllowedGroup = (provider: OAuth2ProviderSettings, claims: Claims): boolean => {
  if (provider.groupsAttributePath === null) return true;
  const groups = groupsOf(evaluatePath(claims, provider.groupsAttributePath));
  return groups.some((g) => provider.allowedGroups.includes(g));
};

/** The email the email path yields, trimmed and lower-cased, or null when missing or not an address. */
export const emailOf = (provider: OAuth2ProviderSettings, claims: Claims): string | null => {
  const value = evaluatePath(claims, provider.emailAttributePath);
  if (typeof value !== 'string') return null;
  const email = value.trim().toLowerCase();
  return /^[^@\s]+@[^@\s]+$/.test(email) ? email : null;
};

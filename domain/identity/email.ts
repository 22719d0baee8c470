/** Emails are compared and stored trimmed and lower-cased, wherever they come from. */
export const normaliseEmail = (raw: string): string => raw.trim().toLowerCase();

// The reference accepts any `local@domain.tld` without whitespace; stricter rules would refuse
// addresses its clients create (e.g. `admin@localhost` is built in and never validated).
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export const isValidEmail = (email: string): boolean => EMAIL.test(email);

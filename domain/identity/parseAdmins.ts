import { isValidEmail, normaliseEmail } from './email.ts';

export type AdminEntry = { readonly username: string; readonly email: string };

/**
 * The rule for `SERVICE_ADMINS` (`username=email;username=email`): entries split on `;`, blanks
 * skipped, the LAST `=` separates username from email (usernames may contain `=`), emails trimmed,
 * lower-cased and validated; a repeated username or email is an error. Throws an Error whose
 * message names the variable, so startup can stop with it.
 */
export const parseAdmins = (value: string, variable = 'SERVICE_ADMINS'): AdminEntry[] => {
  const entries: AdminEntry[] = [];
  const usernames = new Set<string>();
  const emails = new Set<string>();
  for (const raw of value.split(';')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const at = pair.lastIndexOf('=');
    const username = at < 0 ? '' : pair.slice(0, at).trim();
    if (at < 0 || username === '') {
      throw new Error(`Invalid format in ${variable}: '${pair}'. Expected format: 'username=email'`);
    }
    const email = normaliseEmail(pair.slice(at + 1));
    if (!isValidEmail(email)) throw new Error(`Invalid email in ${variable}: '${email}'`);
    if (usernames.has(username)) throw new Error(`Duplicate username in ${variable}: '${username}'`);
    if (emails.has(email)) throw new Error(`Duplicate email in ${variable}: '${email}'`);
    usernames.add(username);
    emails.add(email);
    entries.push({ username, email });
  }
  return entries;
};

import type { MailMessage } from './mailer.ts';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The reset mail; the link sits in `id="reset-url"`, where the reference's tests look for it. */
export const passwordResetMail = (to: string, link: string, expiryMinutes: number): MailMessage => ({
  to,
  subject: '[Loupe] Password Reset Request',
  text: `Someone asked to reset the password of your Loupe account. Open this link within ${expiryMinutes} minutes to choose a new one:\n\n${link}\n\nIf it was not you, ignore this mail: your password is unchanged.\n`,
  html:
    `<p>Someone asked to reset the password of your Loupe account.</p>` +
    `<p><a id="reset-url" href="${escapeHtml(link)}">Choose a new password</a> (valid for ${expiryMinutes} minutes).</p>` +
    `<p>If it was not you, ignore this mail: your password is unchanged.</p>`,
});

/** The welcome mail for a user an admin created; `id="welcome-url"` links to the app. */
export const welcomeMail = (to: string, username: string, appUrl: string): MailMessage => ({
  to,
  subject: '[Loupe] Welcome to Loupe',
  text: `Hello ${username}, an account was created for you on Loupe: ${appUrl}\n`,
  html: `<p>Hello ${escapeHtml(username)}, an account was created for you on <a id="welcome-url" href="${escapeHtml(appUrl)}">Loupe</a>.</p>`,
});

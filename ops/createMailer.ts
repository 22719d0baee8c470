import nodemailer from 'nodemailer';
import type { Mailer } from '../api/identity/mailer.ts';
import type { SmtpConfig } from './config.ts';

/** Mail over SMTP with the configured TLS mode: STARTTLS required, implicit TLS, or plaintext (tests). */
export const createMailer = (smtp: SmtpConfig): Mailer => {
  const transport = nodemailer.createTransport({
    host: smtp.hostname,
    port: smtp.port,
    secure: smtp.tlsMode === 'tls',
    requireTLS: smtp.tlsMode === 'starttls',
    ignoreTLS: smtp.tlsMode === 'none',
    auth: smtp.username === '' ? undefined : { user: smtp.username, pass: smtp.password },
    tls: { rejectUnauthorized: smtp.validateCerts },
    // nodemailer's own logger stays off: it would print envelopes and, at debug level, message bodies.
    logger: false,
  });
  return {
    send: async (message) => {
      await transport.sendMail({ from: smtp.mailFrom, to: message.to, subject: message.subject, text: message.text, html: message.html });
    },
  };
};

/** A mail to send; the transport (nodemailer over SMTP) is built by ops from the SMTP config. */
export type MailMessage = { readonly to: string; readonly subject: string; readonly html: string; readonly text: string };

export type Mailer = { readonly send: (message: MailMessage) => Promise<void> };

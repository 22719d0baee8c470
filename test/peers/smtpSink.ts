import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = {
  readonly from: string;
  readonly to: readonly string[];
  /** The authenticated SMTP user. */
  readonly user: string | undefined;
  /** The whole message as sent (headers and MIME body). */
  readonly raw: string;
};

/**
 * A real SMTP server in-process (plaintext, AUTH PLAIN/LOGIN accepted for the given credentials):
 * what Loupe's nodemailer transport talks to in the tests.
 */
export const startSmtpSink = async (credentials: { readonly username: string; readonly password: string }) => {
  const mails: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, done) => {
      if (auth.username === credentials.username && auth.password === credentials.password) done(null, { user: auth.username });
      else done(new Error('Invalid username or password'));
    },
    onData: (stream, session, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        waiters.splice(0).forEach((wake) => wake());
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    /** Resolves with the `n`th mail (1-based) once it has arrived. */
    nth: async (n: number, timeoutMs = 5000): Promise<ReceivedMail> => {
      const until = Date.now() + timeoutMs;
      while (mails.length < n) {
        if (Date.now() > until) throw new Error(`mail ${n} did not arrive (got ${mails.length})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return mails[n - 1]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Undoes quoted-printable (what nodemailer uses for mostly-ASCII text parts). */
const decodeQuotedPrintable = (text: string): string =>
  text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The decoded body of the message's text/html part. */
export const htmlPart = (raw: string): string => {
  const start = raw.search(/Content-Type: text\/html/i);
  if (start < 0) throw new Error('no text/html part');
  const part = raw.slice(start);
  const headerEnd = part.search(/\r?\n\r?\n/);
  const headers = part.slice(0, headerEnd);
  const body = part
    .slice(headerEnd)
    .replace(/^\r?\n\r?\n/, '')
    .split(/\r?\n--/)[0]!;
  if (/Content-Transfer-Encoding: base64/i.test(headers)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/Content-Transfer-Encoding: quoted-printable/i.test(headers)) return decodeQuotedPrintable(body);
  return body;
};

export const subjectOf = (raw: string): string => /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? '';

/** The href of the element with this id, entity-decoded. */
export const hrefOf = (html: string, id: string): string => {
  const match = new RegExp(`id="${id}"[^>]*href="([^"]*)"`).exec(html) ?? new RegExp(`href="([^"]*)"[^>]*id="${id}"`).exec(html);
  if (match === null) throw new Error(`no element with id="${id}" and an href`);
  return match[1]!.replace(/&amp;/g, '&');
};

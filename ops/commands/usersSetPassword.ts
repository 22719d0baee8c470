import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { normaliseEmail } from '../../domain/identity/email.ts';
import { handleUserCommand } from '../../domain/identity/handleUserCommand.ts';
import { loadUser } from '../../domain/identity/loadUser.ts';
import { passwordProblem, passwordRuleFor } from '../../domain/identity/passwordPolicy.ts';
import { createPasswordHasher } from '../../domain/identity/passwords.ts';
import { uniqueValueHolder } from '../../domain/identity/uniqueValues.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

/** Asks on the terminal without echoing what is typed. */
const prompt = (question: string): Promise<string> =>
  new Promise((resolve) => {
    process.stderr.write(question);
    const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
    const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
    rl.question('', (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });

/** The first line of stdin, for scripts: `printf '%s\n' "$PW" | loupe users set-password EMAIL`. */
const readFirstLine = async (): Promise<string> => {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
};

const readNewPassword = async (): Promise<string | null> => {
  if (!process.stdin.isTTY) return readFirstLine();
  const first = await prompt('New password: ');
  const again = await prompt('Repeat it: ');
  return first === again ? first : null;
};

/**
 * `loupe users set-password EMAIL`: recovers a local account without SMTP. Appends
 * PasswordChanged (via `operator`) to the user's stream, which also ends their sessions, clears a
 * lockout and the must-change flag. The password is read from the terminal or stdin, never from
 * the command line (it would land in shell history and the process list).
 */
export const run: CommandRun = async (config, args) => {
  const email = normaliseEmail(args[0] ?? '');
  const password = await readNewPassword();
  if (password === null) {
    process.stderr.write('loupe users set-password: the two passwords differ; nothing changed\n');
    return 1;
  }
  const problem = passwordProblem(password, passwordRuleFor(config.auth.strongPasswordPolicy));
  if (problem !== null) {
    process.stderr.write(`loupe users set-password: ${problem}; nothing changed\n`);
    return 1;
  }
  const log = await openEventLog(config);
  try {
    const userId = await uniqueValueHolder(log.store, 'email', email);
    const user = userId === null ? null : await loadUser(log.store, userId);
    if (userId === null || user?.status !== 'active' || user.profile === null) {
      process.stderr.write(`loupe users set-password: no user with the email ${email}\n`);
      return 1;
    }
    if (user.profile.authMethod !== 'LOCAL') {
      process.stderr.write(`loupe users set-password: ${email} signs in through ${user.profile.authMethod}, which holds its password\n`);
      return 1;
    }
    const passwordHash = await createPasswordHasher().hash(password);
    await handleUserCommand(
      log.store,
      { type: 'ChangePassword', userId, passwordHash, by: { kind: 'operator' }, now: new Date().toISOString() },
      { actor: 'operator', requestId: null },
    );
    process.stdout.write(`password of ${email} changed; their sessions have ended\n`);
    return 0;
  } finally {
    await log.close();
  }
};

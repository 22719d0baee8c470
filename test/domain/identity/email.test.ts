import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isValidEmail, normaliseEmail } from '../../../domain/identity/email.ts';
import { parseAdmins } from '../../../domain/identity/parseAdmins.ts';

test('emails are trimmed and lower-cased', () => {
  assert.is(normaliseEmail('  Alice@Example.COM '), 'alice@example.com');
});

test('an email is something@domain.tld without whitespace', () => {
  assert.ok(isValidEmail('a@b.co'));
  assert.not.ok(isValidEmail('a@b'));
  assert.not.ok(isValidEmail('a b@c.de'));
  assert.not.ok(isValidEmail('@c.de'));
  assert.not.ok(isValidEmail('a@@c.de'));
});

test('SERVICE_ADMINS: pairs split on ; and the last =, emails normalised, blanks skipped', () => {
  assert.equal(parseAdmins(' Ann=ANN@x.io ; ;a=b=bob@x.io;Carl Jr, III = carl@x.io;'), [
    { username: 'Ann', email: 'ann@x.io' },
    { username: 'a=b', email: 'bob@x.io' },
    { username: 'Carl Jr, III', email: 'carl@x.io' },
  ]);
  assert.equal(parseAdmins(''), []);
});

test('SERVICE_ADMINS: unparsable entries and invalid emails stop startup with a message naming the variable', () => {
  assert.throws(() => parseAdmins('John; Adams=x@y.com'), /Invalid format in SERVICE_ADMINS: 'John'/);
  assert.throws(() => parseAdmins('=x@y.com'), /Invalid format in SERVICE_ADMINS/);
  assert.throws(() => parseAdmins('ann=not-an-email'), /Invalid email in SERVICE_ADMINS: 'not-an-email'/);
  assert.throws(() => parseAdmins('ann=a@x.io;ann=b@x.io'), /Duplicate username in SERVICE_ADMINS/);
  assert.throws(() => parseAdmins('ann=a@x.io;bob=A@x.io'), /Duplicate email in SERVICE_ADMINS/);
});

test.run();

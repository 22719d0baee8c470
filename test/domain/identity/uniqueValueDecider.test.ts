import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { UniqueValueEvent } from '../../../domain/identity/uniqueValueDecider.ts';
import { uniqueValueDecider } from '../../../domain/identity/uniqueValueDecider.ts';
import { uniqueValueStream } from '../../../domain/identity/uniqueValueStream.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';
import { t } from './fixtures.ts';

const { given } = deciderSpec(uniqueValueDecider);

const reserved = (userId: string, at = 0): UniqueValueEvent => ({
  type: 'UniqueValueReserved',
  data: { kind: 'email', value: 'a@x.io', userId, at: t(at) },
});
const released = (userId: string, at = 0): UniqueValueEvent => ({
  type: 'UniqueValueReleased',
  data: { kind: 'email', value: 'a@x.io', userId, at: t(at) },
});
const reserve = (userId: string, at = 0, takeOverFrom?: string) =>
  ({ type: 'ReserveUniqueValue', kind: 'email', value: 'a@x.io', userId, now: t(at), ...(takeOverFrom ? { takeOverFrom } : {}) }) as const;
const release = (userId: string, at = 0) => ({ type: 'ReleaseUniqueValue', kind: 'email', value: 'a@x.io', userId, now: t(at) }) as const;

test('the first to reserve a value holds it', () => {
  given([])
    .when(reserve('u1'))
    .then([reserved('u1')]);
  given([reserved('u1')])
    .when(reserve('u2'))
    .thenThrows('email_taken');
});

test('reserving again for the holder changes nothing', () => {
  given([reserved('u1')])
    .when(reserve('u1'))
    .then([]);
});

test('a released value can be reserved again', () => {
  given([reserved('u1')])
    .when(release('u1', 5))
    .then([released('u1', 5)]);
  given([reserved('u1'), released('u1')])
    .when(reserve('u2', 6))
    .then([reserved('u2', 6)]);
});

test('only the holder releases', () => {
  given([reserved('u1')])
    .when(release('u2'))
    .then([]);
  given([]).when(release('u2')).then([]);
});

test('a value is taken over only from the holder the caller judged abandoned', () => {
  given([reserved('u1')])
    .when(reserve('u2', 9, 'u1'))
    .then([released('u1', 9), reserved('u2', 9)]);
  given([reserved('u3')])
    .when(reserve('u2', 9, 'u1'))
    .thenThrows('email_taken');
});

test('the username conflict has its own code and message', () => {
  given([{ type: 'UniqueValueReserved', data: { kind: 'username', value: 'ann', userId: 'u1', at: t(0) } }])
    .when({ type: 'ReserveUniqueValue', kind: 'username', value: 'ann', userId: 'u2', now: t(1) })
    .thenThrows('username_taken');
});

test('one stream per normalised value: case and surrounding spaces do not make a new value', () => {
  assert.is(uniqueValueStream('email', ' Ann@X.io '), uniqueValueStream('email', 'ann@x.io'));
  assert.is(uniqueValueStream('username', 'Ann'), uniqueValueStream('username', ' ann'));
  assert.is.not(uniqueValueStream('username', 'ann'), uniqueValueStream('email', 'ann'));
  assert.match(uniqueValueStream('email', 'ann@x.io'), /^email-[0-9a-f]{64}$/);
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertRule } from '../../../domain/alerts/alertRule.ts';
import { alertRuleFromJson, type AlertRuleLimits } from '../../../domain/alerts/alertRuleInput.ts';
import { openSlackUrl, openWebhookSecret, sealDestinations } from '../../../domain/alerts/sealDestinations.ts';
import { DomainError } from '../../../domain/errors.ts';
import { createKeyring } from '../../../domain/secrets/crypto.ts';

const ring = createKeyring([{ keyId: 'k1', secret: 'a-server-secret-of-32-characters-1' }]);
const limits: AlertRuleLimits = { defaultEvaluationIntervalSeconds: 60, allowedUrls: [] };
const SLACK = 'https://hooks.slack.com/services/T0/B0/slack-token';
const OTHER_SLACK = 'https://hooks.slack.com/services/T1/B1/other-token';
const rule = {
  name: 'Errors up',
  metric: 'error_rate',
  window_seconds: 20,
  condition: { op: '>', threshold: 0.2 },
  destinations: [
    { type: 'webhook', url: 'https://hooks.example.com/loupe', secret: 'whsec' },
    { type: 'slack', url: SLACK },
  ],
};

/** given a request (and the rule stored before it), then the rule as the log would keep it. */
const sealed = (body: unknown, stored?: AlertRule, alertId = 'a1'): AlertRule =>
  sealDestinations(ring, alertId, alertRuleFromJson(body, limits, stored), stored);

const refused = (run: () => unknown, detail: RegExp) => {
  try {
    run();
  } catch (error) {
    assert.instance(error, DomainError);
    assert.match((error as DomainError).message, detail);
    return;
  }
  assert.unreachable('expected the rule to be refused');
};

type Slack = Extract<AlertRule['destinations'][number], { type: 'slack' }>;
const slackOf = (r: AlertRule, n = 0): Slack => r.destinations.filter((d): d is Slack => d.type === 'slack')[n]!;

test('a Slack URL is sealed: the rule holds its host only in clear, and it opens to the URL at send time (for its own rule only)', () => {
  const r = sealed(rule);
  const slack = slackOf(r);
  assert.ok('sealedUrl' in slack && slack.host === 'hooks.slack.com', JSON.stringify(slack));
  assert.not.ok(JSON.stringify(r).includes('slack-token'));
  assert.not.ok(JSON.stringify(r).includes('whsec'));
  assert.is(openSlackUrl(ring, 'a1', slack), SLACK);
  assert.throws(() => openSlackUrl(ring, 'a2', slack));
  const webhook = r.destinations[0]!;
  if (webhook.type !== 'webhook') assert.unreachable('the webhook comes first');
  else assert.is(openWebhookSecret(ring, 'a1', webhook), 'whsec');
});

test('a change without Slack URLs keeps the stored ones, each in its place among the Slack destinations', () => {
  const stored = sealed({ ...rule, destinations: [...rule.destinations, { type: 'slack', url: OTHER_SLACK }] });
  const asRead = [
    { type: 'webhook', url: 'https://hooks.example.com/loupe', secret_set: true },
    { type: 'slack', url_set: true, host: 'hooks.slack.com' },
    { type: 'slack', url_set: true, host: 'hooks.slack.com' },
  ];
  const sentBack = sealed({ destinations: asRead }, stored);
  assert.equal(sentBack.destinations, stored.destinations);
  assert.equal(sealed({ name: 'Renamed' }, stored).destinations, stored.destinations);
  // The webhook gone, the Slack destinations keep their order among themselves.
  const withoutWebhook = sealed({ destinations: asRead.slice(1) }, stored);
  assert.equal(
    [openSlackUrl(ring, 'a1', slackOf(withoutWebhook, 0)), openSlackUrl(ring, 'a1', slackOf(withoutWebhook, 1))],
    [SLACK, OTHER_SLACK],
  );
  // A URL sent replaces the stored one.
  assert.is(openSlackUrl(ring, 'a1', slackOf(sealed({ destinations: [{ type: 'slack', url: OTHER_SLACK }] }, stored))), OTHER_SLACK);
});

test('a new Slack destination without its URL is refused naming destinations.N.url; a URL sent is checked like any destination', () => {
  refused(() => sealed({ ...rule, destinations: [{ type: 'slack' }] }), /^destinations\.0\.url: is required/);
  const stored = sealed(rule);
  refused(() => sealed({ destinations: [{ type: 'slack' }, { type: 'slack' }] }, stored), /^destinations\.1\.url: is required/);
  refused(() => sealed({ destinations: [{ type: 'slack', url: 'http://127.0.0.1:9/hook' }] }, stored), /^destinations\.0\.url: .*loopback/);
  refused(() => sealed({ destinations: [{ type: 'slack', url: '' }] }, stored), /^destinations\.0\.url: must not be empty/);
});

test("an old event's plaintext Slack URL still opens, and the rule's next change seals it", () => {
  const old: AlertRule = { ...sealed({ ...rule, destinations: [] }), destinations: [{ type: 'slack', url: SLACK }] };
  assert.is(openSlackUrl(ring, 'a1', slackOf(old)), SLACK);
  const changed = sealed({ name: 'Renamed' }, old);
  const slack = slackOf(changed);
  assert.ok('sealedUrl' in slack && slack.host === 'hooks.slack.com', JSON.stringify(slack));
  assert.not.ok(JSON.stringify(changed).includes('slack-token'));
  assert.is(openSlackUrl(ring, 'a1', slack), SLACK);
});

test.run();

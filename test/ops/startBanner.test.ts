import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../ops/config.ts';
import { startBanner } from '../../ops/startBanner.ts';

const ports = { http: 6006, otlpHttp: 4318, grpc: 4317 };

test('with auth on, PostgreSQL and a separate event log, the banner says so and where to sign in', () => {
  const config = loadConfig({
    SERVICE_ENABLE_AUTH: 'true',
    SERVICE_SECRET: 'a-secret-of-32-chars-or-more-1234567',
    SERVICE_SQL_DATABASE_URL: 'postgres://loupe:pw@db:5432/loupe',
    SERVICE_EVENTSTORE_URL: 'kurrentdb://esdb:2113?tls=false',
    SERVICE_LOG_LEVEL: 'debug',
  });
  const banner = startBanner({
    config,
    url: 'http://localhost:6006',
    ports,
    database: 'postgres://loupe:***@db:5432/loupe',
    eventLog: 'EventStoreDB at kurrentdb://esdb:2113',
  });
  assert.match(banner, /Loupe is running at http:\/\/localhost:6006\n/);
  assert.match(
    banner,
    /OTLP traces\s+http:\/\/localhost:4318\/v1\/traces \(also http:\/\/localhost:6006\/v1\/traces\), gRPC localhost:4317/,
  );
  assert.match(banner, /Database\s+PostgreSQL postgres:\/\/loupe:\*\*\*@db:5432\/loupe/);
  assert.match(banner, /Event log\s+EventStoreDB at kurrentdb:\/\/esdb:2113/);
  assert.match(banner, /Auth\s+on: sign in at http:\/\/localhost:6006\/login/);
  assert.match(banner, /Logs\s+debug, one line per request/);
  assert.not.ok(banner.includes(':pw@'), 'no password');
});

test.run();

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Attribute, Change, Client } from 'ldapts';

const run = promisify(execFile);

export const BASE_DN = 'dc=example,dc=com';
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const ADMIN_PASSWORD = 'admin-password-1';

export type SlapdPeer = {
  readonly host: '127.0.0.1';
  /** Plain LDAP (StartTLS offered). */
  readonly port: number;
  /** LDAPS (TLS from the first byte). */
  readonly ldapsPort: number;
  /** PEM of the self-signed CA that issued the server certificate (SAN 127.0.0.1 and localhost). */
  readonly caFile: string;
  /** PEM of a certificate from another CA, which must not verify the server. */
  readonly otherCaFile: string;
  /** A client certificate and key the CA issued (for a server started with `requireClientCert`). */
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** Adds entries as the directory manager (attribute values as strings or lists). */
  add(dn: string, attributes: Record<string, string | string[]>): Promise<void>;
  /** Adds or deletes values of one attribute (e.g. a group's `member`). */
  modify(dn: string, operation: 'add' | 'delete', attribute: string, values: string[]): Promise<void>;
  close(): Promise<void>;
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });

/** A CA and a server certificate it signed, made with the openssl CLI (EC keys: quick). */
const makeCertificates = async (dir: string): Promise<void> => {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const name of ['ca', 'other-ca']) {
    await run('openssl', [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      join(dir, `${name}.key`),
      '-out',
      join(dir, `${name}.crt`),
      '-days',
      '2',
      '-subj',
      `/CN=Loupe test ${name}`,
    ]);
  }
  await run('openssl', [
    'req',
    '-new',
    ...ec,
    '-keyout',
    join(dir, 'server.key'),
    '-out',
    join(dir, 'server.csr'),
    '-subj',
    '/CN=localhost',
  ]);
  await writeFile(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await run('openssl', [
    'req',
    '-new',
    ...ec,
    '-keyout',
    join(dir, 'client.key'),
    '-out',
    join(dir, 'client.csr'),
    '-subj',
    '/CN=loupe-client',
  ]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    join(dir, 'client.csr'),
    '-CA',
    join(dir, 'ca.crt'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    join(dir, 'client.crt'),
  ]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    join(dir, 'server.csr'),
    '-CA',
    join(dir, 'ca.crt'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    join(dir, 'san.cnf'),
    '-out',
    join(dir, 'server.crt'),
  ]);
};

const slapdConf = (dir: string, requireClientCert: boolean) => `
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
pidfile ${dir}/slapd.pid
TLSCACertificateFile ${dir}/ca.crt
TLSCertificateFile ${dir}/server.crt
TLSCertificateKeyFile ${dir}/server.key
TLSVerifyClient ${requireClientCert ? 'demand' : 'never'}
database mdb
maxsize 16777216
suffix "${BASE_DN}"
rootdn "${ADMIN_DN}"
rootpw ${ADMIN_PASSWORD}
directory ${dir}/data
overlay memberof
access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read
`;

/**
 * A real OpenLDAP server (the Debian `slapd` package) on random loopback ports, with its own
 * config file and database in a temp directory: `dc=example,dc=com`, the memberof overlay (so
 * groupOfNames membership shows up as memberOf on the user), StartTLS and LDAPS with a fresh
 * self-signed CA. Empty apart from the base entry and `ou=people` / `ou=groups`; tests add the
 * rest with `add`.
 */
export const startSlapd = async (options: { readonly requireClientCert?: boolean } = {}): Promise<SlapdPeer> => {
  const requireClientCert = options.requireClientCert ?? false;
  const dir = await mkdtemp(join(tmpdir(), 'loupe-slapd-'));
  await mkdir(join(dir, 'data'));
  await makeCertificates(dir);
  await writeFile(join(dir, 'slapd.conf'), slapdConf(dir, requireClientCert));
  const [port, ldapsPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    '/usr/sbin/slapd',
    ['-f', join(dir, 'slapd.conf'), '-h', `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${ldapsPort}/`, '-d', '0'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 15_000;
  while (!(await accepting(port)) || !(await accepting(ldapsPort))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`slapd did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // With client certificates demanded, even the manager connects over LDAPS with one.
  const managerClient = async () =>
    requireClientCert
      ? new Client({
          url: `ldaps://127.0.0.1:${ldapsPort}`,
          tlsOptions: {
            ca: await readFile(join(dir, 'ca.crt')),
            cert: await readFile(join(dir, 'client.crt')),
            key: await readFile(join(dir, 'client.key')),
          },
        })
      : new Client({ url: `ldap://127.0.0.1:${port}` });
  const asManager = async (work: (client: Client) => Promise<void>) => {
    const client = await managerClient();
    try {
      await client.bind(ADMIN_DN, ADMIN_PASSWORD);
      await work(client);
    } finally {
      await client.unbind();
    }
  };
  const add = (dn: string, attributes: Record<string, string | string[]>) => asManager((client) => client.add(dn, attributes));
  const modify = (dn: string, operation: 'add' | 'delete', attribute: string, values: string[]) =>
    asManager((client) => client.modify(dn, new Change({ operation, modification: new Attribute({ type: attribute, values }) })));
  await add(BASE_DN, { objectClass: ['top', 'dcObject', 'organization'], dc: 'example', o: 'Example' });
  await add(`ou=people,${BASE_DN}`, { objectClass: ['organizationalUnit'], ou: 'people' });
  await add(`ou=groups,${BASE_DN}`, { objectClass: ['organizationalUnit'], ou: 'groups' });

  return {
    host: '127.0.0.1',
    port,
    ldapsPort,
    caFile: join(dir, 'ca.crt'),
    otherCaFile: join(dir, 'other-ca.crt'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
    add,
    modify,
    close: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
};

import { afterAll, describe, expect, it } from 'vitest';
import { exited, runTimemark, startTimemark } from '../helpers/child-process.js';
import { makeTempDir } from '../helpers/local-service.js';
import { eventually } from '../webhook-server/helpers/bridge.js';
import { githubDelivery } from '../webhook-server/helpers/github.js';
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../webhook-server/helpers/postgres.js';

/** Every secret a user configures, each distinct, so that a leak names its source. */
const SECRETS = {
  serviceToken: 'xaat-configured-service-token-0123456789',
  urlPassword: 'url-password-never-printed',
  githubSecret: 'github-secret-never-printed',
  gitlabSecret: 'gitlab-secret-never-printed',
  argocdSecret: 'argocd-secret-never-printed',
  adminToken: 'admin-token-never-printed-0123456789',
  databasePassword: 'database-password-never-printed',
};

function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
}

function expectNoSecret(output: string): void {
  for (const [name, secret] of Object.entries(SECRETS)) expect(output, `${name} appears in the output`).not.toContain(secret);
}

const schema = uniqueSchema('secrets');
afterAll(() => dropSchema(schema));

describe('the output of a run never contains a configured secret', () => {
  it('serve and bridge: banners, logs at debug level and error messages', { timeout: 60_000 }, async () => {
    // Each process is stopped in the finally, and so even when the other fails to start.
    let service: Awaited<ReturnType<typeof startTimemark>> | undefined;
    let bridge: Awaited<ReturnType<typeof startTimemark>> | undefined;
    const extra: string[] = [];
    try {
      service = await startTimemark(['serve', '--port', '0', '--data-dir', makeTempDir('secrets-service')], /listening on (http:\/\/127\.0\.0\.1:(\d+))/, {
        TIMEMARK_TOKENS: SECRETS.serviceToken,
        TIMEMARK_LOG_LEVEL: 'debug',
      });
      const serviceUrl = service.match[1] as string;
      const bridgeEnv = {
        TIMEMARK_URL: `http://timemark:${SECRETS.urlPassword}@127.0.0.1:${service.match[2]}`,
        TIMEMARK_TOKEN: SECRETS.serviceToken,
        TIMEMARK_DATASETS: 'secrets',
        GITHUB_WEBHOOK_SECRET: SECRETS.githubSecret,
        GITLAB_WEBHOOK_SECRET: SECRETS.gitlabSecret,
        ARGOCD_WEBHOOK_SECRET: SECRETS.argocdSecret,
        TIMEMARK_BRIDGE_ADMIN_TOKEN: SECRETS.adminToken,
        DATABASE_URL: withPassword(TEST_DATABASE_URL, SECRETS.databasePassword),
        TIMEMARK_BRIDGE_DATABASE_SCHEMA: schema,
        TIMEMARK_BRIDGE_LOG_LEVEL: 'debug',
      };
      bridge = await startTimemark(['bridge', '--port', '0', '--data-dir', makeTempDir('secrets-bridge')], /Timemark bridge listening on (http:\/\/\S+)/, bridgeEnv);
      const bridgeUrl = bridge.match[1] as string;
      const database = new URL(TEST_DATABASE_URL);
      expect(bridge.output()).toMatch(/service: +http:\/\/127\.0\.0\.1:\d+\n/);
      expect(bridge.output()).toContain(`PostgreSQL at postgres://${database.host}${database.pathname}`);

      // A delivery that is applied, forged ones, admin calls right and wrong, probes.
      const good = githubDelivery('deployment.created', { delivery: 'secrets-good', secret: SECRETS.githubSecret });
      expect((await fetch(`${bridgeUrl}/webhooks/github`, { method: 'POST', body: good.body, headers: good.headers })).status).toBe(202);
      const forged = githubDelivery('deployment.created', { delivery: 'secrets-forged', secret: 'wrong' });
      await fetch(`${bridgeUrl}/webhooks/github`, { method: 'POST', body: forged.body, headers: { ...forged.headers, authorization: `Bearer ${SECRETS.githubSecret}` } });
      await fetch(`${bridgeUrl}/webhooks/argocd`, { method: 'POST', body: '{"app": 1}', headers: { authorization: `Bearer ${SECRETS.argocdSecret}x` } });
      await fetch(`${bridgeUrl}/webhooks/gitlab`, { method: 'POST', body: 'not json', headers: { 'x-gitlab-token': SECRETS.gitlabSecret } });
      await fetch(`${bridgeUrl}/admin/dead-letters`, { headers: { authorization: `Bearer ${SECRETS.adminToken}` } });
      await fetch(`${bridgeUrl}/admin/dead-letters`, { headers: { authorization: `Bearer ${SECRETS.adminToken}-wrong` } });
      await fetch(`${serviceUrl}/v2/annotations`, { headers: { authorization: `Bearer ${SECRETS.serviceToken}-wrong` } });
      for (const url of [serviceUrl, bridgeUrl]) for (const path of ['/readyz', '/metrics']) expectNoSecret(await (await fetch(url + path)).text());
      await eventually(async () => {
        const response = await fetch(`${serviceUrl}/v2/annotations?datasets=secrets`, { headers: { authorization: `Bearer ${SECRETS.serviceToken}` } });
        return ((await response.json()) as unknown[]).length === 1 || undefined;
      }, 'the delivery applied');

      // Configurations that fail, each quoting what was wrong.
      for (const [args, env] of [
        [['bridge', '--port', '0'], { ...bridgeEnv, TIMEMARK_URL: `ftp://timemark:${SECRETS.urlPassword}@127.0.0.1` }],
        [['bridge', 'dead-letters', '--url', `http://timemark:${SECRETS.urlPassword}@127.0.0.1:1`, '--admin-token', SECRETS.adminToken], {}],
        [['annotate', 'list', '--url', `http://timemark:${SECRETS.urlPassword}@127.0.0.1:1`, '--token', SECRETS.serviceToken, '--retries', '0'], {}],
        [['annotate', 'list', '--url', `htp//timemark:${SECRETS.urlPassword}@127.0.0.1`, '--token', SECRETS.serviceToken], {}],
      ] as const) {
        const result = await runTimemark([...args], env);
        expect(result.code, result.stderr).not.toBe(0);
        extra.push(result.stdout, result.stderr);
      }
    } finally {
      bridge?.child.kill('SIGTERM');
      service?.child.kill('SIGTERM');
      if (bridge) await exited(bridge.child);
      if (service) await exited(service.child);
    }
    expect(bridge.output()).toContain('"msg":"annotation up to date"');
    expect(service.output()).toContain('"msg":"request"');
    expectNoSecret([service.output(), bridge.output(), ...extra].join('\n'));
  });

  it('start: prints the secrets it generated, never the ones configured', { timeout: 60_000 }, async () => {
    const started = await startTimemark(
      ['start', '--port', '0', '--bridge-port', '0', '--data-dir', makeTempDir('secrets-start'), '--bridge-data-dir', makeTempDir('secrets-start-bridge')],
      /Timemark bridge listening on (http:\/\/\S+)[\s\S]*Then open the dashboard.*\n/,
      {
        TIMEMARK_TOKENS: SECRETS.serviceToken,
        GITHUB_WEBHOOK_SECRET: SECRETS.githubSecret,
        TIMEMARK_BRIDGE_ADMIN_TOKEN: SECRETS.adminToken,
        TIMEMARK_LOG_LEVEL: 'debug',
        TIMEMARK_BRIDGE_LOG_LEVEL: 'debug',
      },
    );
    try {
      const output = started.output();
      expect(output).toContain('GITHUB_WEBHOOK_SECRET=(from GITHUB_WEBHOOK_SECRET)');
      expect(output).toMatch(/GITLAB_WEBHOOK_SECRET=[\w-]{24}\n/);
      expect(output).toContain('secret="${GITHUB_WEBHOOK_SECRET%%,*}"');
      const delivery = githubDelivery('deployment.created', { delivery: 'secrets-start', secret: SECRETS.githubSecret });
      expect((await fetch(`${started.match[1]}/webhooks/github`, { method: 'POST', body: delivery.body, headers: delivery.headers })).status).toBe(202);
    } finally {
      started.child.kill('SIGTERM');
      await exited(started.child);
    }
    expectNoSecret(started.output());
  });
});

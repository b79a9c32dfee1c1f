import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadBridgeConfig } from '../../webhook-server/src/config.js';

const EXAMPLE = fileURLToPath(new URL('./fixtures/bridge-config.yaml', import.meta.url));
const minimal = { TIMEMARK_URL: 'http://127.0.0.1:8080', TIMEMARK_TOKEN: 'xaat-abc', TIMEMARK_DATASETS: 'deploys', GITHUB_WEBHOOK_SECRET: 's1, s2' };

function fileWith(text: string, name = 'bridge.json'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'timemark-config-')), name);
  writeFileSync(path, text);
  return path;
}

describe('bridge configuration', () => {
  it('needs only a URL, a token, a dataset and one secret', () => {
    const config = loadBridgeConfig({}, minimal);
    expect(config).toMatchObject({
      port: 3000,
      dataDir: '.timemark-bridge',
      service: { url: 'http://127.0.0.1:8080', token: 'xaat-abc' },
      secrets: { github: ['s1', 's2'] },
      mapping: { datasets: ['deploys'], types: { deploy: 'deploy', incident: 'incident' }, rules: [] },
    });
    expect(config.database).toBeUndefined();
    expect(config.delivery.maxOpenMs).toBe(24 * 3_600_000);
  });

  it.each([
    [{ TIMEMARK_URL: undefined }, /TIMEMARK_URL is not set/],
    [{ TIMEMARK_URL: 'ftp://x' }, /Invalid TIMEMARK_URL "ftp:\/\/x"/],
    [{ TIMEMARK_TOKEN: '' }, /TIMEMARK_TOKEN is not set/],
    [{ TIMEMARK_DATASETS: undefined }, /TIMEMARK_DATASETS is not set/],
    [{ TIMEMARK_DATASETS: 'a,,b' }, /Invalid TIMEMARK_DATASETS "a,,b".*none empty/],
    [{ GITHUB_WEBHOOK_SECRET: undefined }, /No source is on: set at least one of GITHUB_WEBHOOK_SECRET/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL is not a PostgreSQL URL/],
    [{ TIMEMARK_BRIDGE_MAX_OPEN: 'forever' }, /Invalid TIMEMARK_BRIDGE_MAX_OPEN "forever"/],
    [{ TIMEMARK_BRIDGE_ADMIN_TOKEN: 'short' }, /TIMEMARK_BRIDGE_ADMIN_TOKEN is too short/],
  ])('refuses %o with a message naming the variable', (change, message) => {
    expect(() => loadBridgeConfig({}, { ...minimal, ...change })).toThrow(message);
  });

  it('reads datasets, types, rules and the maximum open time from a YAML file', () => {
    const config = loadBridgeConfig({ configFile: EXAMPLE }, { ...minimal, TIMEMARK_DATASETS: undefined });
    expect(config.mapping.datasets).toEqual(['deploys']);
    expect(config.mapping.types.incident).toBe('alert');
    expect(config.mapping.rules).toHaveLength(3);
    expect(config.mapping.rules[1]).toEqual({ match: { source: ['alertmanager', 'grafana'], 'labels.severity': 'critical' }, datasets: ['incidents'] });
    expect(config.delivery.maxOpenMs).toBe(6 * 3_600_000);
  });

  it('lets environment variables win over the file', () => {
    const file = fileWith(JSON.stringify({ url: 'http://file.example', datasets: ['from-file'], secrets: { gitlab: 'g1' } }));
    const config = loadBridgeConfig({ configFile: file }, { ...minimal, TIMEMARK_DATASETS: 'from-env' });
    expect(config.service.url).toBe('http://127.0.0.1:8080');
    expect(config.mapping.datasets).toEqual(['from-env']);
    expect(config.secrets).toEqual({ github: ['s1', 's2'], gitlab: ['g1'] });
  });

  it.each([
    ['{"rules": [{"match": {"source": "github"}, "type": "Deploy!"}]}', /Invalid "rules\[0\].type" in .* "Deploy!"/],
    ['{"rules": [{"match": {}, "colour": "red"}]}', /Unknown key "colour" in rules\[0\]/],
    ['{"secrets": {"jenkins": "x"}}', /Unknown source "jenkins" in "secrets"/],
    ['{"datasetz": ["x"]}', /Unknown key "datasetz" in the config file/],
    ['[1, 2]', /must hold an object/],
    ['{"delivery": {"maxAttempts": 0}}', /"delivery.maxAttempts" .* must be a whole number above 0/],
  ])('refuses the file %s with a message naming the key', (text, message) => {
    expect(() => loadBridgeConfig({ configFile: fileWith(text) }, minimal)).toThrow(message);
  });

  it('says which file it cannot read', () => {
    expect(() => loadBridgeConfig({ configFile: '/nonexistent/bridge.yaml' }, minimal)).toThrow(/Cannot read the config file \/nonexistent\/bridge.yaml: ENOENT/);
  });
});

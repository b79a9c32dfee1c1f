import { AxiomWithoutBatching } from '@axiomhq/js';
import { describe, expect, it } from 'vitest';
import { TEST_ORG, TEST_PERSONAL_TOKEN, useLocalService } from '../helpers/local-service.js';

/** The official JavaScript client, unmodified, pointed at the local service. */
describe('@axiomhq/js 2.0.0 against the local service', () => {
  const service = useLocalService();

  it('creates, lists, gets, updates and deletes annotations', async () => {
    const created = await service.axiom.annotations.create({
      datasets: ['official-a', 'official-b'],
      type: 'production-deploy',
      time: '2024-02-01T10:00:00Z',
      title: 'Deploy 42',
      description: 'From the official client',
      url: 'https://example.com/deploys/42',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^ann_/),
      datasets: ['official-a', 'official-b'],
      type: 'production-deploy',
      time: '2024-02-01T10:00:00.000Z',
      title: 'Deploy 42',
      description: 'From the official client',
      url: 'https://example.com/deploys/42',
    });
    const other = await service.axiom.annotations.create({ datasets: ['official-c'], type: 'incident', time: '2024-02-01T11:00:00Z' });

    const listed = await service.axiom.annotations.list({ datasets: ['official-b', 'official-c'], start: '2024-02-01T00:00:00Z', end: '2024-02-02T00:00:00Z' });
    expect(listed.map((annotation) => annotation.id)).toEqual([created.id, other.id]);

    expect(await service.axiom.annotations.get(created.id)).toEqual(created);

    const updated = await service.axiom.annotations.update(created.id, { endTime: '2024-02-01T10:15:00Z' });
    expect(updated).toEqual({ ...created, endTime: '2024-02-01T10:15:00.000Z' });

    const deleted = await service.axiom.annotations.delete(created.id);
    expect(deleted.status).toBe(204);
    await expect(service.axiom.annotations.get(created.id)).rejects.toThrow();
  });

  it('accepts a url that is not an absolute URL, as the client\'s own tests send it', async () => {
    const created = await service.axiom.annotations.create({ datasets: ['official-d'], type: 'deploy', url: 'some-url' });
    expect(created.url).toBe('some-url');
    const updated = await service.axiom.annotations.update(created.id, { url: '/relative/path?x=1' });
    expect(updated.url).toBe('/relative/path?x=1');
  });

  it('reads the current user', async () => {
    const user = await service.axiom.users.current();
    expect(user).toMatchObject({ id: 'local', name: expect.any(String), email: expect.any(String), role: { id: 'owner', name: 'Owner' } });
  });

  it('works with a personal token and an org id', async () => {
    const personal = new AxiomWithoutBatching({ token: TEST_PERSONAL_TOKEN, orgId: TEST_ORG, url: service.url });
    await expect(personal.annotations.list()).resolves.toBeInstanceOf(Array);
  });

  it('is refused with an unknown token', async () => {
    const stranger = new AxiomWithoutBatching({ token: 'xaat-unknown-token-0000000000000000', url: service.url });
    await expect(stranger.annotations.list()).rejects.toThrow('forbidden');
  });
});

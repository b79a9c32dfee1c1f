import { describe, expect, it } from 'vitest';
import { useLocalService } from '../../helpers/local-service.js';
import { serviceApi } from '../../helpers/service-api.js';

const SECRET = 'Bearer top-secret-bridge-token';

/** /v2/notifiers over HTTP: custom webhooks, whose header values never come back. */
describe('notifiers API', () => {
  const service = useLocalService();
  const api = serviceApi(service);

  const webhook = (changes: Record<string, unknown> = {}) => ({
    name: 'Bridge',
    properties: { customWebhook: { url: 'http://127.0.0.1:8081/webhooks/monitor', headers: { Authorization: SECRET }, body: '', ...changes } },
  });

  it('creates, lists, gets, updates and deletes a custom webhook notifier, masking header values', async () => {
    const created = await api.call('POST', '/v2/notifiers', webhook());
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^ntf_[a-z2-7]{20}$/),
      name: 'Bridge',
      properties: { customWebhook: { url: 'http://127.0.0.1:8081/webhooks/monitor', headers: { Authorization: '********' }, body: '' } },
      createdAt: expect.any(String),
      createdBy: 'local',
      updatedAt: created.body.createdAt,
    });
    expect((await api.call('GET', '/v2/notifiers')).body).toContainEqual(created.body);
    expect((await api.call('GET', `/v2/notifiers/${created.body.id}`)).body).toEqual(created.body);

    const updated = await api.call('PUT', `/v2/notifiers/${created.body.id}`, { ...created.body, name: 'Bridge (renamed)' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, name: 'Bridge (renamed)', properties: created.body.properties, createdAt: created.body.createdAt });

    expect((await api.call('DELETE', `/v2/notifiers/${created.body.id}`)).status).toBe(204);
    expect((await api.call('GET', `/v2/notifiers/${created.body.id}`)).body).toEqual({ code: 404, message: `Notifier "${created.body.id}" not found.` });
  });

  it('reads the custom webhook as the Go client writes it (URL, Headers, Body) and a zero disabledUntil', async () => {
    const reply = await api.call('POST', '/v2/notifiers', {
      id: '',
      name: 'Go',
      disabledUntil: '0001-01-01T00:00:00Z',
      properties: { customWebhook: { URL: 'https://hooks.example.com/x', Headers: { 'X-Key': 'k' }, Body: '{"text": {{json .Title}}}' } },
      createdAt: '0001-01-01T00:00:00Z',
      createdBy: '',
      updatedAt: '0001-01-01T00:00:00Z',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.properties).toEqual({ customWebhook: { url: 'https://hooks.example.com/x', headers: { 'X-Key': '********' }, body: '{"text": {{json .Title}}}' } });
    expect(reply.body).not.toHaveProperty('disabledUntil');
  });

  it.each([
    ['no name', { name: '' }, /Missing name/],
    ['no properties', { properties: undefined }, /Missing properties\. Expected properties\.customWebhook/],
    ['another kind of notifier', { properties: { slack: { slackUrl: 'https://hooks.slack.com/x' } } }, /Notifier kind slack is not delivered by the local service/],
    ['no url', { properties: { customWebhook: {} } }, /Missing properties\.customWebhook\.url/],
    ['a url that is not http', { properties: { customWebhook: { url: 'ftp://example.com/x' } } }, /the scheme is "ftp"\. Expected an absolute http:\/\/ or https:\/\/ URL/],
    ['a header name with a space', { properties: { customWebhook: { url: 'http://x.test/', headers: { 'Bad Name': 'v' } } } }, /Invalid header name "Bad Name"/],
    ['a header the client sets itself', { properties: { customWebhook: { url: 'http://x.test/', headers: { Host: 'v' } } } }, /Header "Host" is set by the HTTP client itself/],
    ['a body template with an unknown variable', { properties: { customWebhook: { url: 'http://x.test/', body: '{"a": {{.Nope}}}' } } }, /Invalid properties\.customWebhook\.body: Unsupported template action "\{\{\.Nope\}\}" at line 1, column 7/],
    ['a masked header value with nothing stored behind it', { properties: { customWebhook: { url: 'http://x.test/', headers: { Authorization: '********' } } } }, /has the masked value \*\*\*\*\*\*\*\*, but no value is stored for it/],
    ['an unknown member', { kind: 'webhook' }, /Unknown field "kind" in the request body/],
  ])('refuses %s with a 400 that says what was expected', async (_what, change, message) => {
    const reply = await api.call('POST', '/v2/notifiers', { ...webhook(), ...change });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, message: expect.stringMatching(message) });
  });

  it('never quotes a header value or a URL in an error', async () => {
    const cases = [
      { properties: { customWebhook: { url: 'http://user:pa55word@', headers: {} } } },
      { properties: { customWebhook: { url: 'nonsense pa55word', headers: {} } } },
      { properties: { customWebhook: { url: 'http://x.test/', headers: { Authorization: 'Bearer pa55word\r\nX-Evil: 1' } } } },
      { properties: { customWebhook: { url: 'http://x.test/', headers: { Authorization: 12 } } } },
      { properties: { customWebhook: { url: 'http://x.test/', headers: { Authorization: `pa55word${'x'.repeat(9000)}` } } } },
    ];
    for (const change of cases) {
      const reply = await api.call('POST', '/v2/notifiers', { ...webhook(), ...change });
      expect(reply.status).toBe(400);
      expect(reply.body.message).not.toContain('pa55word');
    }
  });

  it('answers 404 for an unknown notifier and 405 for a wrong method', async () => {
    expect((await api.call('PUT', '/v2/notifiers/ntf_unknown', webhook())).status).toBe(404);
    expect((await api.call('DELETE', '/v2/notifiers/ntf_unknown')).status).toBe(404);
    expect((await api.call('POST', '/v2/notifiers/ntf_unknown', webhook())).status).toBe(405);
  });
});

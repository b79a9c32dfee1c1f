import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalService } from '../../helpers/local-service.js';
import { httpEvents, serviceApi } from '../../helpers/service-api.js';

const QUERY = "['mon-http'] | where status >= 500 | summarize count()";

/** /v2/monitors over HTTP: the official client's calls, and a 400 that says what is wrong for everything else. */
describe('monitors API', () => {
  const service = useLocalService();
  const api = serviceApi(service);
  let notifierId: string;

  const valid = () => ({
    name: 'Checkout errors',
    type: 'Threshold',
    description: '5xx on checkout',
    aplQuery: QUERY,
    operator: 'Above',
    threshold: 10,
    intervalMinutes: 5,
    rangeMinutes: 10,
    notifierIds: [notifierId],
  });

  beforeAll(async () => {
    await api.ingest('mon-http', httpEvents(3));
    const notifier = await api.call('POST', '/v2/notifiers', { name: 'hook', properties: { customWebhook: { url: 'http://127.0.0.1:1/hook' } } });
    notifierId = notifier.body.id;
  });

  it('creates, lists, gets, updates and deletes a monitor with @axiomhq/js', async () => {
    const created = await service.axiom.monitors.create({ ...valid(), type: 'Threshold', operator: 'Above', notifyByGroup: true, alertOnNoData: true });
    expect(created).toEqual({
      id: expect.stringMatching(/^mon_[a-z2-7]{20}$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      createdBy: 'local',
      name: 'Checkout errors',
      type: 'Threshold',
      description: '5xx on checkout',
      aplQuery: QUERY,
      operator: 'Above',
      threshold: 10,
      alertOnNoData: true,
      notifyByGroup: true,
      resolvable: false,
      notifierIds: [notifierId],
      intervalMinutes: 5,
      rangeMinutes: 10,
      disabled: false,
    });
    expect((await service.axiom.monitors.list()).map((monitor) => monitor.id)).toContain(created.id);
    expect(await service.axiom.monitors.get(created.id)).toEqual(created);

    const { id, createdAt, createdBy, ...request } = created;
    const updated = await service.axiom.monitors.update(created.id, { ...request, threshold: 25, disabled: true, disabledUntil: '2030-01-01T00:00:00+02:00' });
    expect(updated).toEqual({ ...created, threshold: 25, disabled: true, disabledUntil: '2029-12-31T22:00:00.000Z' });
    expect([id, createdAt, createdBy]).toEqual([updated.id, updated.createdAt, updated.createdBy]);

    const deleted = await service.axiom.monitors.delete(created.id);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    await expect(service.axiom.monitors.get(created.id)).rejects.toThrow(/404.*not found/);
  });

  it('accepts the deprecated notifierIDs and answers with notifierIds', async () => {
    const { notifierIds, ...rest } = valid();
    const reply = await api.call('POST', '/v2/monitors', { ...rest, notifierIDs: notifierIds });
    expect(reply.status).toBe(200);
    expect(reply.body.notifierIds).toEqual([notifierId]);
    expect(reply.body).not.toHaveProperty('notifierIDs');
  });

  it('reads a body as the Go client writes it: capitalised members, zero times, read-only members, an empty operator', async () => {
    const reply = await api.call('POST', '/v2/monitors', {
      type: 'MatchEvent',
      alertOnNoData: false,
      notifyByGroup: false,
      resolvable: false,
      aplQuery: "['mon-http'] | where status >= 500",
      disabledUntil: '0001-01-01T00:00:00Z',
      IntervalMinutes: 1,
      name: 'Every 5xx',
      NotifierIDs: [notifierId],
      operator: '',
      RangeMinutes: 1,
      threshold: 0,
      createdAt: '0001-01-01T00:00:00Z',
      createdBy: '',
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: 'MatchEvent', intervalMinutes: 1, rangeMinutes: 1, notifierIds: [notifierId], threshold: 0, createdBy: 'local' });
    expect(reply.body).not.toHaveProperty('operator');
    expect(reply.body).not.toHaveProperty('disabledUntil');
  });

  it('replaces the whole monitor on PUT, as the hosted service does', async () => {
    const created = (await api.call('POST', '/v2/monitors', { ...valid(), alertOnNoData: true, description: 'old' })).body;
    const { description, ...withoutDescription } = valid();
    const replaced = await api.call('PUT', `/v2/monitors/${created.id}`, { ...withoutDescription, name: 'Renamed' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: created.id, name: 'Renamed', alertOnNoData: false });
    expect(replaced.body).not.toHaveProperty('description');
    expect(description).toBe('5xx on checkout');
  });

  it('refuses a query that does not parse with the APL error: position and detail', async () => {
    const reply = await api.call('POST', '/v2/monitors', { ...valid(), aplQuery: "['mon-http'] | where status >= | summarize count()" });
    expect(reply.status).toBe(400);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      code: 400,
      message: expect.stringMatching(/^line 1, column \d+: /),
      detail: { errorType: 1, compileErrorCode: 1, line: 1, column: expect.any(Number), message: expect.any(String) },
    });
  });

  it("refuses a query that names a field the dataset does not have, suggesting the closest", async () => {
    const reply = await api.call('POST', '/v2/monitors', { ...valid(), aplQuery: "['mon-http'] | where statsu >= 500 | summarize count()" });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^line 1, column 22: .*statsu.*status/);
    expect(reply.body.detail).toMatchObject({ errorType: 1, line: 1, column: 22 });
  });

  it('refuses the same bad query on update, and keeps the monitor as it was', async () => {
    const created = (await api.call('POST', '/v2/monitors', valid())).body;
    const reply = await api.call('PUT', `/v2/monitors/${created.id}`, { ...valid(), aplQuery: "['mon-http'] | summarize nosuch()" });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatchObject({ errorType: 1 });
    expect((await api.call('GET', `/v2/monitors/${created.id}`)).body.aplQuery).toBe(QUERY);
  });

  it('refuses a query over a dataset that does not exist with a 400 naming it', async () => {
    const reply = await api.call('POST', '/v2/monitors', { ...valid(), aplQuery: "['no-such-dataset'] | summarize count()" });
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/Dataset "no-such-dataset" not found/);
  });

  it('refuses a threshold query whose value column holds no numbers, or that has none', async () => {
    const strings = await api.call('POST', '/v2/monitors', { ...valid(), aplQuery: "['mon-http'] | summarize make_list(service)" });
    expect(strings.status).toBe(400);
    expect(strings.body.message).toMatch(/^The value column make_list_service of the query holds array values\. Expected numbers/);
    const none = await api.call('POST', '/v2/monitors', { ...valid(), aplQuery: "['mon-http'] | summarize count() by service | project service" });
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/^The query result has no value column \(only service\)/);
  });

  it.each([
    ['no name', { name: undefined }, /Missing name/],
    ['no type', { type: undefined }, /Missing type\. Expected one of: Threshold, MatchEvent\./],
    ['an anomaly detection monitor', { type: 'AnomalyDetection' }, /Monitor type "AnomalyDetection" is not supported by the local service\. Expected one of: Threshold, MatchEvent\./],
    ['an unknown type', { type: 'Sometimes' }, /Invalid type "Sometimes"/],
    ['a threshold monitor without operator', { operator: undefined }, /Missing operator for a Threshold monitor\. Expected one of: Below, BelowOrEqual, Above, AboveOrEqual, AboveOrBelow\./],
    ['an unknown operator', { operator: 'Beyond' }, /Invalid operator "Beyond"/],
    ['a threshold monitor without threshold', { threshold: undefined }, /Missing threshold/],
    ['a threshold that is not a number', { threshold: '10' }, /Invalid threshold "10"\. Expected a number\./],
    ['a zero interval', { intervalMinutes: 0 }, /intervalMinutes is 0\. Expected a whole number from 1 to 10080\./],
    ['a fractional interval', { intervalMinutes: 1.5 }, /intervalMinutes is 1\.5/],
    ['no range', { rangeMinutes: undefined }, /rangeMinutes is missing\. Expected a whole number from 1 to 43200\./],
    ['an unknown notifier', { notifierIds: ['ntf_nope'] }, /Unknown notifier "ntf_nope" in notifierIds/],
    ['notifier ids that are not a list', { notifierIds: 'ntf_x' }, /Invalid notifierIds "ntf_x"\. Expected an array of strings\./],
    ['an unknown member', { threshhold: 3 }, /Unknown field "threshhold" in the request body\. Expected only: name, type/],
    ['a metrics query', { mplQuery: 'x' }, /mplQuery \(a metrics query\) is not supported/],
    ['a disabledUntil that is not a time', { disabledUntil: 'tomorrow' }, /Invalid disabledUntil "tomorrow"/],
    ['a flag that is not a boolean', { notifyByGroup: 'yes' }, /Invalid notifyByGroup "yes"\. Expected true or false\./],
    ['notifierIds and notifierIDs that differ', { notifierIDs: ['ntf_other'] }, /Field notifierIds is given twice/],
  ])('refuses %s with a 400 that says what was expected', async (_what, change, message) => {
    const reply = await api.call('POST', '/v2/monitors', { ...valid(), ...change });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, message: expect.stringMatching(message) });
  });

  it('refuses a body that is not a JSON object, and a body that is not JSON', async () => {
    expect((await api.call('POST', '/v2/monitors', [1, 2])).body).toEqual({ code: 400, message: 'The request body must be a JSON object, got [1,2].' });
    const text = await fetch(`${service.url}/v2/monitors`, { method: 'POST', headers: { authorization: `Bearer ${service.token}`, 'content-type': 'text/plain' }, body: 'x' });
    expect(text.status).toBe(415);
  });

  it('answers 404 for an unknown monitor on every route, and 405 for a wrong method', async () => {
    for (const [method, path, body] of [
      ['GET', '/v2/monitors/mon_unknown', undefined],
      ['PUT', '/v2/monitors/mon_unknown', valid()],
      ['DELETE', '/v2/monitors/mon_unknown', undefined],
      ['POST', '/v2/monitors/mon_unknown/run', undefined],
    ] as const) {
      const reply = await api.call(method, path, body);
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 404, { code: 404, message: 'Monitor "mon_unknown" not found.' }]);
    }
    const wrong = await api.call('PATCH', '/v2/monitors');
    expect(wrong.status).toBe(405);
  });

  it('needs a token', async () => {
    expect((await fetch(`${service.url}/v2/monitors`)).status).toBe(401);
    expect((await fetch(`${service.url}/v2/notifiers`)).status).toBe(401);
  });

  it('takes a deleted notifier off the monitors that used it', async () => {
    const notifier = (await api.call('POST', '/v2/notifiers', { name: 'short-lived', properties: { customWebhook: { url: 'http://127.0.0.1:1/x' } } })).body;
    const monitor = (await api.call('POST', '/v2/monitors', { ...valid(), notifierIds: [notifierId, notifier.id] })).body;
    expect((await api.call('DELETE', `/v2/notifiers/${notifier.id}`)).status).toBe(204);
    expect((await api.call('GET', `/v2/monitors/${monitor.id}`)).body.notifierIds).toEqual([notifierId]);
  });
});

import { describe, expect, it } from 'vitest';
import { parseGoTime } from '../../../webhook-server/src/sources/times.js';
import { defaultPayload, formatGoTime, type MonitorNotification } from '../../../src/service/notifiers/notification.js';
import { compileBodyTemplate, renderBodyTemplate, TemplateError } from '../../../src/service/notifiers/template.js';

const notification: MonitorNotification = {
  action: 'Open',
  monitorId: 'mon_abc',
  title: 'Checkout "errors"',
  body: 'Current value of 14.2 is above the threshold value of 10',
  description: '5xx per minute',
  value: 14.2,
  queryStartMs: Date.parse('2024-06-28T14:50:57.631Z'),
  queryEndMs: Date.parse('2024-06-28T14:55:57.631Z'),
  timestampMs: Date.parse('2024-06-28T14:55:57.600Z'),
  matchedEvent: null,
  groupKeys: ['service'],
  groupValues: ['checkout'],
};

describe('Go time text', () => {
  it('writes time.Time.String() in UTC, trailing fraction zeros dropped', () => {
    expect(formatGoTime(Date.parse('2024-06-28T14:55:57.631Z'))).toBe('2024-06-28 14:55:57.631 +0000 UTC');
    expect(formatGoTime(Date.parse('2024-06-28T14:55:57.600Z'))).toBe('2024-06-28 14:55:57.6 +0000 UTC');
    expect(formatGoTime(Date.parse('2024-06-28T14:55:57Z'))).toBe('2024-06-28 14:55:57 +0000 UTC');
  });

  it('is read back to the same instant by the bridge', () => {
    for (const ms of [notification.queryStartMs, notification.timestampMs, Date.parse('2024-01-01T00:00:00Z')]) {
      expect(parseGoTime('timestamp', formatGoTime(ms))).toBe(ms);
    }
  });
});

describe('default payload', () => {
  it('is the Axiom envelope: action and event', () => {
    expect(JSON.parse(defaultPayload(notification))).toEqual({
      action: 'Open',
      event: {
        monitorID: 'mon_abc',
        title: 'Checkout "errors"',
        body: 'Current value of 14.2 is above the threshold value of 10',
        description: '5xx per minute',
        value: 14.2,
        queryStartTime: '2024-06-28 14:50:57.631 +0000 UTC',
        queryEndTime: '2024-06-28 14:55:57.631 +0000 UTC',
        timestamp: '2024-06-28 14:55:57.6 +0000 UTC',
        matchedEvent: null,
        groupKeys: ['service'],
        groupValues: ['checkout'],
      },
    });
  });
});

describe('body templates', () => {
  const render = (source: string) => renderBodyTemplate(compileBodyTemplate(source), notification);

  it('substitutes variables as Go does: strings raw, numbers as numbers, lists as JSON', () => {
    expect(render('{{.Action}} {{ .MonitorID }} value={{.Value}} groups={{.GroupValues}} at {{.Timestamp}}')).toBe(
      'Open mon_abc value=14.2 groups=["checkout"] at 2024-06-28 14:55:57.6 +0000 UTC',
    );
  });

  it('writes {{json .X}} as JSON, so that quotes in a title keep the body valid JSON', () => {
    expect(JSON.parse(render('{"text": {{json .Title}}, "event": {{json .MatchedEvent}}}'))).toEqual({ text: 'Checkout "errors"', event: null });
  });

  it('trims whitespace around {{- and -}}', () => {
    expect(render('a  \n {{- .Action -}} \n  b')).toBe('aOpenb');
  });

  it.each([
    ['{{.Title', /without "}}" at line 1, column 1/],
    ['{\n  "x": {{ .Nope }}', /Unsupported template action "\{\{ \.Nope \}\}" at line 2, column 8/],
    ['{{if .Value}}x{{end}}', /Unsupported template action/],
    ['{{printf "%v" .Value}}', /Expected \{\{\.Name\}\} or \{\{json \.Name\}\}/],
  ])('refuses %j, saying where and what is supported', (source, message) => {
    expect(() => compileBodyTemplate(source)).toThrow(TemplateError);
    expect(() => compileBodyTemplate(source)).toThrow(message);
  });
});

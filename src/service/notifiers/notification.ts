/**
 * One monitor notification, with the variables Axiom's custom webhook notifier offers its body
 * templates, and the payload it sends when the template is empty:
 * `{"action": "Open" | "Closed", "event": {monitorID, title, body, …}}`. Times on that wire are
 * in Go's `time.Time` text form (`2024-06-28 14:55:57.631 +0000 UTC`), which is what receivers
 * of Axiom's webhooks (our bridge among them) parse.
 */

export type NotificationAction = 'Open' | 'Closed';

export interface MonitorNotification {
  action: NotificationAction;
  monitorId: string;
  /** The monitor's name. */
  title: string;
  /** What happened, in a sentence; for a match, the matched event as JSON. */
  body: string;
  /** The monitor's description ("" when it has none). */
  description: string;
  /** The value compared with the threshold; null for matches and for "no data". */
  value: number | null;
  queryStartMs: number;
  queryEndMs: number;
  /** When the notification was made: fixed once, so that every retry is the same delivery. */
  timestampMs: number;
  matchedEvent: Record<string, unknown> | null;
  groupKeys: string[];
  groupValues: unknown[];
}

/** The variables a body template may use, by their Axiom names. */
export const TEMPLATE_VARIABLES = [
  'Action',
  'MonitorID',
  'Title',
  'Body',
  'Description',
  'Value',
  'QueryStartTime',
  'QueryEndTime',
  'Timestamp',
  'MatchedEvent',
  'GroupKeys',
  'GroupValues',
] as const;

export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

export function templateVariables(notification: MonitorNotification): Record<TemplateVariable, unknown> {
  return {
    Action: notification.action,
    MonitorID: notification.monitorId,
    Title: notification.title,
    Body: notification.body,
    Description: notification.description,
    Value: notification.value,
    QueryStartTime: formatGoTime(notification.queryStartMs),
    QueryEndTime: formatGoTime(notification.queryEndMs),
    Timestamp: formatGoTime(notification.timestampMs),
    MatchedEvent: notification.matchedEvent,
    GroupKeys: notification.groupKeys,
    GroupValues: notification.groupValues,
  };
}

/** The body Axiom sends when the notifier has no template of its own. */
export function defaultPayload(notification: MonitorNotification): string {
  return JSON.stringify({
    action: notification.action,
    event: {
      monitorID: notification.monitorId,
      title: notification.title,
      body: notification.body,
      description: notification.description,
      value: notification.value,
      queryStartTime: formatGoTime(notification.queryStartMs),
      queryEndTime: formatGoTime(notification.queryEndMs),
      timestamp: formatGoTime(notification.timestampMs),
      matchedEvent: notification.matchedEvent,
      groupKeys: notification.groupKeys,
      groupValues: notification.groupValues,
    },
  });
}

/**
 * Go's `time.Time.String()` in UTC: `2006-01-02 15:04:05.999999999 -0700 MST`, where the
 * fraction loses its trailing zeros (and its dot when it is zero).
 */
export function formatGoTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}

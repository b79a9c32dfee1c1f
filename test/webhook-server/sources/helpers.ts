import { expect } from 'vitest';
import type { BridgeEvent, ParseResult } from '../../../webhook-server/src/sources/types.js';

export function eventsOf(result: ParseResult): BridgeEvent[] {
  expect(result.kind).toBe('events');
  return result.kind === 'events' ? result.events : [];
}

export function onlyEvent(result: ParseResult): BridgeEvent {
  const events = eventsOf(result);
  expect(events).toHaveLength(1);
  return events[0]!;
}

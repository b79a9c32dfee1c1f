/**
 * A duration in an event, for ingest paths that know a value is one (JSON has no durations): the
 * OpenTelemetry span's `duration`. The batch writer stores it as a `timespan` field (BIGINT
 * nanoseconds), so that queries sum, average, bin and compare it as a timespan.
 */
export class TimespanValue {
  constructor(readonly ns: bigint) {}
}

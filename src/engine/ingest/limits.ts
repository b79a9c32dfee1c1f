/** The limits of one ingest request: the one place they are written down (docs/events.md quotes them). */
export const INGEST_LIMITS = {
  /** Events in one request, as the hosted service allows. */
  maxEventsPerRequest: 10_000,
  /** Bytes of the request body, both as sent and once decompressed (64 MiB). */
  maxBodyBytes: 64 * 1024 * 1024,
  /** Levels of nested objects flattened into dotted names; deeper objects are kept whole as JSON. */
  maxNestingDepth: 32,
  /** Characters in one flattened field name. */
  maxFieldNameLength: 1024,
  /**
   * Distinct fields in one request, twice a dataset's default limit: it bounds what one batch
   * can ask of the store (one typed column per field in the staged read) whatever the dataset.
   */
  maxFieldsPerRequest: 2048,
} as const;

export type IngestLimits = { readonly [K in keyof typeof INGEST_LIMITS]: number };

/** 64 MiB, 10 KiB, 512 B: how a byte limit reads in a message. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

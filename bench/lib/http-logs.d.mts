/** Types of http-logs.mjs, for the TypeScript tests that import it. */
export interface HttpLogsOptions {
  seed?: number;
  count?: number;
  startMs?: number;
  spanMs?: number;
}

export interface HttpLogEvent {
  _time: string;
  method: string;
  uri: string;
  status: string;
  req_duration_ms: number;
  resp_body_size_bytes: number;
  resp_header_size_bytes: number;
  server_datacenter: string;
  content_type: string;
  is_tls: boolean;
  geo: { city: string; country: string };
  trace_id: string;
  user_agent: string;
  message: string;
  user_id?: string;
  referrer?: string;
  tags?: string[];
}

export declare const HTTP_LOGS_DEFAULTS: Readonly<Required<HttpLogsOptions>>;
export declare function httpLogs(options?: HttpLogsOptions): Generator<HttpLogEvent>;
export declare function httpLogsNdjsonBatches(options?: HttpLogsOptions, batchSize?: number): Generator<string>;

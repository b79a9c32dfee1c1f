import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as OTLPLogExporterJson } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OTLPLogExporterProto } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPTraceExporterProto } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { useLocalService } from '../helpers/local-service.js';
import { serviceApi } from '../helpers/service-api.js';

/**
 * The real OpenTelemetry JS SDK exports to the local service, as it would to the hosted one
 * (OTLP/HTTP, `Authorization` and `X-Axiom-Dataset` headers), in protobuf and in JSON, plain
 * and gzipped; the spans, log records and metric data points come back through APL.
 */

const service = useLocalService();
const START = Date.parse('2024-03-01T10:00:00Z');
const WINDOW = { startTime: '2024-03-01T00:00:00Z', endTime: '2024-03-02T00:00:00Z' };

function headers(dataset: string): Record<string, string> {
  return { Authorization: `Bearer ${service.token}`, 'X-Axiom-Dataset': dataset };
}

/** One trace of the checkout service: a server span and its failing client child, with an event and a link. */
async function exportTrace(exporter: OTLPTraceExporterProto | OTLPTraceExporterJson): Promise<{ traceId: string; rootId: string; childId: string }> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'checkout', 'deployment.environment': 'test' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('checkout-lib', '1.2.3');
  const root = tracer.startSpan('POST /cart', { kind: SpanKind.SERVER, startTime: START, attributes: { 'http.method': 'POST', 'http.status_code': 200 } });
  const child = tracer.startSpan(
    'charge card',
    { kind: SpanKind.CLIENT, startTime: START + 10, links: [{ context: root.spanContext(), attributes: { reason: 'retry' } }] },
    trace.setSpan(ROOT_CONTEXT, root),
  );
  child.addEvent('card declined', { 'card.brand': 'visa' }, START + 20);
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'declined' });
  child.end(START + 260);
  root.end(START + 1500);
  await provider.forceFlush();
  await provider.shutdown();
  return { traceId: root.spanContext().traceId, rootId: root.spanContext().spanId, childId: child.spanContext().spanId };
}

async function rows(apl: string): Promise<Record<string, unknown>[]> {
  const result = await service.axiom.query(apl, WINDOW);
  return [...(result.tables[0]?.events() ?? [])] as Record<string, unknown>[];
}

describe('OTLP traces from the OpenTelemetry JS SDK', () => {
  for (const [format, makeExporter] of [
    ['protobuf, gzip', (dataset: string) => new OTLPTraceExporterProto({ url: `${service.url}/v1/traces`, headers: headers(dataset), compression: CompressionAlgorithm.GZIP })],
    ['JSON', (dataset: string) => new OTLPTraceExporterJson({ url: `${service.url}/v1/traces`, headers: headers(dataset) })],
  ] as const) {
    it(`stores ${format} spans in the hosted OTel trace layout`, async () => {
      const dataset = `traces-${format.split(',')[0]}`;
      const { traceId, rootId, childId } = await exportTrace(makeExporter(dataset));

      const spans = await rows(
        `['${dataset}'] | sort by _time asc | project _time, trace_id, span_id, parent_span_id, name, kind, duration, error, ['status.code'], ['status.message'], ['service.name'], ['scope.name'], ['scope.version'], ['resource.deployment.environment'], ['attributes.http.method'], ['attributes.http.status_code'], events, links`,
      );
      expect(spans).toEqual([
        {
          _time: '2024-03-01T10:00:00Z',
          trace_id: traceId,
          span_id: rootId,
          parent_span_id: null,
          name: 'POST /cart',
          kind: 'server',
          duration: '00:00:01.5',
          error: false,
          'status.code': null,
          'status.message': null,
          'service.name': 'checkout',
          'scope.name': 'checkout-lib',
          'scope.version': '1.2.3',
          'resource.deployment.environment': 'test',
          'attributes.http.method': 'POST',
          'attributes.http.status_code': 200,
          events: null,
          links: null,
        },
        {
          _time: '2024-03-01T10:00:00.01Z',
          trace_id: traceId,
          span_id: childId,
          parent_span_id: rootId,
          name: 'charge card',
          kind: 'client',
          duration: '00:00:00.25',
          error: true,
          'status.code': 'ERROR',
          'status.message': 'declined',
          'service.name': 'checkout',
          'scope.name': 'checkout-lib',
          'scope.version': '1.2.3',
          'resource.deployment.environment': 'test',
          'attributes.http.method': null,
          'attributes.http.status_code': null,
          events: [{ name: 'card declined', timestamp: '2024-03-01T10:00:00.02Z', attributes: { 'card.brand': 'visa' } }],
          links: [{ trace_id: traceId, span_id: rootId, attributes: { reason: 'retry' } }],
        },
      ]);

      const fields = (await serviceApi(service).call('GET', `/v2/datasets/${dataset}/fields`)).body as Array<{ name: string; type: string }>;
      expect(fields.find((field) => field.name === 'duration')).toMatchObject({ type: 'timespan' });
      expect((await serviceApi(service).call('GET', `/v2/datasets/${dataset}`)).body).toMatchObject({ kind: 'otel:traces:v1' });
    });
  }

  it("runs the APL reference's trace queries: root spans, durations by service, percentiles over time, error rates", async () => {
    const dataset = 'traces-reference';
    await exportTrace(new OTLPTraceExporterProto({ url: `${service.url}/v1/traces`, headers: headers(dataset) }));
    await exportTrace(new OTLPTraceExporterProto({ url: `${service.url}/v1/traces`, headers: headers(dataset) }));

    expect(await rows(`['${dataset}'] | where isnull(parent_span_id) | summarize count() by ['service.name']`)).toEqual([{ 'service.name': 'checkout', count_: 2 }]);
    expect(await rows(`['${dataset}'] | summarize avg(duration), max(duration) by kind | sort by kind asc`)).toEqual([
      { kind: 'client', avg_duration: '00:00:00.25', max_duration: '00:00:00.25' },
      { kind: 'server', avg_duration: '00:00:01.5', max_duration: '00:00:01.5' },
    ]);
    expect(await rows(`['${dataset}'] | summarize percentile(duration, 95) by bin(_time, 1m)`)).toEqual([{ _time: '2024-03-01T10:00:00Z', percentile_duration_95: '00:00:01.5' }]);
    expect(await rows(`['${dataset}'] | summarize errors = countif(['status.code'] == 'ERROR'), total = count() by ['service.name']`)).toEqual([
      { 'service.name': 'checkout', errors: 2, total: 4 },
    ]);
    expect(await rows(`['${dataset}'] | where duration > 1s | project name`)).toEqual([{ name: 'POST /cart' }, { name: 'POST /cart' }]);
  });
});

describe('OTLP logs from the OpenTelemetry JS SDK', () => {
  for (const [format, makeExporter] of [
    ['protobuf', (dataset: string) => new OTLPLogExporterProto({ url: `${service.url}/v1/logs`, headers: headers(dataset) })],
    ['JSON', (dataset: string) => new OTLPLogExporterJson({ url: `${service.url}/v1/logs`, headers: headers(dataset), compression: CompressionAlgorithm.GZIP })],
  ] as const) {
    it(`stores ${format} log records with body, severity, trace context, attributes and resource`, async () => {
      const dataset = `logs-${format}`;
      const provider = new LoggerProvider({
        resource: resourceFromAttributes({ 'service.name': 'checkout', 'host.name': 'web-1' }),
        processors: [new SimpleLogRecordProcessor({ exporter: makeExporter(dataset) })],
      });
      const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
      provider.getLogger('payments', '2.0.0').emit({
        timestamp: START + 5,
        severityNumber: SeverityNumber.WARN,
        body: 'card declined',
        attributes: { 'card.brand': 'visa', attempt: 2 },
        context: trace.setSpanContext(ROOT_CONTEXT, spanContext),
      });
      provider.getLogger('payments', '2.0.0').emit({ timestamp: START + 6, severityNumber: SeverityNumber.INFO, severityText: 'notice', body: 'retrying' });
      await provider.forceFlush();
      await provider.shutdown();

      expect(
        await rows(`['${dataset}'] | sort by _time asc | project _time, body, severity, severity_number, trace_id, span_id, ['service.name'], ['resource.host.name'], ['scope.name'], ['attributes.card.brand'], ['attributes.attempt']`),
      ).toEqual([
        {
          _time: '2024-03-01T10:00:00.005Z',
          body: 'card declined',
          severity: 'WARN',
          severity_number: 13,
          trace_id: spanContext.traceId,
          span_id: spanContext.spanId,
          'service.name': 'checkout',
          'resource.host.name': 'web-1',
          'scope.name': 'payments',
          'attributes.card.brand': 'visa',
          'attributes.attempt': 2,
        },
        {
          _time: '2024-03-01T10:00:00.006Z',
          body: 'retrying',
          severity: 'notice',
          severity_number: 9,
          trace_id: null,
          span_id: null,
          'service.name': 'checkout',
          'resource.host.name': 'web-1',
          'scope.name': 'payments',
          'attributes.card.brand': null,
          'attributes.attempt': null,
        },
      ]);
      expect((await serviceApi(service).call('GET', `/v2/datasets/${dataset}`)).body).toMatchObject({ kind: 'otel:logs:v1' });
    });
  }
});

describe('OTLP metrics from the OpenTelemetry JS SDK', () => {
  it('stores each data point as an event: counters, gauges and histograms, with their attributes and resource', async () => {
    const dataset = 'metrics-protobuf';
    const exporter = new OTLPMetricExporter({ url: `${service.url}/v1/metrics`, headers: { Authorization: `Bearer ${service.token}`, 'X-Axiom-Metrics-Dataset': dataset } });
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ resource: resourceFromAttributes({ 'service.name': 'checkout' }), readers: [reader] });
    const meter = provider.getMeter('checkout-metrics', '1.0.0');
    meter.createCounter('orders', { unit: '{order}', description: 'orders placed' }).add(3, { region: 'eu' });
    meter.createHistogram('latency', { unit: 'ms' }).record(120, { route: '/cart' });
    // Shutting down exports once, what was recorded (a flush before it would export it twice).
    await provider.shutdown();

    const apl = `['${dataset}'] | project name, type, unit, temporality, monotonic, value, count, sum, ['service.name'], ['scope.name'], ['attributes.region'], ['attributes.route'] | sort by name asc`;
    const result = await service.axiom.query(apl, { startTime: new Date(Date.now() - 3_600_000).toISOString(), endTime: new Date(Date.now() + 60_000).toISOString() });
    expect([...(result.tables[0]?.events() ?? [])]).toEqual([
      { name: 'latency', type: 'histogram', unit: 'ms', temporality: 'cumulative', monotonic: null, value: null, count: 1, sum: 120, 'service.name': 'checkout', 'scope.name': 'checkout-metrics', 'attributes.region': null, 'attributes.route': '/cart' },
      { name: 'orders', type: 'sum', unit: '{order}', temporality: 'cumulative', monotonic: true, value: 3, count: null, sum: null, 'service.name': 'checkout', 'scope.name': 'checkout-metrics', 'attributes.region': 'eu', 'attributes.route': null },
    ]);
    expect((await serviceApi(service).call('GET', `/v2/datasets/${dataset}`)).body).toMatchObject({ kind: 'otel:metrics:v1' });
  });

  it('refuses OTLP/JSON metrics with 415, as the hosted endpoint does', async () => {
    const reply = await fetch(`${service.url}/v1/metrics`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${service.token}`, 'X-Axiom-Dataset': 'metrics-json', 'Content-Type': 'application/json' },
      body: '{"resourceMetrics":[]}',
    });
    expect(await reply.json()).toEqual({ code: 415, message: expect.stringMatching(/Expected application\/x-protobuf: the hosted \/v1\/metrics takes no JSON/) });
  });
});

import { quoteString, sqlReal } from '../sql/quote.js';
import { bindOnce, reuse } from '../sql/reuse.js';
import { integer, oneOf, text } from './bind.js';
import { jsonElements, jsonText } from './lowering.js';
import type { FunctionDef, Param, SqlCall } from './types.js';

/**
 * GenAI conversations are arrays of messages, `{role, content}`, as OpenAI's chat API and
 * OpenTelemetry's `gen_ai.input.messages` write them: `content` is text or an array of parts
 * (`{type: "text", text}`), or the message has OpenTelemetry's `parts` (`{type: "text",
 * content}`). Tool calls are a message's `tool_calls` (OpenAI) or its parts of type `tool_call`
 * (OpenTelemetry); tool results are messages of role `tool` or `function`, or parts of type
 * `tool_call_response`. A messages argument may be dynamic or a string holding the JSON.
 */

/** Argument `index` as JSON text of the messages (a string is parsed; null where it is not JSON). */
function messages(c: SqlCall, index = 0): string {
  return c.type(index) === 'string' ? reuse(c.arg(index), 'gm', (m) => `CASE WHEN json_valid(${m}) THEN ${m} END`) : c.arg(index);
}

/** The messages as a list of JSON values (null where they are not an array). */
const elements = (c: SqlCall): string => jsonElements(messages(c));

const role = (message: string): string => `json_extract_string(${message}, '$.role')`;

/** The texts of an array of parts, joined by spaces: text parts' `text` or `content`, or plain strings; null without any. */
function partsText(parts: string): string {
  const part = `CASE WHEN json_type(gp) = 'VARCHAR' THEN json_extract_string(gp, '$') WHEN coalesce(json_extract_string(gp, '$.type'), 'text') = 'text' THEN coalesce(json_extract_string(gp, '$.text'), json_extract_string(gp, '$.content')) END`;
  return `nullif(array_to_string(list_filter(list_transform(CAST(${parts} AS JSON[]), gp -> ${part}), gt -> gt IS NOT NULL), ' '), '')`;
}

/** A message's text. */
function messageText(message: string): string {
  return (
    `CASE json_type(${message}, '$.content') WHEN 'VARCHAR' THEN json_extract_string(${message}, '$.content') ` +
    `WHEN 'ARRAY' THEN ${partsText(`json_extract(${message}, '$.content')`)} ` +
    `ELSE CASE WHEN json_type(${message}, '$.parts') = 'ARRAY' THEN ${partsText(`json_extract(${message}, '$.parts')`)} END END`
  );
}

/** The text of the first (`last`: the last) message of a role, or ''. */
function textOfRole(c: SqlCall, roleSql: string, last: boolean): string {
  return `coalesce(${messageText(`list_filter(${elements(c)}, gm -> ${role('gm')} = ${roleSql})[${last ? -1 : 1}]`)}, '')`;
}

/** Every tool call of the conversation, as a list of JSON values. */
function toolCalls(c: SqlCall): string {
  const openai = `CASE WHEN json_type(gm, '$.tool_calls') = 'ARRAY' THEN CAST(json_extract(gm, '$.tool_calls') AS JSON[]) ELSE [] END`;
  const otel = `CASE WHEN json_type(gm, '$.parts') = 'ARRAY' THEN list_filter(CAST(json_extract(gm, '$.parts') AS JSON[]), gp -> json_extract_string(gp, '$.type') = 'tool_call') ELSE [] END`;
  return `flatten(list_transform(coalesce(${elements(c)}, []), gm -> list_concat(${openai}, ${otel})))`;
}

/** Every tool result of the conversation, as a list of JSON values (text that holds JSON parsed). */
function toolResults(c: SqlCall): string {
  const content = `CASE WHEN json_type(gm, '$.content') = 'VARCHAR' THEN CASE WHEN json_valid(json_extract_string(gm, '$.content')) THEN json(json_extract_string(gm, '$.content')) ELSE json_extract(gm, '$.content') END ELSE json_extract(gm, '$.content') END`;
  const fromRole = `CASE WHEN ${role('gm')} IN ('tool', 'function') AND ${content} IS NOT NULL THEN [${content}] ELSE [] END`;
  const fromParts = `CASE WHEN json_type(gm, '$.parts') = 'ARRAY' THEN list_transform(list_filter(CAST(json_extract(gm, '$.parts') AS JSON[]), gp -> json_extract_string(gp, '$.type') = 'tool_call_response'), gp -> json_extract(gp, '$.response')) ELSE [] END`;
  return `flatten(list_transform(coalesce(${elements(c)}, []), gm -> list_concat(${fromRole}, ${fromParts})))`;
}

/**
 * List prices in USD per million input and output tokens. A model matches its name or a name
 * followed by `-` and a version (`gpt-4o-2024-08-06`, `claude-3-opus-20240229`); the longest
 * matching name wins, so `gpt-4o-mini` is not priced as `gpt-4o` or `gpt-4`.
 */
const GENAI_PRICES: readonly (readonly [model: string, input: number, output: number])[] = [
  ['gpt-4', 30, 60],
  ['gpt-4-32k', 60, 120],
  ['gpt-4-turbo', 10, 30],
  ['gpt-4o', 2.5, 10],
  ['gpt-4o-mini', 0.15, 0.6],
  ['gpt-4.1', 2, 8],
  ['gpt-4.1-mini', 0.4, 1.6],
  ['gpt-4.1-nano', 0.1, 0.4],
  ['gpt-3.5-turbo', 0.5, 1.5],
  ['o1', 15, 60],
  ['o1-mini', 1.1, 4.4],
  ['o3-mini', 1.1, 4.4],
  ['claude-3-opus', 15, 75],
  ['claude-3-sonnet', 3, 15],
  ['claude-3-haiku', 0.25, 1.25],
  ['claude-3-5-sonnet', 3, 15],
  ['claude-3-5-haiku', 0.8, 4],
  ['claude-3-7-sonnet', 3, 15],
  ['claude-sonnet-4', 3, 15],
  ['claude-opus-4', 15, 75],
  ['gemini-1.5-pro', 1.25, 5],
  ['gemini-1.5-flash', 0.075, 0.3],
  ['gemini-2.0-flash', 0.1, 0.4],
];

/** The price per million tokens of a model (`input` or `output`), null for a model not in the table. */
function price(model: string, side: 'input' | 'output'): string {
  const byLength = [...GENAI_PRICES].sort((a, b) => b[0].length - a[0].length);
  return reuse(`lower(${model})`, 'gmod', (m) => {
    const cases = byLength.map(([name, input, output]) => `WHEN ${m} = ${quoteString(name)} OR starts_with(${m}, ${quoteString(`${name}-`)}) THEN ${sqlReal(side === 'input' ? input : output)}`);
    return `CASE ${cases.join(' ')} END`;
  });
}

/** Tokens at a model's price, in USD. */
const cost = (model: string, tokens: string, side: 'input' | 'output'): string => `(${tokens} * ${price(model, side)} / 1000000.0)`;

const messagesParam: Param = oneOf('messages', ['dynamic', 'string'], { hint: '; pass the messages array (dynamic, or a string holding its JSON)' });

/** A conversation every example below reads: a system prompt, two user turns, a tool call and its result. */
const CHAT =
  'dynamic([{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Weather in Lisbon?"}, ' +
  '{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Lisbon\\"}"}}]}, ' +
  '{"role": "tool", "tool_call_id": "c1", "content": "{\\"temperature\\": 21}"}, {"role": "assistant", "content": "21 °C."}, ' +
  '{"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]}, {"role": "assistant", "content": "Sunny."}])';

/** The same kind of conversation in OpenTelemetry's `gen_ai.input.messages` form. */
const OTEL_CHAT =
  'dynamic([{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}, ' +
  '{"role": "assistant", "parts": [{"type": "tool_call", "id": "t1", "name": "lookup", "arguments": {"q": "x"}}]}, ' +
  '{"role": "tool", "parts": [{"type": "tool_call_response", "id": "t1", "response": {"found": true}}]}, ' +
  '{"role": "assistant", "parts": [{"type": "text", "content": "Found it."}]}])';

/** GenAI functions (scalar-functions/genai-functions). */
export const GENAI_FUNCTIONS: readonly FunctionDef[] = [
  {
    name: 'genai_concat_contents',
    summary: 'The texts of every message of a conversation, joined by a separator (a space by default); the empty string for no messages.',
    params: [messagesParam, text('separator', { optional: true })],
    returns: 'string',
    sql: (c) => {
      const texts = `list_filter(list_transform(${elements(c)}, gm -> ${messageText('gm')}), gt -> gt IS NOT NULL)`;
      if (c.call.args.length < 2) return `coalesce(array_to_string(${texts}, ' '), '')`;
      // DuckDB joins with a constant separator only: each text after the first is prefixed with it instead.
      return reuse(c.arg(1), 'gsep', (sep) => `coalesce(substr(array_to_string(list_transform(${texts}, gt -> ${sep} || gt), ''), length(${sep}) + 1), '')`);
    },
    examples: [
      { apl: `genai_concat_contents(${CHAT}, ' | ')`, result: 'You are terse. | Weather in Lisbon? | {"temperature": 21} | 21 °C. | And tomorrow? | Sunny.', type: 'string' },
      { apl: `genai_concat_contents(${OTEL_CHAT})`, result: 'Hi Found it.' },
      { apl: "genai_concat_contents('[{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", \"content\": \"b\"}]')", result: 'a b' },
      { apl: 'genai_concat_contents(dynamic(null))', result: '' },
      { apl: `genai_concat_contents(${OTEL_CHAT}, method)`, result: 'HiGETFound it.' },
    ],
  },
  {
    name: 'genai_conversation_turns',
    summary: 'The number of turns of a conversation: its user messages (each starts a turn); 0 for no messages.',
    params: [messagesParam],
    returns: 'long',
    sql: (c) => `coalesce(len(list_filter(${elements(c)}, gm -> ${role('gm')} = 'user')), 0)`,
    examples: [
      { apl: `genai_conversation_turns(${CHAT})`, result: 2, type: 'integer' },
      { apl: `genai_conversation_turns(${OTEL_CHAT})`, result: 1 },
      { apl: "genai_conversation_turns('not json')", result: 0 },
    ],
  },
  {
    name: 'genai_cost',
    summary: 'The cost in USD of a call to a model: input and output tokens at the model’s list prices (see genai_get_pricing); null for a model not in the table.',
    params: [text('model'), integer('input_tokens'), integer('output_tokens')],
    returns: 'real',
    sql: (c) => reuse(c.arg(0), 'gc', (model) => `(${cost(model, c.arg(1), 'input')} + ${cost(model, c.arg(2), 'output')})`),
    examples: [
      { apl: "genai_cost('gpt-4', 1000, 500)", result: 0.06, type: 'float' },
      { apl: "genai_cost('claude-3-opus-20240229', 1000000, 0)", result: 15 },
      { apl: "genai_cost('my-own-model', 10, 10)", result: null },
    ],
  },
  {
    name: 'genai_estimate_tokens',
    summary: 'An estimate of the tokens in a text: one per four characters, rounded up (0 for empty or null text).',
    params: [text('text')],
    returns: 'long',
    sql: (c) => `coalesce(CAST(ceil(length(${c.arg(0)}) / 4.0) AS BIGINT), 0)`,
    examples: [
      { apl: "genai_estimate_tokens('What is the weather like in Lisbon today?')", result: 11, type: 'integer' },
      { apl: `genai_estimate_tokens(genai_extract_user_prompt(${CHAT}))`, result: 4 },
      { apl: "genai_estimate_tokens('')", result: 0 },
    ],
  },
  {
    name: 'genai_extract_assistant_response',
    summary: 'The text of the last assistant message of a conversation; the empty string if there is none.',
    params: [messagesParam],
    returns: 'string',
    sql: (c) => textOfRole(c, "'assistant'", true),
    examples: [
      { apl: `genai_extract_assistant_response(${CHAT})`, result: 'Sunny.', type: 'string' },
      { apl: `genai_extract_assistant_response(${OTEL_CHAT})`, result: 'Found it.' },
      { apl: 'genai_extract_assistant_response(dynamic([{"role": "user", "content": "hi"}]))', result: '' },
    ],
  },
  {
    name: 'genai_extract_function_results',
    summary: 'The result of the last tool or function call of a conversation (a `tool`/`function` message’s content, JSON text parsed, or a `tool_call_response` part’s response); null if there is none.',
    params: [messagesParam],
    returns: 'dynamic',
    sql: (c) => `CAST((${toolResults(c)})[-1] AS VARCHAR)`,
    examples: [
      { apl: `genai_extract_function_results(${CHAT})`, result: { temperature: 21 }, type: 'object' },
      { apl: `genai_extract_function_results(${OTEL_CHAT})`, result: { found: true } },
      { apl: 'genai_extract_function_results(dynamic([{"role": "function", "content": "done"}]))', result: 'done' },
      { apl: 'genai_extract_function_results(dynamic([{"role": "user", "content": "hi"}]))', result: null },
    ],
  },
  {
    name: 'genai_extract_system_prompt',
    summary: 'The text of the (first) system message of a conversation; the empty string if there is none.',
    params: [messagesParam],
    returns: 'string',
    sql: (c) => textOfRole(c, "'system'", false),
    examples: [
      { apl: `genai_extract_system_prompt(${CHAT})`, result: 'You are terse.', type: 'string' },
      { apl: `genai_extract_system_prompt(${OTEL_CHAT})`, result: '' },
    ],
  },
  {
    name: 'genai_extract_tool_calls',
    summary: 'Every tool call of a conversation as an array (OpenAI’s `tool_calls` entries, OpenTelemetry’s `tool_call` parts); null if there are none.',
    params: [messagesParam],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => bindOnce(toolCalls(c), 'gtc', `CASE WHEN len(gtc) > 0 THEN ${jsonText('gtc')} END`),
    examples: [
      { apl: `genai_extract_tool_calls(${CHAT})[0]['function']['name']`, result: 'get_weather' },
      { apl: `genai_extract_tool_calls(${OTEL_CHAT})`, result: [{ type: 'tool_call', id: 't1', name: 'lookup', arguments: { q: 'x' } }], type: 'array' },
      { apl: 'genai_extract_tool_calls(dynamic([{"role": "user", "content": "hi"}]))', result: null },
    ],
  },
  {
    name: 'genai_extract_user_prompt',
    summary: 'The text of the last user message of a conversation; the empty string if there is none.',
    params: [messagesParam],
    returns: 'string',
    sql: (c) => textOfRole(c, "'user'", true),
    examples: [
      { apl: `genai_extract_user_prompt(${CHAT})`, result: 'And tomorrow?', type: 'string' },
      { apl: `genai_extract_user_prompt(${OTEL_CHAT})`, result: 'Hi' },
    ],
  },
  {
    name: 'genai_get_content_by_index',
    summary: 'The text of the message at a zero-based position; the empty string out of bounds.',
    params: [messagesParam, integer('index')],
    returns: 'string',
    sql: (c) => reuse(c.arg(1), 'gi', (i) => `CASE WHEN ${i} >= 0 THEN coalesce(${messageText(`(${elements(c)})[${i} + 1]`)}, '') ELSE '' END`),
    examples: [
      { apl: `genai_get_content_by_index(${CHAT}, 1)`, result: 'Weather in Lisbon?', type: 'string' },
      { apl: `genai_get_content_by_index(${CHAT}, 5)`, result: 'And tomorrow?' },
      { apl: `genai_get_content_by_index(${CHAT}, 7)`, result: '' },
      { apl: `genai_get_content_by_index(${CHAT}, -1)`, result: '' },
    ],
  },
  {
    name: 'genai_get_content_by_role',
    summary: 'The text of the first message of a role (user, assistant, system, tool, function…); the empty string if there is none.',
    params: [messagesParam, text('role')],
    returns: 'string',
    sql: (c) => textOfRole(c, c.arg(1), false),
    examples: [
      { apl: `genai_get_content_by_role(${CHAT}, 'user')`, result: 'Weather in Lisbon?', type: 'string' },
      { apl: `genai_get_content_by_role(${CHAT}, 'assistant')`, result: '' },
      { apl: `genai_get_content_by_role(${CHAT}, 'tool')`, result: '{"temperature": 21}' },
      { apl: `genai_get_content_by_role(${CHAT}, 'developer')`, result: '' },
    ],
  },
  {
    name: 'genai_get_pricing',
    summary: 'A model’s list prices, `{input_price_per_million, output_price_per_million}` in USD, from a table of OpenAI, Anthropic and Google models (a dated version priced as its model); null for a model not in it.',
    params: [text('model')],
    returns: 'dynamic',
    reported: 'object',
    sql: (c) =>
      reuse(c.arg(0), 'gp', (model) => `CASE WHEN ${price(model, 'input')} IS NOT NULL THEN CAST(json_object('input_price_per_million', ${price(model, 'input')}, 'output_price_per_million', ${price(model, 'output')}) AS VARCHAR) END`),
    examples: [
      { apl: "genai_get_pricing('gpt-4')", result: { input_price_per_million: 30, output_price_per_million: 60 }, type: 'object' },
      { apl: "genai_get_pricing('gpt-3.5-turbo')", result: { input_price_per_million: 0.5, output_price_per_million: 1.5 } },
      { apl: "genai_get_pricing('GPT-4o-mini-2024-07-18')", result: { input_price_per_million: 0.15, output_price_per_million: 0.6 } },
      { apl: "genai_get_pricing('gpt-4o-2024-08-06').input_price_per_million", result: 2.5 },
      { apl: "genai_get_pricing('unknown')", result: null },
    ],
  },
  {
    name: 'genai_get_role',
    summary: 'The role of the message at a zero-based position; the empty string out of bounds.',
    params: [messagesParam, integer('index')],
    returns: 'string',
    sql: (c) => reuse(c.arg(1), 'gi', (i) => `CASE WHEN ${i} >= 0 THEN coalesce(${role(`(${elements(c)})[${i} + 1]`)}, '') ELSE '' END`),
    examples: [
      { apl: `genai_get_role(${CHAT}, 0)`, result: 'system', type: 'string' },
      { apl: `genai_get_role(${CHAT}, 3)`, result: 'tool' },
      { apl: `genai_get_role(${CHAT}, 10)`, result: '' },
    ],
  },
  {
    name: 'genai_has_tool_calls',
    summary: 'Whether a conversation holds a tool call (OpenAI’s `tool_calls`, OpenTelemetry’s `tool_call` parts).',
    params: [messagesParam],
    returns: 'bool',
    sql: (c) => `(len(${toolCalls(c)}) > 0)`,
    examples: [
      { apl: `genai_has_tool_calls(${CHAT})`, result: true, type: 'boolean' },
      { apl: `genai_has_tool_calls(${OTEL_CHAT})`, result: true },
      { apl: 'genai_has_tool_calls(dynamic([{"role": "user", "content": "hi"}]))', result: false },
      { apl: 'genai_has_tool_calls(dynamic(null))', result: false },
    ],
  },
  {
    name: 'genai_is_truncated',
    summary: 'Whether a response was cut short: its finish reason (a string, or an array of them as OpenTelemetry records) is `length` or `max_tokens`, in any case.',
    params: [messagesParam, oneOf('finish_reason', ['string', 'dynamic'])],
    returns: 'bool',
    sql: (c) => {
      const reasons =
        c.type(1) === 'string'
          ? `[${c.arg(1)}]`
          : reuse(c.arg(1), 'gf', (f) => `CASE WHEN json_type(${f}) = 'ARRAY' THEN list_transform(CAST(${f} AS JSON[]), r -> json_extract_string(r, '$')) ELSE [json_extract_string(${f}, '$')] END`);
      return `coalesce(list_bool_or(list_transform(${reasons}, r -> lower(r) IN ('length', 'max_tokens'))), false)`;
    },
    examples: [
      { apl: `genai_is_truncated(${CHAT}, 'length')`, result: true, type: 'boolean' },
      { apl: `genai_is_truncated(${CHAT}, 'stop')`, result: false },
      { apl: `genai_is_truncated(${CHAT}, dynamic(['MAX_TOKENS']))`, result: true },
      { apl: `genai_is_truncated(${CHAT}, string(null))`, result: false },
    ],
  },
  {
    name: 'genai_message_roles',
    summary: 'The roles of a conversation’s messages, in order, as an array.',
    params: [messagesParam],
    returns: 'dynamic',
    reported: 'array',
    sql: (c) => bindOnce(elements(c), 'gl', `CASE WHEN gl IS NOT NULL THEN ${jsonText(`list_transform(gl, gm -> ${role('gm')})`)} END`),
    examples: [
      { apl: `genai_message_roles(${CHAT})`, result: ['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant'], type: 'array' },
      { apl: "genai_message_roles('[]')", result: [] },
      { apl: 'genai_message_roles(dynamic({"role": "user"}))', result: null },
    ],
  },
  {
    name: 'genai_input_cost',
    summary: 'The cost in USD of a call’s input tokens at the model’s list price; null for a model not in the table.',
    params: [text('model'), integer('input_tokens')],
    returns: 'real',
    sql: (c) => cost(c.arg(0), c.arg(1), 'input'),
    examples: [
      { apl: "genai_input_cost('gpt-3.5-turbo', 2000)", result: 0.001, type: 'float' },
      { apl: "genai_input_cost('gemini-1.5-flash-002', 1000000)", result: 0.075 },
    ],
  },
  {
    name: 'genai_output_cost',
    summary: 'The cost in USD of a call’s output tokens at the model’s list price; null for a model not in the table.',
    params: [text('model'), integer('output_tokens')],
    returns: 'real',
    sql: (c) => cost(c.arg(0), c.arg(1), 'output'),
    examples: [
      { apl: "genai_output_cost('gpt-4', 500)", result: 0.03, type: 'float' },
      { apl: "genai_output_cost('claude-3-5-sonnet-20241022', 1000)", result: 0.015 },
    ],
  },
];

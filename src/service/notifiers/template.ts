/**
 * Body templates of custom webhook notifiers. Axiom writes them in Go's text/template syntax; the
 * local service understands the part of it that webhook bodies use: `{{.Name}}` for each variable
 * of the notification, the `{{-` / `-}}` whitespace trimming, and (a local extension) `{{json
 * .Name}}` for a value written as JSON, which keeps a body valid JSON whatever a title contains.
 * Anything else is refused when the notifier is saved, never discovered at delivery time.
 * Templates are data: they are parsed into parts, never evaluated as code.
 */
import { InputError } from '../../common/errors.js';
import { TEMPLATE_VARIABLES, templateVariables, type MonitorNotification, type TemplateVariable } from './notification.js';

export class TemplateError extends InputError {
  constructor(message: string) {
    super(message, { code: 'invalid_template' });
  }
}

type TemplatePart = { kind: 'text'; text: string } | { kind: 'value'; name: TemplateVariable; json: boolean };

export type BodyTemplate = readonly TemplatePart[];

const ACTION = /^\s*(?:(json)\s+)?\.([A-Za-z]+)\s*$/;

const EXPECTED = `Expected {{.Name}} or {{json .Name}} with Name one of ${TEMPLATE_VARIABLES.join(', ')}`;

export function compileBodyTemplate(source: string): BodyTemplate {
  const parts: TemplatePart[] = [];
  let text = '';
  let position = 0;
  while (position < source.length) {
    const open = source.indexOf('{{', position);
    if (open === -1) {
      text += source.slice(position);
      break;
    }
    text += source.slice(position, open);
    const close = source.indexOf('}}', open + 2);
    if (close === -1) throw new TemplateError(`The body template has "{{" without "}}" at ${where(source, open)}. ${EXPECTED}.`);
    let inner = source.slice(open + 2, close);
    // Go's trim markers: "{{- " trims the whitespace before the action, " -}}" the whitespace after it.
    const trimBefore = /^-\s/.test(inner);
    const trimAfter = /\s-$/.test(inner);
    if (trimBefore) inner = inner.slice(1);
    if (trimAfter) inner = inner.slice(0, -1);
    if (trimBefore) text = text.trimEnd();
    const match = ACTION.exec(inner);
    const name = match?.[2];
    if (!match || !isVariable(name)) {
      throw new TemplateError(`Unsupported template action ${JSON.stringify(source.slice(open, close + 2))} at ${where(source, open)}. ${EXPECTED}.`);
    }
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
    parts.push({ kind: 'value', name, json: match[1] === 'json' });
    position = close + 2;
    if (trimAfter) {
      while (position < source.length && /\s/.test(source.charAt(position))) position++;
    }
  }
  if (text !== '') parts.push({ kind: 'text', text });
  return parts;
}

export function renderBodyTemplate(template: BodyTemplate, notification: MonitorNotification): string {
  const variables = templateVariables(notification);
  return template
    .map((part) => {
      if (part.kind === 'text') return part.text;
      const value = variables[part.name];
      if (part.json || (value !== null && typeof value === 'object')) return JSON.stringify(value);
      return value === null ? 'null' : String(value);
    })
    .join('');
}

function isVariable(name: string | undefined): name is TemplateVariable {
  return (TEMPLATE_VARIABLES as readonly string[]).includes(name ?? '');
}

function where(source: string, offset: number): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/**
 * `body` with `value` computed once per row and named `name` in it, through a lambda over a
 * one-element list. Written out instead, a complex value is repeated in the statement once per
 * reference — and nested conversions multiply that, until DuckDB spends seconds binding one
 * expression. `name` may repeat in nested uses: each lambda has its own scope, and the value is
 * evaluated outside it.
 */
export function bindOnce(value: string, name: string, body: string): string {
  return `list_transform([${value}], ${name} -> ${body})[1]`;
}

/** `body` of a value it refers to several times: a column or a parameter as it is, anything else bound once. */
export function reuse(value: string, name: string, body: (ref: string) => string): string {
  return /^"[^"]*"$|^\$\d+::[A-Z]+$/.test(value) ? body(value) : bindOnce(value, name, body(name));
}

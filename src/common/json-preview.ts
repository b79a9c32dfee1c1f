/**
 * The JSON text of `value`, cut to `limit` characters (then "…"), for quoting a bad value in an
 * error message. It walks no deeper than the text it writes — each level writes at least one
 * character — so a value nested thousands deep, or a string of megabytes, costs next to nothing.
 */
export function previewJson(value: unknown, limit = 60): string {
  let text = '';
  const write = (item: unknown): void => {
    if (text.length > limit) return;
    if (typeof item === 'string') {
      text += JSON.stringify(item.length > limit ? item.slice(0, limit + 1) : item);
    } else if (Array.isArray(item)) {
      text += '[';
      for (let index = 0; index < item.length && text.length <= limit; index++) {
        if (index > 0) text += ',';
        write(item[index]);
      }
      text += ']';
    } else if (item !== null && typeof item === 'object') {
      text += '{';
      let first = true;
      for (const key in item) {
        if (text.length > limit) break;
        if (!Object.hasOwn(item, key)) continue;
        text += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        write((item as Record<string, unknown>)[key]);
      }
      text += '}';
    } else {
      // Numbers, booleans and null as JSON writes them; undefined as JSON writes it inside arrays.
      text += JSON.stringify(item) ?? 'null';
    }
  };
  write(value);
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

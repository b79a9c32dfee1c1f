/**
 * A dataset or field name written into APL text as `['name']`, with `\` and `'` escaped: any
 * name, dots and spaces included, stays one name and never becomes query syntax. Shared by the
 * dashboard's default queries and the queries of src/impact/.
 */
export function quoteAplName(name: string): string {
  return `['${name.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

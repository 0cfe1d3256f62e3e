/**
 * The API names bulk-grant items by their index in the request (`item 2`,
 * `items 0 and 2`, from 0, as a cause's `index` is); the grant form numbers its
 * rows from 1, so a detail shown next to a row speaks of rows. Pure (tested under Node).
 */
export function asRows(detail: string): string {
  return detail.replace(/\bitems? (\d+)(?: and (\d+))?/g, (_, a: string, b: string | undefined) =>
    b === undefined ? `row ${Number(a) + 1}` : `rows ${Number(a) + 1} and ${Number(b) + 1}`,
  );
}

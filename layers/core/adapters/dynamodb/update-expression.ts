/**
 * Builds `SET #a = :a, …` for the defined fields of `changes`, plus any
 * `extra` clauses (which use their own placeholders) and a `REMOVE` of
 * `extra.remove` (storage attribute names, used as they are). Names of
 * changed fields are always aliased, so any field name (even a reserved word
 * like `status` or `name`) is safe.
 */
export function updateExpressionFor(
  changes: Record<string, unknown>,
  extra: {
    set?: readonly string[];
    values?: Record<string, unknown>;
    remove?: readonly string[];
  } = {},
): {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ...extra.values };
  const assignments: string[] = [];
  Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .forEach(([field, value], index) => {
      names[`#f${index}`] = field;
      values[`:v${index}`] = value;
      assignments.push(`#f${index} = :v${index}`);
    });
  assignments.push(...(extra.set ?? []));
  const removal = extra.remove?.length ? ` REMOVE ${extra.remove.join(', ')}` : '';
  return {
    UpdateExpression: `SET ${assignments.join(', ')}${removal}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { VersionCondition } from '../../books/preconditions';
import type { VersionedBook } from '../../books/types';
import { type BookItem, toBook } from './book-items';

export const versioned = (item: BookItem): VersionedBook => ({ book: toBook(item), version: Number(item.version) });

/**
 * The preconditions as condition-expression terms over the stored version, their values added to
 * `values`: If-Match as `version IN (…)`, If-None-Match as `NOT version IN (…)`, and If-None-Match `*`
 * as a term no existing item meets (the book must exist too, so such a write never proceeds).
 */
export const versionConditions = (
  condition: VersionCondition | undefined,
  values: Record<string, unknown>,
): string[] => {
  const terms: string[] = [];
  const listed = (name: string, versions: readonly number[]) => {
    versions.forEach((version, i) => {
      values[`:${name}${i}`] = version;
    });
    return `version IN (${versions.map((_, i) => `:${name}${i}`).join(', ')})`;
  };
  const { match, noneMatch } = condition ?? {};
  if (match !== undefined && match !== '*') {
    terms.push(listed('ifMatch', match.length > 0 ? match : [0])); // 0: no stored version, so nothing matches
  }
  if (noneMatch === '*') terms.push('attribute_not_exists(pk)');
  else if (noneMatch !== undefined && noneMatch.length > 0) terms.push(`NOT ${listed('ifNoneMatch', noneMatch)}`);
  return terms;
};

/**
 * `SET` of the changed attributes, `REMOVE` of those whose value is `undefined` (a replace that
 * omits an optional field), and the next version, under the given conditions.
 */
export const updateExpression = (
  attributes: Record<string, unknown>,
  conditions: string[],
  values: Record<string, unknown>,
) => {
  const names = Object.keys(attributes);
  const alias = (name: string) => `#a${names.indexOf(name)}`;
  const set = names.filter((name) => attributes[name] !== undefined);
  const removed = names.filter((name) => attributes[name] === undefined);
  return {
    UpdateExpression: [
      `SET ${set.map((name) => `${alias(name)} = :a${names.indexOf(name)}`).join(', ')}`,
      ...(removed.length > 0 ? [`REMOVE ${removed.map(alias).join(', ')}`] : []),
      'ADD version :one',
    ].join(' '),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
    ExpressionAttributeValues: {
      ...values,
      ...Object.fromEntries(set.map((name) => [`:a${names.indexOf(name)}`, attributes[name]])),
      ':one': 1,
    },
  };
};

/**
 * The item a failed condition saw (ReturnValuesOnConditionCheckFailure ALL_OLD), undefined when
 * there was none. The document client leaves it in DynamoDB's attribute-value form.
 */
export const itemAsItWas = <T>(error: unknown): T | undefined => {
  const item = (error as ConditionalCheckFailedException).Item;
  return item && (unmarshall(item) as T);
};

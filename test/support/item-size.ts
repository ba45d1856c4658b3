import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * An item's size as DynamoDB counts it for capacity and its 400 KB limit (Developer Guide, "DynamoDB
 * item sizes and formats"): each attribute's UTF-8 name plus its value; a string its UTF-8 bytes, a
 * number 1 byte plus 1 per two significant digits, a list or map 3 bytes plus 1 per element plus
 * the elements (a map's with their names).
 */
export const itemSize = (item: Record<string, AttributeValue>): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + valueSize(value), 0);

const significantDigits = (number: string) => number.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;

const valueSize = (value: AttributeValue): number => {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.N !== undefined) return 1 + Math.ceil(significantDigits(value.N) / 2);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M !== undefined) return 3 + itemSize(value.M) + Object.keys(value.M).length;
  throw new TypeError(`No size rule for ${Object.keys(value).join(', ')}`);
};

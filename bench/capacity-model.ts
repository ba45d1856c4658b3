import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IndexDefinition, TableDefinition } from '../shared/store/tables';
import type { MeteredCall } from './dynamodb-meter';

/**
 * What one DynamoDB call costs on each partition key and item it touches, as DynamoDB bills it:
 * - a write: 1 WCU per KB of the item, on the item's table key and, per index the item is in, on
 *   the index key (a changed index key costs a delete on the old key too); transactional writes
 *   cost twice, and this model charges the index copies of a transactional write twice as well
 *   (the conservative reading: DynamoDB documents the doubling for the item, not for its indexes;
 *   CapacityModelOptions charges them once instead, to show what that reading costs a ceiling);
 * - a strongly consistent read: 1 RCU per 4 KB read (GetItem, Query), an eventually consistent one
 *   half that; a Query is charged for the items it returns, at least one unit.
 * - a single-item write whose condition fails: charged too (at least 1 unit), changing nothing.
 * Dynoxide never throttles, so this is how the ceilings are known: a partition serves 1,000 WCU/s or
 * 3,000 RCU/s or a linear mix of both (ceilingOf), and DynamoDB never splits a single item.
 */
export interface Touch {
  /** `table pk=BOOK#3`, or `byYearShard yearShard=5#1999`. */
  partition: string;
  /** `pk=BOOK#3 sk=35` for writes (an item can take 1,000 WCU/s at most). */
  item?: string;
  wcu: number;
  rcu: number;
}

type Item = Record<string, unknown>;

const bytesOfValue = (value: unknown): number => {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + bytesOfValue(v), 0);
  if (typeof value === 'object') return 3 + itemBytes(value as Item);
  return 0;
};

/** DynamoDB's item size: attribute names plus values (numbers by significant digits). */
const itemBytes = (item: Item): number =>
  Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name, 'utf8') + bytesOfValue(value), 0);

const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
const readUnits = (bytes: number, consistent: boolean) => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

type Image = Record<string, AttributeValue>;

/** The parts of DynamoDB's wire requests and responses the model reads. */
interface WireRequest {
  Key?: Image;
  Item?: Image;
  ConsistentRead?: boolean;
  TransactItems?: { Put?: { Item: Image }; Delete?: { Key: Image }; Update?: { Key: Image } }[];
  KeyConditionExpression?: string;
  ExpressionAttributeValues?: Image;
  IndexName?: string;
}

interface WireResponse {
  Item?: Image;
  Items?: Image[];
  ScannedCount?: number;
}

const decode = (image: Image | undefined): Item => unmarshall(image ?? {});

export interface CapacityModelOptions {
  /**
   * What a transactional write costs on each index key, per unit of the item: 2 (the default, the
   * conservative reading above) or 1 (index copies written as ordinary writes), to show how much of
   * a ceiling that reading accounts for.
   */
  transactionalIndexFactor?: 1 | 2;
}

export class CapacityModel {
  /** The last image written per item, so a replace or delete knows the index keys it leaves. */
  private readonly images = new Map<string, Item>();
  private readonly transactionalIndexFactor: number;

  constructor(
    private readonly table: TableDefinition,
    { transactionalIndexFactor = 2 }: CapacityModelOptions = {},
  ) {
    this.transactionalIndexFactor = transactionalIndexFactor;
  }

  private itemId(key: Item) {
    const sk = this.table.sortKey ? ` ${this.table.sortKey.name}=${String(key[this.table.sortKey.name])}` : '';
    return `${this.table.partitionKey.name}=${String(key[this.table.partitionKey.name])}${sk}`;
  }

  private tablePartition(key: Item) {
    return `table ${this.table.partitionKey.name}=${String(key[this.table.partitionKey.name])}`;
  }

  private indexPartition(index: IndexDefinition, item: Item) {
    const value = item[index.partitionKey.name];
    return value === undefined ? undefined : `${index.indexName} ${index.partitionKey.name}=${String(value)}`;
  }

  /** A write of `next` (undefined: a delete) over the item at `key`, in a transaction or not. */
  private write(key: Item, next: Item | undefined, transactional: boolean, update = false): Touch[] {
    const id = this.itemId(key);
    const previous = this.images.get(id);
    const merged = update ? { ...previous, ...key } : next;
    const itemUnits = writeUnits(itemBytes(merged ?? previous ?? key));
    const units = itemUnits * (transactional ? 2 : 1);
    const indexUnits = itemUnits * (transactional ? this.transactionalIndexFactor : 1);
    const touches: Touch[] = [{ partition: this.tablePartition(key), item: id, wcu: units, rcu: 0 }];
    for (const index of this.table.indexes) {
      const before = previous && this.indexPartition(index, previous);
      const after = merged && this.indexPartition(index, merged);
      if (after) touches.push({ partition: after, wcu: indexUnits, rcu: 0 });
      if (before && before !== after) touches.push({ partition: before, wcu: indexUnits, rcu: 0 });
    }
    if (merged) this.images.set(id, merged);
    else this.images.delete(id);
    return touches;
  }

  /**
   * A single-item write whose condition failed: charged as a write of the item as it was (of the
   * key alone when it was absent or not returned), at least 1 unit, and changing nothing.
   */
  private failedWrite(call: MeteredCall): Touch[] {
    const request = call.request as WireRequest;
    const key = decode(request.Key ?? request.Item);
    const failedCondition = String(call.response.__type ?? '').endsWith('ConditionalCheckFailedException');
    if (!failedCondition || !['PutItem', 'UpdateItem', 'DeleteItem'].includes(call.operation)) return [];
    const item = (call.response as WireResponse).Item;
    const units = writeUnits(item ? itemBytes(decode(item)) : itemBytes(key));
    return [{ partition: this.tablePartition(key), item: this.itemId(key), wcu: units, rcu: 0 }];
  }

  touchesOf(call: MeteredCall): Touch[] {
    const request = call.request as WireRequest;
    const response = call.response as WireResponse;
    if (call.status !== 200) return this.failedWrite(call);
    switch (call.operation) {
      case 'GetItem': {
        const key = decode(request.Key);
        const bytes = response.Item ? itemBytes(decode(response.Item)) : 0;
        return [
          { partition: this.tablePartition(key), wcu: 0, rcu: readUnits(bytes, request.ConsistentRead === true) },
        ];
      }
      case 'PutItem':
        return this.write(decode(request.Item), decode(request.Item), false);
      case 'UpdateItem':
        return this.write(decode(request.Key), undefined, false, true);
      case 'DeleteItem':
        return this.write(decode(request.Key), undefined, false);
      case 'TransactWriteItems':
        return (request.TransactItems ?? []).flatMap((entry) => {
          if (entry.Put) return this.write(decode(entry.Put.Item), decode(entry.Put.Item), true);
          if (entry.Delete) return this.write(decode(entry.Delete.Key), undefined, true);
          if (entry.Update) return this.write(decode(entry.Update.Key), undefined, true, true);
          return [];
        });
      case 'Query': {
        // The partition key's equality comes first (`pk = :pk`, `authorShard = :a AND begins_with(yearId, :y)`).
        const [, attribute = '', placeholder = ''] =
          /^\s*([#\w]+)\s*=\s*(:\w+)/.exec(String(request.KeyConditionExpression)) ?? [];
        const value = decode(request.ExpressionAttributeValues)[placeholder];
        const items = response.Items ?? [];
        const returned = items.reduce((sum: number, item) => sum + itemBytes(decode(item)), 0);
        // A filter is applied after the read: charge what was scanned, at the returned items' average size.
        const scanned = Number(response.ScannedCount ?? items.length);
        const bytes = items.length > 0 ? (returned / items.length) * scanned : 0;
        const where = request.IndexName ? String(request.IndexName) : 'table';
        return [
          {
            partition: `${where} ${attribute}=${String(value)}`,
            wcu: 0,
            rcu: readUnits(bytes, request.ConsistentRead === true),
          },
        ];
      }
      default:
        return [];
    }
  }
}

/** One scenario's load per request, by partition key and by item. */
export interface LoadProfile {
  requests: number;
  calls: number;
  partitions: Map<string, { wcu: number; rcu: number }>;
  items: Map<string, number>;
}

export const profileOf = (model: CapacityModel, calls: MeteredCall[], requests: number): LoadProfile => {
  const partitions = new Map<string, { wcu: number; rcu: number }>();
  const items = new Map<string, number>();
  // Whole units summed first and divided once: a key at exactly the limit is not put over it by rounding.
  for (const touch of calls.flatMap((call) => model.touchesOf(call))) {
    const load = partitions.get(touch.partition) ?? { wcu: 0, rcu: 0 };
    load.wcu += touch.wcu;
    load.rcu += touch.rcu;
    partitions.set(touch.partition, load);
    if (touch.item && touch.wcu > 0) items.set(touch.item, (items.get(touch.item) ?? 0) + touch.wcu);
  }
  for (const load of partitions.values()) {
    load.wcu /= requests;
    load.rcu /= requests;
  }
  for (const [item, wcu] of items) items.set(item, wcu / requests);
  return { requests, calls: calls.length / requests, partitions, items };
};

/** Several profiles in the given proportions, as one request of the mix. */
export const mixOf = (parts: [LoadProfile, number][]): LoadProfile => {
  const total = parts.reduce((sum, [, weight]) => sum + weight, 0);
  const partitions = new Map<string, { wcu: number; rcu: number }>();
  const items = new Map<string, number>();
  let calls = 0;
  for (const [profile, weight] of parts) {
    const share = weight / total;
    calls += profile.calls * share;
    for (const [key, load] of profile.partitions) {
      const into = partitions.get(key) ?? { wcu: 0, rcu: 0 };
      into.wcu += load.wcu * share;
      into.rcu += load.rcu * share;
      partitions.set(key, into);
    }
    for (const [key, wcu] of profile.items) items.set(key, (items.get(key) ?? 0) + wcu * share);
  }
  return { requests: 1, calls, partitions, items };
};

const PARTITION_WCU_PER_SECOND = 1_000;
const PARTITION_RCU_PER_SECOND = 3_000;
const ITEM_WCU_PER_SECOND = 1_000;
/** What a new on-demand table sustains before it has scaled: 4,000 write and 12,000 read units a second. */
export const NEW_TABLE_WCU_PER_SECOND = 4_000;
export const NEW_TABLE_RCU_PER_SECOND = 12_000;
/** The partitions a new on-demand table's 4,000 write units a second take at 1,000 each: the model's assumption. */
export const NEW_TABLE_PARTITIONS = NEW_TABLE_WCU_PER_SECOND / PARTITION_WCU_PER_SECOND;

/** A partition's share of its one budget per request: write and read units, linearly (1 = a full second). */
const partitionShare = ({ wcu, rcu }: { wcu: number; rcu: number }): number =>
  wcu / PARTITION_WCU_PER_SECOND + rcu / PARTITION_RCU_PER_SECOND;

export interface CeilingOptions {
  /**
   * The table's partitions, for a table whose keys hash over a few: every other key's load lands on
   * a hot key's partition in proportion (1/partitions), as one-use keys (nonces) do. Unset: keys
   * are charged alone (the books table's ceilings, whose hot keys are the point of its model).
   */
  partitions?: number;
  /** Table-wide units a second (a new on-demand table: NEW_TABLE_*). */
  tableLimit?: { wcu: number; rcu: number };
}

export interface Ceiling {
  /** Requests per second before the first key or item reaches DynamoDB's limit. */
  requestsPerSecond: number;
  /** What limits it: the hottest key and the resource. */
  limitedBy: string;
  /** The hottest key's share of all write units. */
  maxWriteShare: number;
  callsPerRequest: number;
}

const resourcesOf = ({ wcu, rcu }: { wcu: number; rcu: number }) =>
  wcu > 0 && rcu > 0 ? 'reads and writes' : wcu > 0 ? 'writes' : 'reads';

/**
 * The rate at which the first partition, item or the table reaches its limit. A partition has one
 * budget that reads and writes share linearly (wcu/1,000 + rcu/3,000 per second at most 1), not
 * two separate ones.
 */
export const ceilingOf = (profile: LoadProfile, { partitions, tableLimit }: CeilingOptions = {}): Ceiling => {
  let best = { rate: Number.POSITIVE_INFINITY, by: 'nothing' };
  const consider = (rate: number, by: string) => {
    if (rate < best.rate) best = { rate, by };
  };
  const total = { wcu: 0, rcu: 0 };
  let hottestWcu = 0;
  for (const load of profile.partitions.values()) {
    total.wcu += load.wcu;
    total.rcu += load.rcu;
    hottestWcu = Math.max(hottestWcu, load.wcu);
  }
  for (const [key, load] of profile.partitions) {
    const shared = partitions
      ? { wcu: (total.wcu - load.wcu) / partitions, rcu: (total.rcu - load.rcu) / partitions }
      : undefined;
    const onPartition = shared ? { wcu: load.wcu + shared.wcu, rcu: load.rcu + shared.rcu } : load;
    const share = partitionShare(onPartition);
    if (share > 0) consider(1 / share, `${resourcesOf(onPartition)} on ${key}${shared ? ' and its partition' : ''}`);
  }
  for (const [item, wcu] of profile.items) consider(ITEM_WCU_PER_SECOND / wcu, `writes on item ${item}`);
  if (tableLimit) {
    const tableShare = Math.max(total.wcu / tableLimit.wcu, total.rcu / tableLimit.rcu);
    if (tableShare > 0) consider(1 / tableShare, 'the new table’s limit');
  }
  return {
    requestsPerSecond: best.rate,
    limitedBy: best.by,
    maxWriteShare: total.wcu === 0 ? 0 : hottestWcu / total.wcu,
    callsPerRequest: profile.calls,
  };
};

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancellationOf, type NamedWrite } from '../../shared/store/named-transactions';

const cancelled = (reasons: { Code: string; Item?: Record<string, { S: string }> }[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons });

const write = (name: 'book' | 'claim' | 'keyRecord'): NamedWrite<'book' | 'claim' | 'keyRecord'> => ({
  name,
  write: { ConditionCheck: { TableName: 't', Key: { pk: name }, ConditionExpression: 'attribute_exists(pk)' } },
});

/** A cancelled transaction is read by the names of its writes, whatever order they were sent in. */
describe('named transaction outcomes', () => {
  it('names the failed write and the item it returned, by name and not by position', () => {
    const writes = [write('keyRecord'), write('book'), write('claim')];
    const outcome = cancellationOf(
      cancelled([{ Code: 'ConditionalCheckFailed', Item: { pk: { S: 'held' } } }, { Code: 'None' }, { Code: 'None' }]),
      writes,
    );
    if (outcome === 'conflict') throw new Error('expected a failed condition');
    expect(['book', 'claim', 'keyRecord'].filter((name) => outcome.failed(name as never))).toStrictEqual(['keyRecord']);
    expect(outcome.returned('keyRecord')).toStrictEqual({ pk: { S: 'held' } });
    expect(outcome.returned('book')).toBeUndefined();
  });

  it('a name the transaction did not carry never failed', () => {
    const outcome = cancellationOf(cancelled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }]), [
      write('book'),
      write('claim'),
    ]);
    if (outcome === 'conflict') throw new Error('expected a failed condition');
    expect([outcome.failed('claim'), outcome.failed('keyRecord'), outcome.failed('book')]).toStrictEqual([
      true,
      false,
      false,
    ]);
  });

  it('a transaction that only met another one is a conflict; any other error is rethrown as is', () => {
    expect(
      cancellationOf(cancelled([{ Code: 'TransactionConflict' }, { Code: 'None' }]), [write('book'), write('claim')]),
    ).toBe('conflict');
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    expect(() => cancellationOf(throttled, [write('book')])).toThrow(throttled);
  });
});

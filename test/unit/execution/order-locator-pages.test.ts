import { BadResponseError } from '../../../src/domain/errors';
import { MAX_PAGES, pages } from '../../../src/execution/reconciliation/order-locator';

describe('paged lists (active orders, OCOs)', () => {
  test('pages are appended row by row until a short page', async () => {
    const asked: number[] = [];
    const into = ['kept'];
    const rows = await pages(into, 'active orders of BTC_USDT', async (offset) => {
      asked.push(offset);
      return offset < 200 ? Array.from({ length: 100 }, (_, i) => `r${offset + i}`) : ['last'];
    });
    expect(rows).toBe(into);
    expect(asked).toEqual([0, 100, 200]);
    expect(rows).toHaveLength(1 + 200 + 1);
  });

  test('a list that never ends is refused after MAX_PAGES pages, not returned cut short', async () => {
    let calls = 0;
    const into: number[] = [];
    const err = await pages(into, 'OCOs of BTC_USDT', async () => {
      calls++;
      return new Array<number>(100).fill(1);
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect((err as BadResponseError).message).toBe('OCOs of BTC_USDT: more than 100 pages of 100 rows; refusing a partial list');
    expect(calls).toBe(MAX_PAGES);
  });

  test('a page far larger than the spread limit is appended without a stack overflow', async () => {
    const huge = new Array<number>(300_000).fill(7); // push(...huge) throws RangeError in V8
    const into: number[] = [];
    await pages(into, 'x', async (offset) => (offset === 0 ? huge : []));
    expect(into).toHaveLength(300_000);
  });
});

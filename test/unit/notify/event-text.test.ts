import type { DaemonEvent } from '../../../src/domain/daemon-event';
import { clip, eventText, labelled, suppressedText } from '../../../src/notify/event-text';
import type { Notice } from '../../../src/notify/notice';
import { DISCORD_MAX_CONTENT, TELEGRAM_MAX_TEXT, telegramBody, webhookBody } from '../../../src/notify/payloads';

const at = Date.UTC(2026, 10, 28, 3, 0);
const fill: DaemonEvent = {
  type: 'fill', id: 'fill:tb-a-1:0.01', atMs: at, strategy: 'sma-cross', market: 'BTC_USDT', side: 'buy', amount: '0.01', price: '47210.5', fee: '0.47', clientOrderId: 'tb-a-1',
};

describe('the human line of each event', () => {
  test('fills, rejections, trading states (who and why), pauses, versions', () => {
    expect(eventText(fill)).toBe('BTC_USDT sma-cross: bought 0.01 at 47210.5 (fee 0.47)');
    expect(eventText({ ...fill, side: 'sell' })).toBe('BTC_USDT sma-cross: sold 0.01 at 47210.5 (fee 0.47)');
    expect(eventText({ type: 'rejection', id: 'r', atMs: at, clientOrderId: 'tb-a-2', reason: 'insufficient balance', code: '10' }))
      .toBe('Order tb-a-2 REJECTED: insufficient balance (10)');
    expect(eventText({ type: 'trading_state', id: 's', atMs: at, state: 'halted', previous: 'active', reason: 'operator: console alice: maintenance' }))
      .toBe('Trading HALTED (was active): operator: console alice: maintenance');
    expect(eventText({ type: 'trading_state', id: 's', atMs: at, state: 'reducing', previous: 'halted', reason: 'tradebot reduce-only by bob' }))
      .toBe('Trading REDUCE-ONLY (was halted): tradebot reduce-only by bob');
    expect(eventText({ type: 'strategy_paused', id: 'p', atMs: at, strategy: 'grid', reason: 'TypeError: x is undefined', consecutiveFailures: 3 }))
      .toBe('Strategy grid PAUSED after 3 failures in a row: TypeError: x is undefined. It sends no orders until `tradebot strategy-resume grid`.');
    expect(eventText({ type: 'version_changed', id: 'v', atMs: at, strategy: 'grid', from: 'aaa', to: 'bbb', by: 'rollback' }))
      .toBe('Strategy grid rolled back: version bbb is live (was aaa)');
    expect(eventText({ type: 'version_changed', id: 'v', atMs: at, strategy: 'grid', from: 'aaa', to: 'bbb', by: 'promote' })).toContain('promoted: version bbb');
  });

  test('drift names the window and the first differences; the daily summary signs a gain', () => {
    const drift = eventText({ type: 'drift', id: 'd', atMs: at, unexplained: 2, allowed: 0, from: at / 1000 - 3600, to: at / 1000, first: ['sma BTC_USDT 1 only_live: x', 'sma BTC_USDT 2 different: y'] });
    expect(drift).toContain('DRIFT: 2 unexplained differences between live and its backtest (allowed 0), 2026-11-28 02:00 UTC to 2026-11-28 03:00 UTC.');
    expect(drift).toContain('\n- sma BTC_USDT 2 different: y');
    expect(drift).toContain(`\nReport: tradebot drift --from ${at / 1000 - 3600} --to ${at / 1000} --out reports/drift`);
    const day = { type: 'daily_summary', id: 'daily:2026-11-28', atMs: at, day: '2026-11-28', fills: 17 } as const;
    expect(eventText({ ...day, realizedPnl: '12.34' })).toBe('Daily summary 2026-11-28 (UTC, so far): realised PnL +12.34, 17 fills');
    expect(eventText({ ...day, realizedPnl: '-3.5', fills: 1 })).toBe('Daily summary 2026-11-28 (UTC, so far): realised PnL -3.5, 1 fill');
    expect(eventText({ ...day, realizedPnl: '0' })).toContain('realised PnL 0,');
    expect(eventText({ ...day, realizedPnl: 'unavailable' })).toContain('realised PnL unavailable,');
  });

  test('order moves and candles are not told; long free text is cut', () => {
    expect(eventText({ type: 'order', id: 'o', atMs: at, clientOrderId: 'x', status: 'OrderAccepted' })).toBeUndefined();
    expect(eventText({ type: 'candle', id: 'c', atMs: at, market: 'BTC_USDT', candleTime: 1 })).toBeUndefined();
    const long = eventText({ type: 'trading_state', id: 's', atMs: at, state: 'halted', previous: 'active', reason: 'x'.repeat(5000) }) ?? '';
    expect(long.length).toBeLessThan(400);
    expect(long.endsWith('…')).toBe(true);
    expect(clip('a\n  b')).toBe('a b');
  });

  test('the suppressed summary counts by type; the label starts every message', () => {
    expect(suppressedText(new Map([['rejection', 2], ['fill', 10]]), 20))
      .toBe('12 more notifications suppressed (over 20 per minute on this channel): 10 fill, 2 rejection. The daemon\'s log has each one.');
    expect(labelled('tradebot live', 'x')).toBe('[tradebot live] x');
  });
});

describe('what each receiver gets', () => {
  const notice: Notice = { id: fill.id, type: 'fill', atMs: at, text: '[tb] <!channel> @everyone bought & sold', event: fill };

  test('generic: id, type, atMs, text and the event', () => {
    expect(webhookBody('generic', notice)).toEqual({ id: fill.id, type: 'fill', atMs: at, text: notice.text, event: fill });
    const { event: _e, ...bare } = notice;
    expect(webhookBody('generic', bare)).not.toHaveProperty('event');
  });

  test('slack: {text}, with Slack\'s escapes so nothing in it becomes a mention or a link', () => {
    expect(webhookBody('slack', notice)).toEqual({ text: '[tb] &lt;!channel&gt; @everyone bought &amp; sold' });
  });

  test('discord: {content} within 2000 characters, mentions off', () => {
    expect(webhookBody('discord', notice)).toEqual({ content: notice.text, allowed_mentions: { parse: [] } });
    const long = webhookBody('discord', { ...notice, text: 'y'.repeat(5000) }) as { content: string };
    expect(long.content.length).toBe(DISCORD_MAX_CONTENT);
  });

  test('telegram: chat_id and plain text within 4096 characters', () => {
    expect(telegramBody(-100123, notice)).toEqual({ chat_id: -100123, text: notice.text, link_preview_options: { is_disabled: true } });
    expect((telegramBody('@ops_room', { ...notice, text: 'z'.repeat(9000) }) as { text: string }).text.length).toBe(TELEGRAM_MAX_TEXT);
  });
});

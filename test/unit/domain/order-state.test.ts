import {
  FINAL_STATUSES, ORDER_EVENTS, ORDER_STATUSES, TRANSITIONS, canTransition, nextStatus,
} from '../../../src/domain/order-state';
import { InvalidTransitionError } from '../../../src/domain/errors';

describe('order state machine', () => {
  test('every listed pair moves to the listed status; every unlisted pair throws InvalidTransitionError', () => {
    for (const from of ORDER_STATUSES) {
      for (const event of ORDER_EVENTS) {
        const to = TRANSITIONS[from][event];
        if (to === undefined) {
          expect(canTransition(from, event)).toBe(false);
          expect(() => nextStatus(from, event)).toThrow(InvalidTransitionError);
        } else {
          expect(nextStatus(from, event)).toBe(to);
        }
      }
    }
  });

  test('the safety rows: an order is sent only from pending; a lost answer never leads back to sending', () => {
    for (const from of ORDER_STATUSES) {
      if (from !== 'pending') expect(canTransition(from, 'send')).toBe(false);
    }
    expect(nextStatus('submitted', 'lose_answer')).toBe('unknown');
    expect(canTransition('unknown', 'send')).toBe(false);
    expect(nextStatus('unknown', 'not_found')).toBe('rejected');
  });

  test('final statuses only accept repeated observations, and a late fill after a cancel', () => {
    for (const status of FINAL_STATUSES) {
      for (const event of ORDER_EVENTS) {
        const to = TRANSITIONS[status][event];
        if (to !== undefined) expect(to === status || (status === 'canceled' && event === 'fill')).toBe(true);
      }
    }
    expect(nextStatus('canceled', 'fill')).toBe('filled');
  });

  test('the error names the status and the event', () => {
    expect(() => nextStatus('filled', 'send')).toThrow('order event "send" is not allowed in status "filled"');
  });
});

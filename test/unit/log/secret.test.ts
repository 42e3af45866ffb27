import { inspect, format } from 'node:util';
import { REDACTED, Secret } from '../../../src/config/secret';

const VALUE = 'sk_live_4f9c2b7e1d';

describe('Secret', () => {
  const secret = new Secret(VALUE);

  it('reveals the value only through reveal()', () => {
    expect(secret.reveal()).toBe(VALUE);
  });

  it.each([
    ['String()', () => String(secret)],
    ['template literal', () => `${secret}`],
    ['string concatenation', () => 'key=' + secret],
    ['toString()', () => secret.toString()],
    ['JSON.stringify', () => JSON.stringify(secret)],
    ['JSON.stringify nested', () => JSON.stringify({ exchange: { apiSecret: secret } })],
    ['util.inspect', () => inspect(secret)],
    ['util.inspect showHidden', () => inspect({ s: secret }, { showHidden: true, depth: 10 })],
    ['util.format %o', () => format('%o %O %s %j', secret, secret, secret, secret)],
    ['Object.keys/entries', () => JSON.stringify([Object.keys(secret), Object.entries(secret)])],
    ['structuredClone', () => inspect(structuredClone(secret), { showHidden: true })],
    ['error message', () => new Error(`failed with ${secret}`).message],
  ])('%s never shows the value', (_name, render) => {
    const text = render();
    expect(text).not.toContain(VALUE);
  });

  it('prints as the redaction marker', () => {
    expect(String(secret)).toBe(REDACTED);
    expect(JSON.stringify({ s: secret })).toBe(`{"s":"${REDACTED}"}`);
    expect(inspect(secret)).toBe(`Secret(${REDACTED})`);
  });

  it('compares without revealing', () => {
    expect(secret.equals(new Secret(VALUE))).toBe(true);
    expect(secret.equals(new Secret('other'))).toBe(false);
    expect(Secret.isSecret(secret)).toBe(true);
    expect(Secret.isSecret(VALUE)).toBe(false);
  });
});

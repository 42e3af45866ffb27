import { parseConfig } from '../../../src/config/load';
import { ConfigError } from '../../../src/domain/errors';

/**
 * Paper is paper (issue #29, finding 5): a running simulator gets the real key, signed payloads and
 * the WebSocket token, so paper.exchangeUrl follows the rule of exchange.baseUrl: https:, or plain
 * http: on loopback only.
 */
const paper = (exchangeUrl: string): Record<string, unknown> => ({
  mode: 'paper', paper: { exchangeUrl }, strategies: { enabled: [{ name: 'sma-cross' }] },
});

function refusal(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseConfig(raw, env, 'paper.yaml');
  } catch (err) {
    return err as ConfigError;
  }
  throw new Error('config accepted');
}

test.each([
  ['http://203.0.113.7:8080', /must be https: \(plain http: is allowed only on loopback, for the simulator\), got http:\/\/203\.0\.113\.7:8080/],
  ['http://sim.example.com', /plain http: is allowed only on loopback/],
  ['http://127.0.0.1.evil.example:8080', /plain http: is allowed only on loopback/],
  ['ftp://127.0.0.1:8080', /not ftp:/],
])('paper.exchangeUrl %s is refused, naming the key (exit 78 via ConfigError)', (url, message) => {
  const err = refusal(paper(url));
  expect(err).toBeInstanceOf(ConfigError);
  expect(err.code).toBe('TB_ERR_CONFIG');
  expect(err.context['path']).toBe('paper.exchangeUrl');
  expect(err.message).toContain('paper.yaml: paper.exchangeUrl: ');
  expect(err.message).toMatch(message);
});

test.each(['http://127.0.0.1:8080', 'http://localhost:9000', 'http://[::1]:8080', 'https://sim.example.com', 'https://203.0.113.7:8443'])('paper.exchangeUrl %s is accepted', (url) => {
  expect(parseConfig(paper(url), {}).paper?.exchangeUrl).toBe(url);
});

test('an override through the environment is checked the same way', () => {
  const err = refusal(paper('http://127.0.0.1:8080'), { TRADEBOT_CONFIG__PAPER__EXCHANGE_URL: 'http://203.0.113.7:8080' });
  expect(err.context['path']).toBe('paper.exchangeUrl');
});

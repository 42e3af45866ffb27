import ky from 'ky';
import Redis from 'ioredis';
test('ky loads', () => { expect(typeof ky.create).toBe('function'); });
test('redis', async () => { const r = new Redis(process.env['TRADEBOT_TEST_REDIS_URL']!); expect(await r.ping()).toBe('PONG'); await r.quit(); });

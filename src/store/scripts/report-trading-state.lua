--[[ report-trading-state: one daemon replica says which control record it applied (its heartbeat).

  "When" is the store's clock (TIME), so `tradebot pause|resume` judges which replicas are alive
  without comparing any host's clock. Replicas silent for longer than ARGV[3] are forgotten.

  KEYS[1]  applied HASH: instance -> JSON {instance, epoch, appliedSeq, state, atMs}
  KEYS[2]  seen ZSET: instance scored by the store's ms at its last report
  ARGV[1]  instance id
  ARGV[2]  the JSON report
  ARGV[3]  forget_after_ms

  Returns  the store's clock in ms
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[1])
local oldest = now - tonumber(ARGV[3])
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. oldest)
for _, instance in ipairs(gone) do
  redis.call('HDEL', KEYS[1], instance)
end
if #gone > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. oldest)
end
return now

--[[ take-tokens: take up to `want` tokens from a shared token bucket, or say how long to wait.

  The clock is Redis TIME: every replica shares it, so one replica's fast or slow clock can neither
  refill the bucket early nor late. If TIME goes backwards (failover to another server), the bucket
  does not refill until time passes its stored timestamp again.

  KEYS[1]  bucket key (HASH: tokens = float, ts = microseconds of the last update)
  ARGV[1]  capacity     bucket size B (burst), tokens
  ARGV[2]  rate         refill in tokens per millisecond (float)
  ARGV[3]  want         tokens wanted now (integer >= 0; 0 only reads)
  ARGV[4]  ttl_ms       expiry of the key; must be >= the time to refill from empty to full, so an
                        expired bucket (recreated full) is no looser than the one it replaces

  Returns  {granted, wait_ms, tokens_left, now_us}
           granted      0..want tokens taken (partial grants allowed)
           wait_ms      0 when granted == want, else ms until the next whole token
           tokens_left  whole tokens left after the grant
           now_us       Redis time of the grant in microseconds (tests check windows with it)
  No negative codes.
]]
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local want = tonumber(ARGV[3])

local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now_us
end
if now_us > ts then
  tokens = math.min(capacity, tokens + (now_us - ts) / 1000 * rate)
  ts = now_us
end

local granted = math.min(want, math.floor(tokens))
if granted < 0 then granted = 0 end
tokens = tokens - granted

local wait_ms = 0
if granted < want then
  wait_ms = math.ceil((1 - tokens) / rate)
  if wait_ms < 1 then wait_ms = 1 end
end

if want > 0 then
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'ts', string.format('%d', ts))
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return {granted, wait_ms, math.floor(tokens), now_us}

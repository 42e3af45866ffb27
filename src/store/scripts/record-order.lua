--[[ record-order: create an order's journal record if absent (pending intent, or directly submitted).

  Replaying an intent never creates a second record: when the record exists nothing is changed and
  the existing record is returned. With a fencing token the lease is checked first, atomically with
  the write, so a replica that lost its (strategy, market) lease cannot record a submission.

  KEYS[1]  order key (HASH)              KEYS[5]  live index (SET)
  KEYS[2]  order history key (LIST)      KEYS[6]  live counts (HASH: scope -> count)
  KEYS[3]  all-orders index (ZSET)       KEYS[7]  lease key (HASH owner, token, fence) of the order's scope
  KEYS[4]  strategy index (ZSET)
  ARGV[1]  client order id
  ARGV[2]  created_ms (index score)
  ARGV[3]  is_live: '1' when the initial status is live (TypeScript decides from LIVE_STATUSES)
  ARGV[4]  scope: the live-count field of (strategy, market)
  ARGV[5]  history entry (JSON made by TypeScript)
  ARGV[6]  history max length
  ARGV[7]  fence: '<token>|<owner>' of the caller's lease, '' for no lease check
  ARGV[8..] field, value pairs of the record (status included)

  Returns  {1, fields, history}   created (fields = HGETALL reply, history = oldest first)
           {0, fields, history}   already existed; nothing changed
           {-2, current_fence}    LEASE_LOST: no lease, or another token or owner ('' when none)
]]
if ARGV[7] ~= '' then
  local fence = redis.call('HGET', KEYS[7], 'fence')
  if fence ~= ARGV[7] then
    return {-2, fence or ''}
  end
end

if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}
end

local fields = {}
for i = 8, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('RPUSH', KEYS[2], ARGV[5])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[6]), -1)
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
if ARGV[3] == '1' then
  if redis.call('SADD', KEYS[5], ARGV[1]) == 1 then
    redis.call('HINCRBY', KEYS[6], ARGV[4], 1)
  end
end
return {1, redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}

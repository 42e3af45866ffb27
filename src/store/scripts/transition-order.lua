--[[ transition-order: compare-and-set of an order's status, with a field patch and a history entry.

  The rules live in TypeScript (domain/order-state.ts): it computed next_status from expected_status.
  This script only checks that the status is still expected_status, then writes. It never decides
  which transitions are legal.

  KEYS[1]  order key (HASH)              KEYS[4]  live counts (HASH: scope -> count)
  KEYS[2]  order history key (LIST)      KEYS[5]  lease key (HASH owner, token, fence) checked when fencing
  KEYS[3]  live index (SET)
  ARGV[1]  client order id
  ARGV[2]  expected status
  ARGV[3]  next status
  ARGV[4]  is_live: '1' when next status is live (TypeScript decides from LIVE_STATUSES)
  ARGV[5]  history entry (JSON made by TypeScript)
  ARGV[6]  history max length
  ARGV[7]  fence: '<token>|<owner>' of the caller's lease, '' for no lease check
  ARGV[8]  fencing scope: the order's scope must equal it ('' when not fencing)
  ARGV[9..] field, value pairs to set (updatedAt and the patch)

  Returns  {1, fields, history}   done (fields = HGETALL reply after the write)
           {-4}                   ORDER_NOT_FOUND
           {-1, current_status}   STALE_STATE: the status is no longer expected_status
           {-2, current_fence}    LEASE_LOST: no lease, another token or owner ('' when none),
                                  or the lease is for another scope
]]
local current = redis.call('HGET', KEYS[1], 'status')
if not current then
  return {-4}
end
if ARGV[7] ~= '' then
  local fence = redis.call('HGET', KEYS[5], 'fence')
  if fence ~= ARGV[7] or redis.call('HGET', KEYS[1], 'scope') ~= ARGV[8] then
    return {-2, fence or ''}
  end
end
if current ~= ARGV[2] then
  return {-1, current}
end

local fields = {'status', ARGV[3]}
for i = 9, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('RPUSH', KEYS[2], ARGV[5])
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[6]), -1)

local scope = redis.call('HGET', KEYS[1], 'scope')
if ARGV[4] == '1' then
  if redis.call('SADD', KEYS[3], ARGV[1]) == 1 then
    redis.call('HINCRBY', KEYS[4], scope, 1)
  end
else
  if redis.call('SREM', KEYS[3], ARGV[1]) == 1 then
    if redis.call('HINCRBY', KEYS[4], scope, -1) <= 0 then
      redis.call('HDEL', KEYS[4], scope)
    end
  end
end
return {1, redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1)}

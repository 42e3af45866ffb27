--[[ acquire-lease: take the (strategy, market) lease for an owner, with a new fencing token.

  The fencing counter has no TTL and only grows, so every acquisition gets a larger token than the
  previous one even after the lease itself expired. Re-acquiring a lease one already holds keeps
  its token and only extends the TTL.

  KEYS[1]  lease key (HASH owner, token, fence = token '|' owner; PX ttl)
  KEYS[2]  fencing counter key (STRING, no TTL)
  ARGV[1]  owner id (unique per process instance)
  ARGV[2]  ttl_ms
  ARGV[3]  (optional) an owner the caller KNOWS is dead (a crashed process on its own host): its
           lease is taken over at once, with a new token, instead of after its TTL

  Returns  {1, token, ttl_ms}                 acquired (or re-acquired by the same owner)
           {-3, holder_token, pttl, holder}   LEASE_HELD by another owner; nothing changed
]]
local holder = redis.call('HGET', KEYS[1], 'owner')
if holder then
  local token = redis.call('HGET', KEYS[1], 'token')
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, token, tonumber(ARGV[2])}
  end
  if holder ~= ARGV[3] then
    return {-3, token, redis.call('PTTL', KEYS[1]), holder}
  end
end
local token = redis.call('INCR', KEYS[2])
-- `fence` is what the submit scripts compare: token AND owner, because a Redis restart without
-- persistence resets the counter, and a new owner could then be handed an old owner's token number.
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'token', token, 'fence', token .. '|' .. ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, tostring(token), tonumber(ARGV[2])}

--[[ renew-lease: extend a lease the caller still holds.

  KEYS[1]  lease key (HASH owner, token)
  ARGV[1]  owner id
  ARGV[2]  fencing token held
  ARGV[3]  ttl_ms

  Returns  {1, ttl_ms}             renewed
           {-2, current_token}     LEASE_LOST: expired, or taken by another owner ('' when none)
]]
local owner = redis.call('HGET', KEYS[1], 'owner')
local token = redis.call('HGET', KEYS[1], 'token')
if owner ~= ARGV[1] or token ~= ARGV[2] then
  return {-2, token or ''}
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, tonumber(ARGV[3])}

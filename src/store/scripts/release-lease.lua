--[[ release-lease: give a lease up, only if the caller still holds it (never someone else's).

  KEYS[1]  lease key (HASH owner, token)
  ARGV[1]  owner id
  ARGV[2]  fencing token held

  Returns  {1}   released
           {0}   not held by the caller (expired or another owner); nothing changed
]]
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'token') == ARGV[2] then
  redis.call('DEL', KEYS[1])
  return {1}
end
return {0}

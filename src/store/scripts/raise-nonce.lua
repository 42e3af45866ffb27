--[[ raise-nonce: after a Redis failover, one API key's stored nonce may be below nonces already sent
  (the old primary acknowledged them and died before its replica had them). The process that sent
  them raises the key to the highest it handed out, so no later nonce repeats or undercuts one.

  KEYS[1]  nonce key (STRING)
  ARGV[1]  floor_ms  the highest nonce this process handed out for the key
  ARGV[2]  ttl_ms    expiry of the key

  Returns  {1, last}  raised: last (as a string, "0" when the key did not exist) was below floor_ms
           {0, last}  already at or above it: left alone
]]
local raw = redis.call('GET', KEYS[1])
local last = tonumber(raw or '0')
if last < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], string.format('%d', tonumber(ARGV[1])), 'PX', ARGV[2])
  return {1, raw or '0'}
end
return {0, raw}

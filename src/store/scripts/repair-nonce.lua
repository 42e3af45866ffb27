--[[ repair-nonce: the start-up check of one API key's nonce. A `last` above ceiling_ms was stored from a
  far-future clock (poisoned): every nonce after it would be refused by the exchange until the key
  expires. It is replaced by now_ms. A sane `last` is left alone.

  KEYS[1]  nonce key (STRING)
  ARGV[1]  now_ms      caller's estimate of the exchange's clock (local clock + measured offset)
  ARGV[2]  ceiling_ms  local clock + largest clock offset accepted + max lead
  ARGV[3]  ttl_ms      expiry of the key

  Returns  {1, last}   repaired: last (as a string) was above ceiling_ms; now_ms stored
           {0, last}   fine (last as a string, "0" when the key does not exist)
]]
local raw = redis.call('GET', KEYS[1])
local last = tonumber(raw or '0')
if last > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[1], string.format('%d', tonumber(ARGV[1])), 'PX', ARGV[3])
  return {1, raw}
end
return {0, raw or '0'}

--[[ reserve-nonce: hand out the next nonce of one API key, never twice, never far ahead of time.

  KEYS[1]  nonce key (STRING): the last nonce handed out
  ARGV[1]  now_ms       caller's estimate of the exchange's clock (local clock + measured offset), integer ms
  ARGV[2]  max_lead_ms  how far a nonce may run ahead of now_ms (the exchange accepts +-5000 ms)
  ARGV[3]  ttl_ms       expiry of the key (an idle key may vanish: the next nonce is then now_ms again,
                        which is far above anything handed out a ttl ago)
  ARGV[4]  ceiling_ms   local clock + the largest clock offset accepted + max_lead_ms: no nonce above it is
                        ever stored. A `last` above it is poisoned (a far-future server clock measured by
                        an older version or another tool): it is replaced by now_ms, and the reply says so.

  Returns  {1, nonce}           nonce = max(now_ms, last + 1), stored as the new last
           {2, nonce, last}     REPAIRED: last was above ceiling_ms; nonce = now_ms, stored
           {-5, wait_ms}        NONCE_AHEAD: last + 1 would be more than max_lead_ms ahead of now_ms;
                                nothing was changed, retry after wait_ms (throttle instead of running ahead)
]]
local now = tonumber(ARGV[1])
local max_lead = tonumber(ARGV[2])
local ceiling = tonumber(ARGV[4])
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if last > ceiling then
  redis.call('SET', KEYS[1], string.format('%d', now), 'PX', ARGV[3])
  return {2, now, string.format('%d', last)}
end
local nonce = now
if last + 1 > nonce then nonce = last + 1 end
local lead = nonce - now
if lead > max_lead then
  return {-5, lead - max_lead}
end
redis.call('SET', KEYS[1], string.format('%d', nonce), 'PX', ARGV[3])
return {1, nonce}

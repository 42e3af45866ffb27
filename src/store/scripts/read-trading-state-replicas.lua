--[[ read-trading-state-replicas: what each replica last reported, and how long ago by the store's clock.

  KEYS[1]  applied HASH (see report-trading-state.lua)
  KEYS[2]  seen ZSET

  Returns  {now_ms, {instance, json, seen_ms}, ...} (read-only)
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {now}
local seen = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
for i = 1, #seen, 2 do
  local json = redis.call('HGET', KEYS[1], seen[i])
  if json then
    table.insert(out, {seen[i], json, tonumber(seen[i + 1])})
  end
end
return out

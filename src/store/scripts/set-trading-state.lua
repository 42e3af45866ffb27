--[[ set-trading-state: store the operator's (or the daemon's) trading state with the next sequence number.

  The ORDER of control records is decided here, by the store, never by a writer's clock: a pause
  stamped by a host whose clock is an hour behind still gets a larger seq than everything before it.
  `epoch` names one life of the hash: it is set once, by the first write after the hash was missing
  (first use, or Redis lost its data), so a daemon notices a counter that started over.

  KEYS[1]  trading-state HASH (state, reason, atMs, seq, epoch)
  ARGV[1]  state (active | halted | reducing; checked by the caller)
  ARGV[2]  reason
  ARGV[3]  atMs: the writer's clock, kept for information only
  ARGV[4]  epoch to use if the hash has none yet (a random id from the caller)

  Returns  {seq, epoch}
]]
if redis.call('HEXISTS', KEYS[1], 'epoch') == 0 then
  redis.call('HSET', KEYS[1], 'epoch', ARGV[4])
end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'reason', ARGV[2], 'atMs', ARGV[3])
return {seq, redis.call('HGET', KEYS[1], 'epoch')}

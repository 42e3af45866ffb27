--[[ append-record: add one line to a time-ordered log (ZSET scored by time) and trim it, in one step.

  Used by the deployment log (drift records): candles, decisions and balance snapshots.

  KEYS[1]  the log (ZSET: score = time, member = the record's JSON line)
  ARGV[1]  score        time of the record (candle open time in s, or market ms)
  ARGV[2]  line         the record
  ARGV[3]  oldest       records with a score below this are dropped (retention)
  ARGV[4]  max_entries  at most this many records are kept (the oldest go first)
  ARGV[5]  first_only   "1": keep the first record of a score, never add a second one (a candle the
                        daemon acted on is never overwritten by a later, possibly corrected, copy)

  Returns  {added}  1 when the line was added, 0 when a record of that score was already there
  No negative codes.
]]
local score = tonumber(ARGV[1])
local added = 0
if ARGV[5] ~= '1' or redis.call('ZCOUNT', KEYS[1], score, score) == 0 then
  added = redis.call('ZADD', KEYS[1], score, ARGV[2])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
local n = redis.call('ZCARD', KEYS[1])
local max = tonumber(ARGV[4])
if n > max then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, n - max - 1) end
return {added}

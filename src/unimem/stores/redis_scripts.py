"""The Lua scripts of the Redis layers (see :mod:`unimem.stores.redis`).

Each one touches the keys of one session (``KEYS`` of ``{s:<id>}``) or of one
user (``{u:<id>}``), so it runs in one Redis Cluster slot. Counts arrive as the
decimal strings Python formats, so they compare as strings.
"""

from __future__ import annotations

import hashlib
from functools import cache

__all__ = [
    "INSTALL",
    "READ_BOTH",
    "READ_SESSION",
    "READ_USER",
    "WARM_USER",
    "WRITE_SESSION",
    "WRITE_USER",
    "sha",
]


@cache
def sha(src: str) -> str:
    """The SHA1 Redis knows a script by (``EVALSHA``)."""
    return hashlib.sha1(src.encode()).hexdigest()


WRITE_SESSION = """
local cur = redis.call('HMGET', KEYS[1], 'mc', 'ec')
if not cur[1] then
  redis.call('DEL', KEYS[5])
  if ARGV[1] ~= '0' or ARGV[2] ~= '0' then return 0 end
  redis.call('HSET', KEYS[1], 'complete', '1')
elseif cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
  return -1
end
redis.call('HSET', KEYS[1], 'mc', ARGV[3], 'ec', ARGV[4], 'state', ARGV[5])
if ARGV[9] ~= '0' then
  redis.call('ZADD', KEYS[2], ARGV[9], ARGV[10])
  if redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[6]) - 1) > 0 then
    redis.call('HSET', KEYS[1], 'complete', '0')
  end
end
local keep = tonumber(ARGV[8])
for i = 11, #ARGV, 2 do
  local list = nil
  if ARGV[i] == 'language_switch' then list = KEYS[3] end
  if ARGV[i] == 'mode_switch' then list = KEYS[4] end
  if list then
    redis.call('RPUSH', list, ARGV[i + 1])
    redis.call('LTRIM', list, -keep, -1)
  end
end
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[7]) end
return 1
"""

_READ_SESSION_FN = """
local function read_session(meta, win, lang, mode, n, l)
  local m = redis.call('HMGET', meta, 'state', 'complete', 'mc')
  if not m[1] then return false end
  -- keys expiring one after the other at the end of the TTL: treat as not cached
  if m[3] ~= '0' and redis.call('EXISTS', win) == 0 then return false end
  local e, a, b = {}, {}, {}
  -- (a negative zero is not an index Redis accepts)
  if n > 0 then e = redis.call('ZRANGE', win, -n, -1) end
  if l > 0 then
    a = redis.call('LRANGE', lang, -l, -1)
    b = redis.call('LRANGE', mode, -l, -1)
  end
  return {m[1], m[2], e, a, b}
end
"""

READ_SESSION = (
    _READ_SESSION_FN
    + "return read_session(KEYS[1], KEYS[2], KEYS[3], KEYS[4], tonumber(ARGV[1]), "
    + "tonumber(ARGV[2]))"
)

INSTALL = """
if redis.call('GET', KEYS[5]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('HSET', KEYS[1], 'mc', ARGV[2], 'ec', ARGV[3], 'state', ARGV[4], 'complete', ARGV[5])
local i = 8
for j = 1, tonumber(ARGV[7]) do
  redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for _, key in ipairs({KEYS[3], KEYS[4]}) do
  local n = tonumber(ARGV[i])
  i = i + 1
  for j = 1, n do
    redis.call('RPUSH', key, ARGV[i])
    i = i + 1
  end
end
for j = 1, 4 do redis.call('EXPIRE', KEYS[j], ARGV[6]) end
return 1
"""

WRITE_USER = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
local over = redis.call('ZCARD', KEYS[1]) - #gone - tonumber(ARGV[5])
if over > 0 then gone = redis.call('ZRANGE', KEYS[1], 0, #gone + over - 1) end
if #gone > 0 then
  redis.call('ZREM', KEYS[1], unpack(gone))
  redis.call('HDEL', KEYS[2], unpack(gone))
end
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[7])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('EXPIRE', KEYS[4], ARGV[6])
return 1
"""

_READ_USER_FN = """
local function read_user(settings, recent, data, warm, exclude, since, limit, want)
  local s = redis.call('GET', settings)
  if want == '0' or redis.call('EXISTS', warm) == 0 then return {s, 0} end
  local members = redis.call('ZREVRANGEBYSCORE', recent, '+inf', since)
  local out = {}
  local prefix = exclude .. ' '
  for _, m in ipairs(members) do
    if #out >= limit then break end
    if exclude == '' or string.sub(m, 1, #prefix) ~= prefix then out[#out + 1] = m end
  end
  if #out == 0 then return {s, 1} end
  return {s, 1, redis.call('HMGET', data, unpack(out))}
end
"""

READ_USER = (
    _READ_USER_FN
    + "return read_user(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], "
    + "tonumber(ARGV[3]), ARGV[4])"
)

#: Both reads in one call, for a single Redis (keys of two slots: never on a cluster).
READ_BOTH = (
    _READ_SESSION_FN
    + _READ_USER_FN
    + "return {read_session(KEYS[1], KEYS[2], KEYS[3], KEYS[4], tonumber(ARGV[1]), "
    + "tonumber(ARGV[2])), read_user(KEYS[5], KEYS[6], KEYS[7], KEYS[8], ARGV[3], ARGV[4], "
    + "tonumber(ARGV[5]), ARGV[6])}"
)

WARM_USER = """
redis.call('DEL', KEYS[1], KEYS[2])
for i = 3, #ARGV, 3 do
  redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], '1', 'EX', ARGV[2])
return 1
"""

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
    "WRITE_BOTH",
    "WRITE_SESSION",
    "WRITE_USER",
    "sha",
    "source",
]


_SOURCES: dict[str, str] = {}


@cache
def sha(src: str) -> str:
    """The SHA1 Redis knows a script by (``EVALSHA``)."""
    digest = hashlib.sha1(src.encode()).hexdigest()
    _SOURCES[digest] = src
    return digest


def source(digest: str) -> str:
    """The script whose :func:`sha` is ``digest``."""
    return _SOURCES[digest]


_WRITE_SESSION_FN = """
local function write_session(K, A, first)
  local cur = redis.call('HMGET', K[1], 'mc', 'ec')
  if not cur[1] then
    redis.call('DEL', K[5])
    if A[first] ~= '0' or A[first + 1] ~= '0' then return 0 end
    redis.call('HSET', K[1], 'complete', '1')
  elseif cur[1] ~= A[first] or cur[2] ~= A[first + 1] then
    redis.call('DEL', K[1], K[2], K[3], K[4], K[5])
    return -1
  end
  redis.call('HSET', K[1], 'mc', A[first + 2], 'ec', A[first + 3], 'state', A[first + 4])
  if A[first + 8] ~= '0' then
    redis.call('ZADD', K[2], A[first + 8], A[first + 9])
    if redis.call('ZREMRANGEBYRANK', K[2], 0, -tonumber(A[first + 5]) - 1) > 0 then
      redis.call('HSET', K[1], 'complete', '0')
    end
  end
  local keep = tonumber(A[first + 7])
  for i = first + 11, first + 10 + 2 * tonumber(A[first + 10]), 2 do
    local list = nil
    if A[i] == 'language_switch' then list = K[3] end
    if A[i] == 'mode_switch' then list = K[4] end
    if list then
      redis.call('RPUSH', list, A[i + 1])
      redis.call('LTRIM', list, -keep, -1)
    end
  end
  for i = 1, 4 do redis.call('EXPIRE', K[i], A[first + 6]) end
  return 1
end
"""

#: KEYS: the session's meta, window, language, mode and rebuild keys. ARGV:
#: previous message and event counts, new counts, state JSON, hot window size,
#: TTL, events kept, entry seq (0: none), entry JSON, number of events, then
#: (event type, event JSON) pairs.
WRITE_SESSION = _WRITE_SESSION_FN + "return write_session(KEYS, ARGV, 1)"

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
  -- the window as one JSON array: one bulk reply, one parse
  return {m[1], m[2], '[' .. table.concat(e, ',') .. ']', a, b}
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

_NEWEST_FN = """
local function newest(key, score, member)
  local old = redis.call('ZSCORE', key, member)
  if not old or tonumber(old) < tonumber(score) then
    redis.call('ZADD', key, score, member)
  end
end
"""

_WRITE_USER_FN = """
local function write_user(K, A, first)
  local member, score = A[first], A[first + 1]
  redis.call('ZADD', K[1], score, member)
  redis.call('HSET', K[2], member, A[first + 2])
  local gone = redis.call('ZRANGEBYSCORE', K[1], '-inf', '(' .. A[first + 3])
  local over = redis.call('ZCARD', K[1]) - #gone - tonumber(A[first + 4])
  if over > 0 then gone = redis.call('ZRANGE', K[1], 0, #gone + over - 1) end
  if #gone > 0 then
    redis.call('ZREM', K[1], unpack(gone))
    redis.call('HDEL', K[2], unpack(gone))
  end
  -- the sessions set lists every session with turns in the layer (READ_USER
  -- trusts it); if it was lost (evicted), the layer is marked cold and the
  -- next read warms it again from the durable store
  if redis.call('EXISTS', K[4]) == 0 then redis.call('DEL', K[3]) end
  newest(K[4], score, A[first + 6])
  redis.call('EXPIRE', K[1], A[first + 5])
  redis.call('EXPIRE', K[2], A[first + 5])
  redis.call('EXPIRE', K[4], A[first + 5])
  return 1
end
"""

#: KEYS: the user's recent, recent data, warm and sessions keys. ARGV: member,
#: score (ms), entry JSON, cutoff (ms), cap, TTL, session id.
WRITE_USER = _NEWEST_FN + _WRITE_USER_FN + "return write_user(KEYS, ARGV, 1)"

#: A session write and the user's short-term write in one call, for a single
#: Redis (keys of two slots: never on a cluster). KEYS: the five session keys,
#: then the four user keys; ARGV: the session write's, then the user write's.
#: A session the write was not applied to (not cached, or dropped meanwhile,
#: as by a deletion of the user's memory) leaves the entry out of the
#: short-term layer too, and marks that layer cold (the next read warms it
#: from the durable store) rather than caching what may be deleted already.
WRITE_BOTH = (
    _WRITE_SESSION_FN
    + _NEWEST_FN
    + _WRITE_USER_FN
    + "local s = write_session({KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}, ARGV, 1)\n"
    + "if s ~= 1 then\n"
    + "  redis.call('DEL', KEYS[8])\n"
    + "  return {s, 0}\n"
    + "end\n"
    + "local u = write_user({KEYS[6], KEYS[7], KEYS[8], KEYS[9]}, ARGV, "
    + "12 + 2 * tonumber(ARGV[11]))\n"
    + "return {s, u}"
)

_READ_USER_FN = """
local function read_user(settings, recent, data, warm, sessions, exclude, since, limit, want)
  local s = redis.call('GET', settings)
  if want == '0' or redis.call('EXISTS', warm) == 0 then return {s, 0} end
  -- only this session of the user wrote since then: nothing to look through
  -- (an empty or missing sessions set proves nothing: the layer is read)
  local active = redis.call('ZRANGEBYSCORE', sessions, since, '+inf', 'LIMIT', 0, 2)
  if #active == 1 and active[1] == exclude then return {s, 1} end
  -- newest first, skipping this session's own turns: a first page, then (when
  -- this session's turns filled it) the rest in one call
  local out, page = {}, 2 * limit
  local prefix = exclude .. ' '
  local function keep(members)
    for _, m in ipairs(members) do
      if #out >= limit then return end
      if exclude == '' or string.sub(m, 1, #prefix) ~= prefix then out[#out + 1] = m end
    end
  end
  local first = redis.call('ZREVRANGEBYSCORE', recent, '+inf', since, 'LIMIT', 0, page)
  keep(first)
  if #out < limit and #first == page then
    keep(redis.call('ZREVRANGEBYSCORE', recent, '+inf', since, 'LIMIT', page, -1))
  end
  if #out == 0 then return {s, 1} end
  return {s, 1, redis.call('HMGET', data, unpack(out))}
end
"""

#: KEYS: the user's settings, recent, recent data, warm and sessions keys.
#: ARGV: session to leave out (``""``: none), since (ms), limit, want recent (0/1).
READ_USER = (
    _READ_USER_FN
    + "return read_user(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1], ARGV[2], "
    + "tonumber(ARGV[3]), ARGV[4])"
)

#: Both reads in one call, for a single Redis (keys of two slots: never on a cluster).
READ_BOTH = (
    _READ_SESSION_FN
    + _READ_USER_FN
    + "return {read_session(KEYS[1], KEYS[2], KEYS[3], KEYS[4], tonumber(ARGV[1]), "
    + "tonumber(ARGV[2])), read_user(KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], ARGV[3], "
    + "ARGV[4], tonumber(ARGV[5]), ARGV[6])}"
)

#: KEYS: the user's recent, recent data, warm and sessions keys. ARGV: TTL,
#: warm marker TTL, then (member, score, entry JSON) triples.
WARM_USER = (
    _NEWEST_FN
    + """
redis.call('DEL', KEYS[1], KEYS[2])
for i = 3, #ARGV, 3 do
  redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
  newest(KEYS[4], ARGV[i + 1], string.match(ARGV[i], '^(%S+) '))
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[4], ARGV[1])
redis.call('SET', KEYS[3], '1', 'EX', ARGV[2])
return 1
"""
)

"""The documents listing in Redis: Lua run atomically beside the revision scripts.

Keys under the listing prefix `L` (which never matches the revision keys' SCAN pattern):
`L order` (sorted set: document -> sequence number, the page order), `L state:{state}`
(the same, per state), `L meta` (hash: document -> "seq TAB state TAB passed TAB
case-folded name", what the filters read), `L docs` (hash: the entries' JSON), `L passed`
(set: complete and verified), `L statenames`, `L seq`; batches: `L batches` (sorted set by
sequence), `L batchinfo` (hash), `L batch:{id}` (set of documents). Each revision hash gets
`lrev`, the revision its entry describes.

Without filters a page is a range of a sorted set. A name filter reads all of `L meta` in
the script (one call) and a batch filter the meta of the batch's members, which also
yields the counts. Key names are built inside the scripts, so this needs one Redis
server, not a cluster.
"""

from __future__ import annotations

import json
from typing import Any

import quire.shared.revisions.listing as listing

_PUT = """
local function list_entry(L, revkey, doc, rev, state, name, passed, entry)
  local meta = redis.call('HGET', L .. 'meta', doc)
  local seq, old
  if meta then seq, old = string.match(meta, '^(%d+)\t([^\t]*)\t') end
  if (not seq) or (state == 'queued' and old ~= 'queued') then
    seq = redis.call('INCR', L .. 'seq')
  end
  if old then redis.call('ZREM', L .. 'state:' .. old, doc) end
  redis.call('ZADD', L .. 'order', seq, doc)
  redis.call('ZADD', L .. 'state:' .. state, seq, doc)
  redis.call('SADD', L .. 'statenames', state)
  redis.call('HSET', L .. 'meta', doc, seq .. '\t' .. state .. '\t' .. passed .. '\t' .. name)
  redis.call('HSET', L .. 'docs', doc, entry)
  if passed == '1' then
    redis.call('SADD', L .. 'passed', doc)
  else
    redis.call('SREM', L .. 'passed', doc)
  end
  redis.call('HSET', revkey, 'lrev', rev)
end
"""

# KEYS[1]: the revision hash; ARGV: expected, new, token, then the entry (ENTRY_ARGS)
CAS = (
    _PUT
    + """
local cur = redis.call('HGET', KEYS[1], 'rev')
if not cur then cur = '0' end
if cur == ARGV[1] then
  redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'tok', ARGV[3])
  if ARGV[4] ~= '' then
    list_entry(ARGV[4], KEYS[1], ARGV[5], ARGV[2], ARGV[6], ARGV[7], ARGV[8], ARGV[9])
  end
  return 1
end
if cur == ARGV[2] and redis.call('HGET', KEYS[1], 'tok') == ARGV[3] then
  return 1
end
return 0
"""
)

# KEYS[1]: the revision hash; ARGV: value, then the entry (ENTRY_ARGS)
FORCE = (
    _PUT
    + """
redis.call('HSET', KEYS[1], 'rev', ARGV[1])
redis.call('HDEL', KEYS[1], 'tok')
if ARGV[2] ~= '' then
  list_entry(ARGV[2], KEYS[1], ARGV[3], ARGV[1], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
end
return 1
"""
)

# KEYS[1]: the revision hash; ARGV: revision, then the entry (ENTRY_ARGS)
PUT = (
    _PUT
    + """
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
list_entry(ARGV[2], KEYS[1], ARGV[3], ARGV[1], ARGV[4], ARGV[5], ARGV[6], ARGV[7])
return 1
"""
)

# ARGV: L, after, before (either or neither: '' ), limit, needle, states (JSON list), batch
# ('' = any) -> counts (JSON), total, passed, then entry JSON and sequence number of up to
# limit + 1 documents next to the cursor on its side, in any order
ENTRIES = """
local L, after, before = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local limit, needle, wanted, batch = tonumber(ARGV[4]), ARGV[5], cjson.decode(ARGV[6]), ARGV[7]
local want = {}
for _, s in ipairs(wanted) do want[s] = true end
local any = #wanted == 0
local page, counts, total, passed = {}, {}, 0, 0
if needle == '' and batch == '' and #wanted <= 1 then
  local base = any and (L .. 'order') or (L .. 'state:' .. wanted[1])
  if limit > 0 and before then
    page = redis.call('ZRANGEBYSCORE', base, '(' .. ARGV[3], '+inf', 'WITHSCORES',
                      'LIMIT', 0, limit + 1)
  elseif limit > 0 then
    local max = after and ('(' .. ARGV[2]) or '+inf'
    page = redis.call('ZREVRANGEBYSCORE', base, max, '-inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
  end
  total = redis.call('ZCARD', base)
  for _, s in ipairs(redis.call('SMEMBERS', L .. 'statenames')) do
    local n = redis.call('ZCARD', L .. 'state:' .. s)
    if n > 0 then counts[s] = n end
  end
  passed = redis.call('SCARD', L .. 'passed')
else
  local found = {}  -- matches on the side of the cursor that is asked for: {doc, seq}
  local function consider(doc, meta)
    -- most documents fail a name search: one plain find first, the fields only after it
    if needle ~= '' and not string.find(meta, needle, 1, true) then return end
    local seq, state, ok, name = string.match(meta, '^(%d+)\t([^\t]*)\t(%d)\t(.*)$')
    if needle ~= '' and not string.find(name, needle, 1, true) then return end
    seq = tonumber(seq)
    counts[state] = (counts[state] or 0) + 1
    passed = passed + tonumber(ok)
    if any or want[state] then
      total = total + 1
      if (before and seq > before) or (not before and ((not after) or seq < after)) then
        found[#found + 1] = {doc, seq}
      end
    end
  end
  if batch ~= '' then
    local members = redis.call('SMEMBERS', L .. 'batch:' .. batch)
    for i = 1, #members, 500 do  -- a few hundred fields per call
      local j = math.min(i + 499, #members)
      local metas = redis.call('HMGET', L .. 'meta', unpack(members, i, j))
      for k = 1, j - i + 1 do
        if metas[k] then consider(members[i + k - 1], metas[k]) end
      end
    end
  else
    local flat = redis.call('HGETALL', L .. 'meta')
    for i = 1, #flat, 2 do consider(flat[i], flat[i + 1]) end
  end
  if before then
    table.sort(found, function(a, b) return a[2] < b[2] end)  -- the nearest newer first
  else
    table.sort(found, function(a, b) return a[2] > b[2] end)
  end
  for i = 1, math.min(#found, limit + 1) do
    page[#page + 1] = found[i][1]
    page[#page + 1] = found[i][2]
  end
end
if limit == 0 then page = {} end
local out = {cjson.encode(counts), total, passed}
for i = 1, #page, 2 do
  out[#out + 1] = redis.call('HGET', L .. 'docs', page[i])
  out[#out + 1] = tostring(page[i + 1])
end
return out
"""

# ARGV: L, batch id, info JSON, then its documents
INDEX_BATCH = """
local L, id = ARGV[1], ARGV[2]
if not redis.call('ZSCORE', L .. 'batches', id) then
  redis.call('ZADD', L .. 'batches', redis.call('INCR', L .. 'bseq'), id)
end
redis.call('HSET', L .. 'batchinfo', id, ARGV[3])
for i = 4, #ARGV do redis.call('SADD', L .. 'batch:' .. id, ARGV[i]) end
return 1
"""

# ARGV: L, after ('' = from the top), limit -> per batch: id, sequence, info JSON, documents
BATCHES = """
local L, limit = ARGV[1], tonumber(ARGV[3])
local max = ARGV[2] ~= '' and ('(' .. ARGV[2]) or '+inf'
local ids = redis.call('ZREVRANGEBYSCORE', L .. 'batches', max, '-inf', 'WITHSCORES',
                       'LIMIT', 0, limit + 1)
local out = {}
for i = 1, #ids, 2 do
  out[#out + 1] = ids[i]
  out[#out + 1] = ids[i + 1]
  out[#out + 1] = redis.call('HGET', L .. 'batchinfo', ids[i])
  out[#out + 1] = redis.call('SCARD', L .. 'batch:' .. ids[i])
end
return out
"""


def entry_args(prefix: str, entry: listing.DocEntry | None) -> list[str]:
    """The entry as the scripts take it: listing prefix, document, state, case-folded
    name, verified (1/0), JSON; or one empty string for no entry."""
    if entry is None:
        return [""]
    return [
        prefix,
        entry.doc_id,
        entry.state,
        entry.name_key,
        "1" if entry.passed else "0",
        entry.model_dump_json(),
    ]


def entries_args(prefix: str, query: listing.DocQuery) -> list[str]:
    return [
        prefix,
        "" if query.after is None else str(query.after),
        "" if query.before is None else str(query.before),
        str(query.limit),
        query.needle,
        json.dumps(list(query.states)),
        query.batch or "",
    ]


def entries_page(reply: list[Any], query: listing.DocQuery) -> listing.DocPage:
    counts = {str(k): int(v) for k, v in json.loads(reply[0]).items()}
    rows = [
        (listing.DocEntry.model_validate_json(reply[i]), int(float(reply[i + 1])))
        for i in range(3, len(reply), 2)
    ]
    return listing.doc_page(rows, query, total=int(reply[1]), counts=counts, passed=int(reply[2]))


def batch_info_json(batch: listing.BatchEntry) -> str:
    return json.dumps(
        {
            "created_at": batch.created_at,
            "unreadable": listing.UNREADABLE.dump_python(batch.unreadable, mode="json"),
        }
    )


def batch_info(batch_id: str, info: str, documents: int) -> listing.BatchInfo:
    data = json.loads(info)
    unreadable = listing.UNREADABLE.validate_python(data["unreadable"])
    return listing.BatchInfo(
        batch_id=batch_id,
        created_at=float(data["created_at"]),
        documents=int(documents) + len(unreadable),
        unreadable=unreadable,
    )


def batch_page(reply: list[Any], limit: int) -> listing.BatchPage:
    rows = [reply[i : i + 4] for i in range(0, len(reply), 4)]
    more = len(rows) > limit
    rows = rows[:limit]
    return listing.BatchPage(
        batches=[batch_info(str(r[0]), str(r[2]), int(r[3])) for r in rows],
        next_after=int(float(rows[-1][1])) if more else None,
    )

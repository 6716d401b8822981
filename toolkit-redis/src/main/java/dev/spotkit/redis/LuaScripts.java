package dev.spotkit.redis;

/**
 * The Lua scripts of both stores. Every script that writes checks every condition and decodes every record it
 * will touch first, and writes only after the last check (Redis does not roll back a script that fails half
 * way). Errors raised by the check phase start with {@code SPOTKIT}; ARGV[1] is always the test clock offset
 * in ms (0 in production) added to the server's {@code TIME}.
 */
final class LuaScripts {
  private LuaScripts() {
  }

  /** Helpers shared by the location scripts: time, member codec, log head. */
  static final String PRELUDE = """
      local OFFSET = tonumber(ARGV[1])
      local function fmt(n) return string.format('%.0f', n) end
      local function now_ms()
        local t = redis.call('TIME')
        return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + OFFSET
      end
      local function fail(msg) error({err = 'SPOTKIT ' .. msg .. '; nothing was changed'}) end
      local function decode(m, logical)
        if string.byte(m, 1) ~= 1 then
          fail('unknown opaque record tag ' .. tostring(string.byte(m, 1)) .. ' (this Spotkit reads tag 1)')
        end
        local ok, r = pcall(cmsgpack.unpack, string.sub(m, 2))
        if not ok or type(r) ~= 'table' or type(r[1]) ~= 'string' or type(r[2]) ~= 'string'
            or type(r[3]) ~= 'string' or type(r[4]) ~= 'number' or type(r[5]) ~= 'boolean' or r[6] ~= nil then
          fail('malformed opaque record member')
        end
        if logical ~= nil and r[1] ~= logical then fail('opaque record holds another key') end
        return r
      end
      local function encode(logical, value, version, expires, tomb)
        return '\\1' .. cmsgpack.pack({logical, value, version, expires, tomb})
      end
      local function head(key, logical)
        local h = redis.pcall('ZRANGE', key, -1, -1)
        if h.err then fail('cannot read a record: ' .. h.err) end
        if #h == 0 then return nil end
        return decode(h[1], logical)
      end
      -- every key a script writes is checked for its Redis type before the first write: a private key (seq,
      -- index, scans, ...) holding another type would otherwise fail a command after earlier writes applied
      local function need(key, want)
        local t = redis.call('TYPE', key)
        t = type(t) == 'table' and t.ok or t
        if t ~= 'none' and t ~= want then
          fail('key ' .. key .. ' holds a ' .. t .. ', not a ' .. want .. ' (a foreign value under this prefix)')
        end
      end
      local function need_counter(key)
        need(key, 'string')
        local v = redis.call('GET', key)
        if v and not string.match(v, '^%d+$') then
          fail('key ' .. key .. ' holds ' .. string.sub(v, 1, 32) .. ', not a decimal counter')
        end
      end
      local function live(r, now) return r ~= nil and (not r[5]) and (r[4] == 0 or r[4] > now) end
      local function drop_scan(scans, used, start, id)
        redis.call('ZREM', scans, id)
        redis.call('ZREM', used, id)
        redis.call('HDEL', start, id)
      end
      -- a cursor naming another scan (a foreign, forged or pre-restart cursor whose id is now reused) is
      -- refused and leaves that scan alone; only a scan of this cursor that is idle or too old is dropped
      local function scan_valid(scans, used, start_key, id, seq, start, now, idle, max_age)
        local s = redis.call('ZSCORE', scans, id)
        local st = redis.call('HGET', start_key, id)
        if not (s and tonumber(s) == seq and st and tonumber(st) == start) then return false end
        local u = redis.call('ZSCORE', used, id)
        if u and tonumber(u) > now - idle and now - start <= max_age then return true end
        drop_scan(scans, used, start_key, id)
        return false
      end
      local function drop_idle_scans(scans, used, start, now, idle)
        local stale = redis.call('ZRANGEBYSCORE', used, '-inf', fmt(now - idle))
        for _, id in ipairs(stale) do drop_scan(scans, used, start, id) end
      end
      """;

  /** Encodes one member with the same function the write script uses (golden tests). ARGV: 1 offset, 2..6. */
  static final String ENCODE_MEMBER = PRELUDE + """
      return encode(ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), ARGV[6] == '1')
      """;

  /** Read: KEYS[1] record. Returns {now} or {now, head member}. */
  static final String READ = PRELUDE + """
      local now = now_ms()
      local h = redis.call('ZRANGE', KEYS[1], -1, -1)
      if #h == 0 then return {now} end
      return {now, h[1]}
      """;

  /**
   * Read of several keys at one point in time: KEYS the record keys, ARGV 1 offset. Returns {now, head member of
   * each key in order, or '' when the key has none} (a member always starts with the tag byte 0x01, so '' is
   * never a member; a Lua nil would cut the reply short).
   */
  static final String READ_ALL = PRELUDE + """
      local now = now_ms()
      local out = {now}
      for i = 1, #KEYS do
        local h = redis.call('ZRANGE', KEYS[i], -1, -1)
        out[i + 1] = h[1] or ''
      end
      return out
      """;

  /**
   * Write: KEYS 1 seq, 2 index, 3 scans, 4 scan-used, 5 scan-start, 6 seq-epoch (the replication id the
   * sequence was issued under), then the condition records, then the mutation records. ARGV 1 offset, 2 scan
   * idle ms, 3 grace ms, 4 conditions, 5 mutations, then per condition (logical key, expected version or ''
   * for absent), per mutation (logical key, 'P' or 'D', value, retention ms or 0). Returns {0, now} (Conflict)
   * or {1, now[, version]}.
   */
  static final String WRITE = PRELUDE + """
      local now = now_ms()
      local idle, grace = tonumber(ARGV[2]), tonumber(ARGV[3])
      local nc, nm = tonumber(ARGV[4]), tonumber(ARGV[5])
      local a = 6
      for i = 1, nc do
        local r = head(KEYS[6 + i], ARGV[a])
        local expected = ARGV[a + 1]
        a = a + 2
        if expected == '' then
          if live(r, now) then return {0, now} end
        elseif (not live(r, now)) or r[3] ~= expected then
          return {0, now}
        end
      end
      local muts = {}
      for j = 1, nm do
        local key = KEYS[6 + nc + j]
        muts[j] = {key = key, logical = ARGV[a], kind = ARGV[a + 1], value = ARGV[a + 2],
          retention = tonumber(ARGV[a + 3]), head = head(key, ARGV[a])}
        a = a + 4
      end
      if nm == 0 then return {1, now} end
      need_counter(KEYS[1])
      need(KEYS[2], 'zset')
      need(KEYS[3], 'zset')
      need(KEYS[4], 'zset')
      need(KEYS[5], 'hash')
      need(KEYS[6], 'string')
      for j = 1, nm do need(muts[j].key, 'zset') end
      -- every check passed and every touched record decoded: only writes from here on
      -- no version issued before a data loss is ever issued again (no ABA for a CAS that waited across it): a
      -- new or emptied Redis (restart without persistence) starts the sequence at server TIME in microseconds,
      -- and so does a server whose replication id differs from the one recorded with the sequence (a replica
      -- promoted without the primary's last writes), unless the sequence is already past that time; the
      -- sequence grows by one per batch, far slower than the clock, so TIME is past every version issued
      local t = redis.call('TIME')
      local time_us = t[1] .. string.format('%06d', tonumber(t[2]))
      -- a user whose ACL denies INFO gets no failover check (replid ''), but still writes
      local info = redis.pcall('INFO', 'replication')
      local replid = type(info) == 'string' and string.match(info, 'master_replid:(%x+)') or ''
      local recorded = redis.call('GET', KEYS[6])
      local current = redis.call('GET', KEYS[1])
      if (not current) or (recorded and recorded ~= replid and tonumber(current) < tonumber(time_us)) then
        redis.call('SET', KEYS[1], time_us)
      end
      if recorded ~= replid then redis.call('SET', KEYS[6], replid) end
      local seq = redis.call('INCR', KEYS[1])
      local version = fmt(seq)
      drop_idle_scans(KEYS[3], KEYS[4], KEYS[5], now, idle)
      local floor = seq
      local oldest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
      if #oldest == 2 then floor = tonumber(oldest[2]) end
      for j = 1, nm do
        local m = muts[j]
        local key, r = m.key, m.head
        local head_exp, head_tomb = 0, false
        if m.kind == 'P' then
          if m.retention > 0 then head_exp = now + m.retention end
          redis.call('ZADD', key, seq, encode(m.logical, m.value, version, head_exp, false))
          redis.call('ZADD', KEYS[2], 0, m.logical)
        elseif r ~= nil then
          if not r[5] then redis.call('ZADD', key, seq, encode(m.logical, '', version, 0, true)) end
          head_tomb = true
        end
        if r ~= nil or m.kind == 'P' then
          -- keep the newest entry every open scan can still see, and everything after it
          local keep = redis.call('ZREVRANGEBYSCORE', key, fmt(floor), '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
          if #keep == 2 then redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. keep[2]) end
          local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
          if head_tomb and redis.call('ZCARD', key) == 1 and tonumber(top[2]) <= floor then
            redis.call('DEL', key)
            redis.call('ZREM', KEYS[2], m.logical)
          elseif head_tomb then
            redis.call('PEXPIRE', key, grace)
          elseif head_exp > 0 then
            redis.call('PEXPIREAT', key, fmt(head_exp - OFFSET + grace))
          else
            redis.call('PERSIST', key)
          end
        end
      end
      return {1, now, version}
      """;

  /**
   * Open a scan: KEYS 1 seq, 2 scans, 3 scan-used, 4 scan-start, 5 scan-id; ARGV 1 offset, 2 idle ms, 3 max
   * open scans. Returns {id, seq, now}.
   */
  static final String OPEN_SCAN = PRELUDE + """
      local now = now_ms()
      need_counter(KEYS[1])
      need(KEYS[2], 'zset')
      need(KEYS[3], 'zset')
      need(KEYS[4], 'hash')
      need_counter(KEYS[5])
      drop_idle_scans(KEYS[2], KEYS[3], KEYS[4], now, tonumber(ARGV[2]))
      for _ = 1, 64 do
        if redis.call('ZCARD', KEYS[2]) < tonumber(ARGV[3]) then break end
        local lru = redis.call('ZRANGE', KEYS[3], 0, 0)
        if #lru == 0 then break end
        drop_scan(KEYS[2], KEYS[3], KEYS[4], lru[1])
      end
      local id = redis.call('INCR', KEYS[5])
      local seq = tonumber(redis.call('GET', KEYS[1]) or '0')
      redis.call('ZADD', KEYS[2], seq, id)
      redis.call('ZADD', KEYS[3], now, id)
      redis.call('HSET', KEYS[4], id, fmt(now))
      return {id, seq, now}
      """;

  /** Logical keys of the index: KEYS[1] index; ARGV 1 offset, 2 min, 3 max, 4 count. */
  static final String INDEX_RANGE = """
      return redis.call('ZRANGEBYLEX', KEYS[1], ARGV[2], ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
      """;

  /**
   * One slice of a scan page: KEYS 1 scans, 2 scan-used, 3 scan-start, 4 index, then record keys; ARGV 1
   * offset, 2 idle ms, 3 max age ms, 4 id, 5 seq, 6 start ms, 7 byte budget, 8 entry room, 9 '1' when the page
   * already has entries, then the logical keys. Returns {0, now} (expired) or {1, now, consumed, members...}.
   */
  static final String PAGE = PRELUDE + """
      local now = now_ms()
      local id, seq, start = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
      local budget, room, nonempty = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9] == '1'
      need(KEYS[1], 'zset')
      need(KEYS[2], 'zset')
      need(KEYS[3], 'hash')
      need(KEYS[4], 'zset')
      for i = 5, #KEYS do need(KEYS[i], 'zset') end
      if not scan_valid(KEYS[1], KEYS[2], KEYS[3], id, seq, start, now, tonumber(ARGV[2]), tonumber(ARGV[3])) then
        return {0, now}
      end
      redis.call('ZADD', KEYS[2], now, id)
      local out = {1, now, 0}
      local bytes, taken, consumed = 0, 0, 0
      for i = 5, #KEYS do
        if taken >= room then break end
        local logical = ARGV[i + 5]
        local m = redis.call('ZREVRANGEBYSCORE', KEYS[i], fmt(seq), '-inf', 'LIMIT', 0, 1)
        if #m == 0 then
          if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('ZREM', KEYS[4], logical) end
        else
          local r = decode(m[1], logical)
          if (not r[5]) and (r[4] == 0 or r[4] > start) then
            local size = #logical + #r[3] + #r[2]
            if (taken > 0 or nonempty) and bytes + size > budget then break end
            bytes = bytes + size
            taken = taken + 1
            out[#out + 1] = m[1]
          end
        end
        consumed = consumed + 1
      end
      out[3] = consumed
      return out
      """;

  /**
   * Sweep a slice of the scan index: KEYS 1 index, then record keys; ARGV 1 offset, then the logical keys.
   * Removes each logical key whose record key no longer exists (expired or evicted by Redis); a put re-adds
   * it in its own script, so this never hides a live key. Returns the number removed.
   */
  static final String SWEEP = """
      local removed = 0
      for i = 2, #KEYS do
        if redis.call('EXISTS', KEYS[i]) == 0 then removed = removed + redis.call('ZREM', KEYS[1], ARGV[i]) end
      end
      return {removed}
      """;

  /**
   * Close a scan after its last page: KEYS 1 scans, 2 scan-used, 3 scan-start; ARGV 1 offset, 2 idle ms, 3 max
   * age ms, 4 id, 5 seq, 6 start ms. Returns {1, now}, or {0, now} when the scan was no longer valid (Expired);
   * a cursor of another scan closes nothing.
   */
  static final String CLOSE_SCAN = PRELUDE + """
      local now = now_ms()
      need(KEYS[1], 'zset')
      need(KEYS[2], 'zset')
      need(KEYS[3], 'hash')
      if scan_valid(KEYS[1], KEYS[2], KEYS[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), now,
          tonumber(ARGV[2]), tonumber(ARGV[3])) then
        drop_scan(KEYS[1], KEYS[2], KEYS[3], ARGV[4])
        return {1, now}
      end
      return {0, now}
      """;

  /** Relocation time helpers. */
  private static final String BLOB_PRELUDE = """
      local OFFSET = tonumber(ARGV[1])
      local function fmt(n) return string.format('%.0f', n) end
      local function now_ms()
        local t = redis.call('TIME')
        return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + OFFSET
      end
      local function expiry(key)
        local t = redis.call('PEXPIRETIME', key)
        if t < 0 then return -1 end
        return t + OFFSET
      end
      """;

  /** Put: KEYS[1] blob; ARGV 1 offset, 2 payload, 3 retention ms. {1|2, now, expiry} or {3, now}. */
  static final String BLOB_PUT = BLOB_PRELUDE + """
      local now = now_ms()
      local current = redis.call('GET', KEYS[1])
      if not current then
        local expires = now + tonumber(ARGV[3])
        redis.call('SET', KEYS[1], ARGV[2], 'PXAT', fmt(expires - OFFSET))
        return {1, now, expires}
      end
      if current == ARGV[2] then return {2, now, expiry(KEYS[1])} end
      return {3, now}
      """;

  /** Get: KEYS[1] blob; ARGV 1 offset. {now} or {now, expiry, payload}. */
  static final String BLOB_GET = BLOB_PRELUDE + """
      local now = now_ms()
      local current = redis.call('GET', KEYS[1])
      if not current then return {now} end
      return {now, expiry(KEYS[1]), current}
      """;

  /** Renew: KEYS[1] blob; ARGV 1 offset, 2 retention ms. {1, now, expiry} or {0, now}. */
  static final String BLOB_RENEW = BLOB_PRELUDE + """
      local now = now_ms()
      if redis.call('EXISTS', KEYS[1]) == 0 then return {0, now} end
      local expires = now + tonumber(ARGV[2])
      redis.call('PEXPIREAT', KEYS[1], fmt(expires - OFFSET))
      return {1, now, expires}
      """;

  /** Delete: KEYS[1] blob; ARGV 1 offset. {now}. */
  static final String BLOB_DELETE = BLOB_PRELUDE + """
      local now = now_ms()
      redis.call('DEL', KEYS[1])
      return {now}
      """;
}

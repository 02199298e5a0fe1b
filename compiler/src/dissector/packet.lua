-- ---------------------------------------------------------------------------------------------
-- Packets (docs/WIRE_FORMAT.md, section 6): the CRC names the version (a plain packet) or the
-- session id of a version (a session packet); then the session header, the items, the end.
-- ---------------------------------------------------------------------------------------------

local META = {
  crc = field(ABBR .. ".crc", "CRC32"),
  version = field(ABBR .. ".version", "version"),
  session = field(ABBR .. ".session", "session"),
  sequence = field(ABBR .. ".session_sequence", "sequence"),
  ack = field(ABBR .. ".session_ack", "ack"),
  ack_bits = field(ABBR .. ".session_ack_bits", "ack_bits"),
  item = field(ABBR .. ".item", "item"),
  id = field(ABBR .. ".item_id", "id"),
  name = field(ABBR .. ".item_name", "name"),
  kind = field(ABBR .. ".item_kind", "kind"),
  request = field(ABBR .. ".item_request", "request"),
  index = field(ABBR .. ".item_index", "index"),
  age = field(ABBR .. ".item_age", "age"),
  ticks = field(ABBR .. ".item_ticks", "ticks"),
  value = field(ABBR .. ".item_value", "value"),
  refusal = field(ABBR .. ".item_refusal", "refusal"),
  refusal_code = field(ABBR .. ".item_refusal_code", "code"),
  refusal_text = field(ABBR .. ".item_refusal_text", "text"),
  tail = field(ABBR .. ".item_tail", "tail"),
  delta = field(ABBR .. ".item_delta", "delta"),
  finish = field(ABBR .. ".end", "end"),
}
PROTOCOL.fields = FIELD_LIST

local EXPERT = ProtoExpert.new(ABBR .. ".malformed", "Malformed " .. NAME .. " packet",
  expert.group.MALFORMED, expert.severity.ERROR)
local UNKNOWN = ProtoExpert.new(ABBR .. ".unknown", "An item this schema does not know",
  expert.group.UNDECODED, expert.severity.NOTE)
local UNDECODED = ProtoExpert.new(ABBR .. ".undecoded", "A snapshot delta not decoded",
  expert.group.UNDECODED, expert.severity.WARN)
local DELTA_MALFORMED = ProtoExpert.new(ABBR .. ".delta_malformed",
  "Malformed snapshot delta (against its baseline)", expert.group.MALFORMED, expert.severity.ERROR)
PROTOCOL.experts = { EXPERT, UNKNOWN, UNDECODED, DELTA_MALFORMED }

-- A delta's elapsed time is its ticks times the session's tick (SessionConfig::tick_seconds,
-- 1/30 s by default): dead reckoning extrapolates with it.
PROTOCOL.prefs.tick_hz = Pref.uint("Ticks per second", 30,
  "The session's tick rate: SessionConfig::tick_seconds is 1 / this (dead reckoning)")

local function tick_seconds()
  local hz = PROTOCOL.prefs.tick_hz
  if hz == nil or hz == 0 then
    hz = 30
  end
  return 1.0 / hz
end

-- XOR without bit operators: nibble by nibble, from a 16 x 16 table.
local XOR4 = {}
for a = 0, 15 do
  for b = 0, 15 do
    local x, p, aa, bb = 0, 1, a, b
    for _ = 1, 4 do
      if aa % 2 ~= bb % 2 then
        x = x + p
      end
      aa, bb, p = math.floor(aa / 2), math.floor(bb / 2), p * 2
    end
    XOR4[a * 16 + b] = x
  end
end

local function xor(a, b, nibbles)
  local x, p = 0, 1
  for _ = 1, nibbles do
    x = x + XOR4[(a % 16) * 16 + b % 16] * p
    a, b, p = math.floor(a / 16), math.floor(b / 16), p * 16
  end
  return x
end

-- CRC-32/ISO-HDLC (zlib's), reflected polynomial 0xEDB88320.
local CRC_TABLE = {}
for n = 0, 255 do
  local c = n
  for _ = 1, 8 do
    if c % 2 == 1 then
      c = xor(math.floor(c / 2), 0xEDB88320, 8)
    else
      c = math.floor(c / 2)
    end
  end
  CRC_TABLE[n] = c
end

local function crc_update(c, b, from, to)
  for i = from, to - 1 do
    c = xor(CRC_TABLE[xor(c % 256, b[i], 2)], math.floor(c / 256), 8)
  end
  return c
end

--- The CRC of a frame: over the 8 bytes of the id (`id`, 0-based), then bytes `from` ..
--- `to` - 1 of `b`.
local function frame_crc(id, b, from, to)
  local c = crc_update(0xFFFFFFFF, id, 0, 8)
  return 0xFFFFFFFF - crc_update(c, b, from, to)
end

local function le(b, from, count)
  local v, p = 0, 1
  for i = from, from + count - 1 do
    v = v + b[i] * p
    p = p * 256
  end
  return v
end

--- The version whose id (plain) or session id the CRC matches: its index and whether it is a
--- session packet; nil when none does.
local function find_version(b, len)
  if len < 4 then
    return nil
  end
  local crc = le(b, 0, 4)
  for version, states in ipairs(VERSIONS) do
    if frame_crc(states.plain, b, 4, len) == crc then
      return version, false
    end
  end
  for version, states in ipairs(VERSIONS) do
    if frame_crc(states.session, b, 4, len) == crc then
      return version, true
    end
  end
  return nil
end

local function kind_text(tag, x, age)
  if tag == 0 then
    return "message"
  elseif tag == 1 then
    return "request"
  elseif tag == 2 then
    return "response"
  elseif x % 2 == 0 then
    return "reliable message"
  elseif age == 0 then
    return "snapshot"
  end
  return "snapshot delta"
end

--- The struct an item's body is, as dispatch finds it; nil for an entry or kind it does not
--- know (skipped, as a receiver skips it).
local function body_of(entry, kind)
  if entry == nil then
    return nil
  end
  if kind == "message" or kind == "reliable message" or kind == "snapshot" then
    return entry.message
  elseif kind == "request" then
    return entry.request
  elseif kind == "response" then
    return entry.response
  end
  return nil
end

local function read_u32_vlq(r, what)
  local at = r.pos
  local v = vlq_length(r)
  if v > 0xFFFFFFFF then
    out_of_range(at, what .. " above 2^32 - 1")
  end
  return v
end

--- Per conversation (addresses and ports, so per direction), on the first pass: the states of
--- the snapshots each packet read whole carried, { value, node } by sequence and message id;
--- and per frame the baselines its deltas were read against (what a later pass reads again).
local CONVERSATIONS = {}
local BASELINES = {}

local function snapshot_store(pinfo)
  local key = tostring(pinfo.src) .. ":" .. pinfo.src_port .. ">" .. tostring(pinfo.dst) .. ":"
    .. pinfo.dst_port
  local store = CONVERSATIONS[key]
  if store == nil then
    store = {}
    CONVERSATIONS[key] = store
  end
  return store
end

--- A snapshot delta: its message read against the state of the same id in the packet
--- `sequence - age` of this conversation (kept on the first pass). An unknown baseline and a
--- malformed delta are expert info on the item: `idlc decode`, which holds no baseline,
--- accepts the packet, and the endpoint rejects it whole (its states are not kept).
local function read_delta(r, it, ctx, entry, id, age, ticks, item_end)
  local n = node(it, META.value, r.pos, r.pos, entry.delta.name)
  local baseline = ctx.baseline(id, age)
  if baseline == nil then
    n.field = META.delta
    n.e = item_end
    n.text = "not decoded: its baseline, the snapshot " .. int_text(age)
      .. " packets before, is not in this capture"
    n.expert = { UNDECODED, "a snapshot delta whose baseline this capture does not hold" }
    ctx.rejected = true
    r.pos = item_end
    return
  end
  local ok, err = pcall(function()
    local elapsed = ticks * tick_seconds()
    ctx.snapshots[id] = { value = entry.delta.decode(r, n, baseline, elapsed), node = n }
  end)
  n.e = r.pos
  if not ok then
    if not is_malformed(err) then
      error(err, 0)
    end
    n.expert = { DELTA_MALFORMED, err.kind .. " at bit " .. int_text(err.at) .. " of the delta: "
      .. err.why }
    ctx.snapshots[id] = nil
    ctx.rejected = true
    r.pos = item_end
  end
end

--- One item: its framing, then its body (a message, a call, a response, a snapshot or its
--- delta against the baseline state kept for this conversation).
local function read_item(r, parent, ctx)
  local start = r.pos - 1
  local len_at = r.pos
  local len = vlq_length(r)
  if len > remaining(r) then
    malformed("UnexpectedEnd", len_at, "an item of " .. int_text(len) .. " bits beyond the end")
  end
  local item_end = r.pos + len
  local outer = r.e
  r.e = item_end
  local it = node(parent, META.item, start, item_end, "item")
  local header_at = r.pos
  local header = vlq_length(r)
  local id = math.floor(header / 4)
  if id > 0xFFFFFFFF then
    out_of_range(header_at, "an id above 2^32 - 1")
  end
  local tag = header % 4
  local x, age, ticks, request = 0, 0, 0, nil
  if tag == 3 and ctx.session then
    local x_at = r.pos
    x = vlq_length(r)
    if math.floor(x / 2) > 65535 then
      out_of_range(x_at, "an index or age above 65535")
    end
    if x % 2 == 1 then
      age = math.floor(x / 2)
      if age > 0 then
        ticks = read_u32_vlq(r, "ticks")
      end
    end
  elseif tag ~= 0 then
    request = read_u32_vlq(r, "a request id")
    if tag == 3 then
      out_of_range(header_at, "tag 3 outside a session")
    end
  end
  -- A response names an RPC of the protocol whose requests it answers.
  local entry
  if tag == 2 then
    entry = RESPONSES[id]
  else
    entry = ENTRIES[id]
  end
  local kind = kind_text(tag, x, age)
  node(it, META.id, header_at, r.pos, int_text(id))
  if entry then
    node(it, META.name, header_at, r.pos, entry.name)
  end
  node(it, META.kind, header_at, r.pos, kind)
  if request then
    node(it, META.request, header_at, r.pos, int_text(request))
  end
  if kind == "reliable message" then
    node(it, META.index, header_at, r.pos, int_text(math.floor(x / 2)))
  elseif kind == "snapshot delta" then
    node(it, META.age, header_at, r.pos, int_text(age))
    node(it, META.ticks, header_at, r.pos, int_text(ticks))
  end
  it.text = (entry and entry.name or ("id " .. int_text(id))) .. " (" .. kind .. ")"
  ctx.summary[#ctx.summary + 1] = entry and entry.name or ("id " .. int_text(id))
  local body = body_of(entry, kind)
  -- A session response starts with its status: 1 when the call was refused.
  local refused = kind == "response" and ctx.session and bool(r)
  if refused then
    it.text = it.text .. ": refused"
    local n = node(it, META.refusal, r.pos, r.pos, "refused")
    local at = r.pos
    local code = read_u32_vlq(r, "a refusal code")
    node(n, META.refusal_code, at, r.pos, int_text(code))
    rule_bytes(r, n, META.refusal_text, function(reader)
      return bounded_length(reader, 255, 8)
    end, true)
    n.e = r.pos
  elseif body then
    local n = node(it, META.value, r.pos, r.pos, body.name)
    local value = body.decode(r, n, false)
    n.e = r.pos
    if kind == "snapshot" then
      ctx.snapshots[id] = { value = value, node = n }
    end
  elseif kind == "snapshot delta" and entry and entry.delta then
    read_delta(r, it, ctx, entry, id, age, ticks, item_end)
  else
    local n = node(it, META.delta, r.pos, item_end, "skipped")
    if kind == "snapshot delta" then
      n.text = "not decoded: a delta form this script cannot read yet (DIFF or EXTEND)"
      n.expert = { UNDECODED, "a snapshot delta this script cannot decode" }
    else
      n.text = "skipped: an entry this schema does not know"
      ctx.unknown = true
    end
    r.pos = item_end
  end
  if r.pos < item_end then
    node(it, META.tail, r.pos, item_end, "skipped: " .. int_text(item_end - r.pos)
      .. " bits a newer writer added")
  end
  r.pos = item_end
  r.e = outer
end

--- Every item, then the end: a 0 bit and zero padding, or the end of the data.
local function read_items(r, parent, ctx)
  while remaining(r) > 0 do
    local at = r.pos
    if not bool(r) then
      padding(r, true)
      if remaining(r) ~= 0 then
        malformed("TrailingBytes", r.pos, "bytes after the end of the items")
      end
      node(parent, META.finish, at, r.pos, "no more items")
      return
    end
    read_item(r, parent, ctx)
  end
end

local function range_of(tvb, s, e)
  local from = math.floor(s / 8)
  local to = math.ceil(e / 8)
  if to <= from or to > tvb:len() then
    return nil
  end
  return tvb:range(from, to - from)
end

--- Adds `n` and its children under `tree`.
local function render(n, tree, tvb)
  local range = range_of(tvb, n.s, n.e)
  local item
  if range then
    item = tree:add(n.field, range, n.text)
  else
    item = tree:add(n.field, n.text)
  end
  if n.expert then
    item:add_proto_expert_info(n.expert[1], n.expert[2])
  end
  for _, kid in ipairs(n.kids) do
    render(kid, item, tvb)
  end
  return item
end

local function bytes_of(tvb)
  local b = {}
  local array = tvb:bytes()
  for i = 0, tvb:len() - 1 do
    b[i] = array:get_index(i)
  end
  return b
end

--- Every idlc script loaded shares this list (Wireshark runs its Lua plugins in one state, each
--- script in an environment of its own: the list is in `_G`). The two directions of a link
--- share one UDP port, and Wireshark's table of UDP ports holds one dissector per port: a
--- packet whose CRC names none of this protocol's versions goes to the first other idlc
--- protocol loaded whose CRC it matches.
local LOADED = _G.IDLC_DISSECTORS or {}
_G.IDLC_DISSECTORS = LOADED
local dissect

local function claims(b, len)
  return find_version(b, len) ~= nil
end

function dissect(tvb, pinfo, tree)
  local len = tvb:len()
  local b = bytes_of(tvb)
  local version, session = find_version(b, len)
  if version == nil then
    for _, other in ipairs(LOADED) do
      if other.dissect ~= dissect and other.claims(b, len) then
        return other.dissect(tvb, pinfo, tree)
      end
    end
  end
  pinfo.cols.protocol = NAME
  local root = tree:add(PROTOCOL, tvb:range(0, len))
  if version == nil then
    root:add_proto_expert_info(EXPERT, "CrcMismatch: the CRC matches none of the "
      .. #VERSIONS .. " versions of " .. NAME .. " (plain or session)")
    pinfo.cols.info = NAME .. ": CRC matches no version"
    return len
  end
  -- Versions count from 0, as `idlc decode` counts them.
  local top = node(nil, META.crc, 0, 32, "version " .. (version - 1) .. " of " .. #VERSIONS)
  local meta = { node(nil, META.version, 0, 32, int_text(version - 1)) }
  local r = { b = b, pos = 32, e = len * 8, depth = 0 }
  local ctx = { session = session, summary = {}, snapshots = {} }
  local store = snapshot_store(pinfo)
  local sequence
  local items = { kids = {} }
  local ok, err = pcall(function()
    if session then
      if len < 12 then
        malformed("UnexpectedEnd", 32, "a session header needs 8 bytes")
      end
      sequence = le(b, 4, 2)
      local s = node(nil, META.session, 32, 96, "sequence " .. sequence)
      node(s, META.sequence, 32, 48, int_text(sequence))
      node(s, META.ack, 48, 64, int_text(le(b, 6, 2)))
      node(s, META.ack_bits, 64, 96, int_text(le(b, 8, 4)))
      meta[#meta + 1] = s
      r.pos = 96
      local frame = pinfo.number
      BASELINES[frame] = BASELINES[frame] or {}
      ctx.baseline = function(id, age)
        if not pinfo.visited then
          local packet = store[(sequence - age) % 65536]
          BASELINES[frame][id] = packet and packet[id]
        end
        return BASELINES[frame][id]
      end
    end
    read_items(r, items, ctx)
  end)
  if ok and session and not ctx.rejected and not pinfo.visited then
    store[sequence] = ctx.snapshots
  end
  render(top, root, tvb)
  for _, n in ipairs(meta) do
    render(n, root, tvb)
  end
  for _, n in ipairs(items.kids) do
    render(n, root, tvb)
  end
  local info = NAME .. " v" .. (version - 1)
  if sequence then
    info = info .. " session seq " .. sequence
  end
  info = info .. ": " .. table.concat(ctx.summary, ", ")
  if ctx.unknown then
    root:add_proto_expert_info(UNKNOWN, "an item this schema does not know was skipped")
  end
  if not ok then
    if not is_malformed(err) then
      error(err, 0)
    end
    root:add_proto_expert_info(EXPERT, err.kind .. " at bit " .. int_text(err.at) .. ": " .. err.why)
    info = info .. " [malformed: " .. err.kind .. "]"
  end
  pinfo.cols.info = info
  return len
end

LOADED[#LOADED + 1] = { claims = claims, dissect = dissect }
PROTOCOL.dissector = dissect

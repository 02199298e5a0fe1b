-- ---------------------------------------------------------------------------------------------
-- The reader: what idlc-runtime's BitReader does, in plain arithmetic (Lua 5.2 to 5.4, no bit
-- operators). A reader is { b = bytes (0-based), pos = bit, e = end bit, depth = nesting }; bits
-- are packed LSB-first (docs/WIRE_FORMAT.md, section 1). Every read checks its bounds; a
-- malformed input raises a Malformed value (never a string), which the dissector turns into
-- expert info. Any other error is a bug of the script and is raised again as it is.
-- ---------------------------------------------------------------------------------------------

local Malformed = {}
Malformed.__index = Malformed

--- Raises a Malformed error of `kind` at bit `at` (docs/WIRE_FORMAT.md, section 7).
local function malformed(kind, at, why)
  error(setmetatable({ kind = kind, at = at, why = why }, Malformed), 0)
end

local function is_malformed(err)
  return getmetatable(err) == Malformed
end

local TWO32 = 4294967296

--- Every ProtoField, by abbreviation, and in the order declared (the Proto's fields).
local F, FIELD_LIST = {}, {}

--- Declares the field `abbr` (shown as `name`); every value is shown as its text.
local function field(abbr, name)
  local f = ProtoField.string(abbr, name)
  F[abbr] = f
  FIELD_LIST[#FIELD_LIST + 1] = f
  return f
end

local function pow2(n)
  return 2.0 ^ n
end

--- The nodes of the tree a packet decodes into, rendered once the packet is read.
local function node(parent, field, s, e, text)
  local n = { field = field, s = s, e = e, text = text, kids = {} }
  if parent then
    parent.kids[#parent.kids + 1] = n
  end
  return n
end

local function remaining(r)
  return r.e - r.pos
end

local function need(r, bits)
  if bits > r.e - r.pos then
    malformed("UnexpectedEnd", r.pos, "needs " .. bits .. " bits, " .. (r.e - r.pos) .. " left")
  end
end

--- `n` bits (at most 52) as a number, least significant first.
local function bits(r, n)
  need(r, n)
  local value, shift, pos = 0, 0, r.pos
  while shift < n do
    local byte = r.b[math.floor(pos / 8)]
    local offset = pos % 8
    local take = math.min(8 - offset, n - shift)
    local chunk = math.floor(byte / pow2(offset)) % pow2(take)
    value = value + chunk * pow2(shift)
    shift = shift + take
    pos = pos + take
  end
  r.pos = pos
  return value
end

--- `n` bits (up to 64) as a UInt64: two 32-bit halves.
local function bits_wide(r, n)
  need(r, n)
  local low = bits(r, math.min(n, 32))
  local high = 0
  if n > 32 then
    high = bits(r, n - 32)
  end
  return UInt64.new(low, high)
end

local function bool(r)
  return bits(r, 1) == 1
end

--- The present bit of a segment after a FENCE: false at the end of the input.
local function fence_present(r)
  if remaining(r) == 0 then
    return false
  end
  return bool(r)
end

--- Zero bits to the next byte boundary; `to_end` limits them to what is left (`finish`).
local function padding(r, to_end)
  local pad = (8 - r.pos % 8) % 8
  if pad > remaining(r) then
    if not to_end then
      malformed("UnexpectedEnd", r.pos, "padding beyond the end")
    end
    pad = remaining(r)
  end
  local at = r.pos
  if bits(r, pad) ~= 0 then
    malformed("BadPadding", at, "padding bits are not zero")
  end
end

local function align(r)
  padding(r, false)
end

--- The groups of a VLQ of `group` payload bits per group for a `type_bits`-bit type
--- (WIRE_FORMAT.md), checked (minimal, within the type); `add(value, payload, shift)` joins
--- each group's payload to the value, which starts as `zero`.
local function vlq_groups(r, group, type_bits, zero, add)
  local start = r.pos
  local max_groups = math.ceil(type_bits / group)
  local value, shift = zero, 0
  for i = 1, max_groups do
    need(r, group + 1)
    local payload = bits(r, group)
    local more = bits(r, 1) == 1
    local room = type_bits - shift
    if room < group and payload >= pow2(room) then
      malformed("OverlongVlq", start, "bits beyond the type")
    end
    value = add(value, payload, shift)
    if not more then
      if i > 1 and payload == 0 then
        malformed("OverlongVlq", start, "a redundant zero group")
      end
      return value
    end
    shift = shift + group
  end
  malformed("OverlongVlq", start, "more groups than the type needs")
end

--- A VLQ as a number, exact below 2^53 (a larger one is only ever compared with a bound).
local function vlq(r, group, type_bits)
  return vlq_groups(r, group, type_bits, 0, function(value, payload, shift)
    return value + payload * pow2(shift)
  end)
end

--- A VLQ as a UInt64, for types wider than 52 bits.
local function vlq_wide(r, group, type_bits)
  return vlq_groups(r, group, type_bits, UInt64.new(0, 0), function(value, payload, shift)
    return value + UInt64.new(payload, 0):lshift(shift)
  end)
end

--- A length, a header or a request id: VLQ(7) of a u64.
local function vlq_length(r)
  return vlq(r, 7, 64)
end

--- An integer as its decimal text (exact below 2^53).
local function int_text(v)
  return string.format("%.0f", v)
end

-- ---------------------------------------------------------------------------------------------
-- Rules: each reads one value, adds its node under `parent` (`field` is its ProtoField) and
-- returns the value.
-- ---------------------------------------------------------------------------------------------

local function out_of_range(at, why)
  malformed("ValueOutOfRange", at, why)
end

local function rule_bool(r, parent, field, width)
  local start = r.pos
  local raw = bits(r, width)
  if raw > 1 then
    out_of_range(start, "a BOOL of " .. width .. " bits is 0 or 1")
  end
  local value = raw == 1
  node(parent, field, start, r.pos, tostring(value))
  return value
end

local function enumerator_text(names, index)
  return names[index] .. " (" .. int_text(index) .. ")"
end

local function enumerator(names, index, at)
  if names[index] == nil then
    malformed("BadEnumerator", at, "no enumerator " .. int_text(index))
  end
  return names[index]
end

--- INT[min,max] as `v - min` in `width` bits; `names`: the enumerators of an enum field.
local function rule_ranged(r, parent, field, min, max, width, names)
  local start = r.pos
  local offset = bits(r, width)
  if offset > max - min then
    out_of_range(start, "offset " .. int_text(offset) .. " above " .. int_text(max - min))
  end
  local value = min + offset
  local text = int_text(value)
  if names then
    enumerator(names, value, start)
    text = enumerator_text(names, value)
  end
  node(parent, field, start, r.pos, text)
  return value
end

--- An integer of a range beyond 2^52: the offset as a UInt64, checked against `span`; the
--- value is `offset + min` modulo 2^64, an Int64 when the range is signed.
local function rule_ranged_wide(r, parent, field, min, span, width, signed)
  local start = r.pos
  local offset = bits_wide(r, width)
  if offset > span then
    out_of_range(start, "offset " .. tostring(offset) .. " above " .. tostring(span))
  end
  local value = offset + min
  if signed then
    value = Int64.new(value:lower(), value:higher())
  end
  node(parent, field, start, r.pos, tostring(value))
  return value
end

--- A fixed-width integer (UINTn / INTn), checked against the IDL range.
local function rule_fixed(r, parent, field, width, signed, min, max)
  local start = r.pos
  local value = bits(r, width)
  if signed and value >= pow2(width - 1) then
    value = value - pow2(width)
  end
  if value < min or value > max then
    out_of_range(start, int_text(value) .. " outside " .. int_text(min) .. ".." .. int_text(max))
  end
  node(parent, field, start, r.pos, int_text(value))
  return value
end

local function rule_fixed_wide(r, parent, field, width, signed, min, max)
  local start = r.pos
  local raw = bits_wide(r, width)
  local value = raw
  if signed then
    -- sign-extend the `width`-bit pattern to 64 bits
    if width < 64 and raw >= UInt64.new(0, 0) + UInt64.new(1, 0):lshift(width - 1) then
      raw = raw - UInt64.new(1, 0):lshift(width) -- wraps modulo 2^64
    end
    value = Int64.new(raw:lower(), raw:higher())
  end
  if value < min or value > max then
    out_of_range(start, tostring(value) .. " outside " .. tostring(min) .. ".." .. tostring(max))
  end
  node(parent, field, start, r.pos, tostring(value))
  return value
end

--- zigzag: 0, 1, 2, 3 .. are 0, -1, 1, -2 ..
local function unzigzag(v)
  if v % 2 == 1 then
    return -(v + 1) / 2
  end
  return v / 2
end

--- A VLQ integer: `mode` "plain", "zigzag" or "offset" (of `min`), checked against min..max.
local function rule_vlq(r, parent, field, group, type_bits, mode, min, max, names)
  local start = r.pos
  local raw = vlq(r, group, type_bits)
  local value = raw
  if mode == "zigzag" then
    value = unzigzag(raw)
  elseif mode == "offset" then
    value = min + raw
  end
  if value < min or value > max then
    out_of_range(start, int_text(value) .. " outside " .. int_text(min) .. ".." .. int_text(max))
  end
  local text = int_text(value)
  if names then
    enumerator(names, value, start)
    text = enumerator_text(names, value)
  end
  node(parent, field, start, r.pos, text)
  return value
end

local function rule_vlq_wide(r, parent, field, group, type_bits, mode, min, max, signed)
  local start = r.pos
  local raw = vlq_wide(r, group, type_bits)
  local value = raw
  if mode == "zigzag" then
    local half = raw:rshift(1)
    value = Int64.new(half:lower(), half:higher())
    if raw:lower() % 2 == 1 then
      value = -value - 1
    end
  elseif mode == "offset" then
    local unsigned_min = UInt64.new(min:lower(), min:higher())
    if raw > UInt64.max() - unsigned_min then
      out_of_range(start, "above the range")
    end
    value = raw + unsigned_min
    if signed then
      value = Int64.new(value:lower(), value:higher())
    end
  elseif signed then
    value = Int64.new(raw:lower(), raw:higher())
    if raw:higher() >= 2147483648 then
      out_of_range(start, "above the range")
    end
  end
  if value < min or value > max then
    out_of_range(start, tostring(value) .. " outside " .. tostring(min) .. ".." .. tostring(max))
  end
  node(parent, field, start, r.pos, tostring(value))
  return value
end

local function rule_enum_index(r, parent, field, count, width, names)
  local start = r.pos
  local index = bits(r, width)
  if index >= count then
    malformed("BadEnumerator", start, "index " .. int_text(index) .. " of " .. count)
  end
  enumerator(names, index, start)
  node(parent, field, start, r.pos, enumerator_text(names, index))
  return names[index]
end

--- A HUFFMAN code: `codes[i]` = { code, length } of enumerator i (0-based), first bit first.
local function rule_huffman(r, parent, field, codes, names)
  local start = r.pos
  local longest = 0
  for i = 0, #names do
    longest = math.max(longest, codes[i][2])
  end
  local left = remaining(r)
  local ahead = bits(r, math.min(longest, left))
  r.pos = start
  for i = 0, #names do
    local code, len = codes[i][1], codes[i][2]
    if len <= left and ahead % pow2(len) == code then
      r.pos = start + len
      node(parent, field, start, r.pos, enumerator_text(names, i))
      return names[i]
    end
  end
  if longest > left then
    malformed("UnexpectedEnd", start, "no HUFFMAN code fits the bits left")
  end
  malformed("BadEnumerator", start, "no HUFFMAN code")
end

--- FIXED_POINT: the step q in `width` bits, valid from `first` to `last`; its value
--- `min(min + q * resolution, max)`, shown with `decimals` decimals.
local function rule_fixed_point(r, parent, field, min, max, resolution, first, last, width, decimals)
  local start = r.pos
  local q = bits(r, width)
  if q < first or q > last then
    out_of_range(start, "step " .. int_text(q) .. " outside " .. int_text(first) .. ".." .. int_text(last))
  end
  local value = math.min(min + q * resolution, max)
  node(parent, field, start, r.pos, string.format("%." .. decimals .. "f", value))
  return value
end

--- The real of IEEE-754 bits: `mantissa_bits` of mantissa, `exponent_bits` of exponent.
local function ieee(sign, exponent, mantissa, exponent_bits, mantissa_bits)
  local bias = pow2(exponent_bits - 1) - 1
  local value
  if exponent == pow2(exponent_bits) - 1 then
    if mantissa == 0 then
      value = math.huge
    else
      return 0 / 0
    end
  elseif exponent == 0 then
    value = mantissa * pow2(1 - bias - mantissa_bits)
  else
    value = (pow2(mantissa_bits) + mantissa) * pow2(exponent - bias - mantissa_bits)
  end
  if sign then
    return -value
  end
  return value
end

local function float_text(value, digits)
  if value ~= value then
    return "NaN"
  elseif value == math.huge then
    return "inf"
  elseif value == -math.huge then
    return "-inf"
  end
  return string.format("%." .. digits .. "g", value)
end

local function float32_bits(r)
  local raw = bits(r, 32)
  local sign = raw >= pow2(31)
  local exponent = math.floor(raw / pow2(23)) % 256
  return ieee(sign, exponent, raw % pow2(23), 8, 23)
end

local function float64_bits(r)
  local low = bits(r, 32)
  local high = bits(r, 32)
  local sign = high >= pow2(31)
  local exponent = math.floor(high / pow2(20)) % 2048
  local mantissa = (high % pow2(20)) * TWO32 + low
  return ieee(sign, exponent, mantissa, 11, 52)
end

--- Whether `value` lies in a NUMERIC range (`range` = { min, max, min_inclusive, max_inclusive }).
local function in_range(value, range)
  if value ~= value then
    return false
  end
  local above = value > range[1] or (range[3] and value == range[1])
  local below = value < range[2] or (range[4] and value == range[2])
  return above and below
end

--- FLOAT32 / FLOAT64 raw; of a NUMERIC range (`range`, else nil) checked against it. A FLOAT32
--- whose f32 is the one nearest to an end stands for the end (`f32_ends`: those two f32s).
local function rule_float(r, parent, field, width, range, f32_ends)
  local start = r.pos
  local value
  if width == 32 then
    value = float32_bits(r)
  else
    value = float64_bits(r)
  end
  if range then
    if f32_ends then
      if value == f32_ends[1] then
        value = range[1]
      elseif value == f32_ends[2] then
        value = range[2]
      end
    end
    if not in_range(value, range) then
      out_of_range(start, float_text(value, 17) .. " outside the range")
    end
  end
  local digits = 17
  if width == 32 and not range then
    digits = 9
  end
  node(parent, field, start, r.pos, float_text(value, digits))
  return value
end

--- Whether bytes `from` .. `to` - 1 of `b` are UTF-8 (no overlong forms, surrogates or code
--- points above U+10FFFF).
local function is_utf8(b, from, to)
  local i = from
  while i < to do
    local c = b[i]
    local extra, min
    if c < 0x80 then
      extra = 0
    elseif c >= 0xC2 and c <= 0xDF then
      extra, min = 1, 0x80
    elseif c >= 0xE0 and c <= 0xEF then
      extra, min = 2, 0x800
    elseif c >= 0xF0 and c <= 0xF4 then
      extra, min = 3, 0x10000
    else
      return false
    end
    if i + extra > to - 1 then
      return false
    end
    local code = c % pow2(6 - extra)
    if extra == 0 then
      code = c
    end
    for k = 1, extra do
      local cc = b[i + k]
      if cc < 0x80 or cc > 0xBF then
        return false
      end
      code = code * 64 + (cc - 0x80)
    end
    if extra > 0 and (code < min or code > 0x10FFFF or (code >= 0xD800 and code <= 0xDFFF)) then
      return false
    end
    i = i + extra + 1
  end
  return true
end

--- STRING / BYTES: the length (`length`: a function of the reader), ALIGN, the bytes.
local function rule_bytes(r, parent, field, length, utf8)
  local start = r.pos
  local len = length(r)
  if len > math.floor(remaining(r) / 8) then
    malformed("UnexpectedEnd", start, "a length of " .. int_text(len) .. " bytes beyond the end")
  end
  align(r)
  if len > math.floor(remaining(r) / 8) then
    malformed("UnexpectedEnd", start, "a length of " .. int_text(len) .. " bytes beyond the end")
  end
  local from = r.pos / 8
  local chars = {}
  for i = 0, len - 1 do
    chars[#chars + 1] = r.b[from + i]
  end
  r.pos = r.pos + len * 8
  local text
  if utf8 then
    if not is_utf8(r.b, from, from + len) then
      malformed("BadUtf8", start, "a STRING that is not UTF-8")
    end
    local parts = {}
    for i, c in ipairs(chars) do
      parts[i] = string.char(c)
    end
    text = table.concat(parts)
    node(parent, field, start, r.pos, text)
    return text
  end
  local hex = {}
  for i, c in ipairs(chars) do
    hex[i] = string.format("%02x", c)
  end
  node(parent, field, start, r.pos, table.concat(hex))
  return chars
end

--- A length or count bounded by `max`, in `width` bits.
local function bounded_length(r, max, width)
  local start = r.pos
  local len = bits(r, width)
  if len > max then
    malformed("LengthOverBound", start, int_text(len) .. " above " .. int_text(max))
  end
  return len
end

local function plural(count, one)
  if count == 1 then
    return "1 " .. one
  end
  return int_text(count) .. " " .. one .. "s"
end

--- `count` elements read by `element(r, n)` under the node `n`, which ends after them.
local function elements(r, n, count, element)
  local values = {}
  for i = 1, count do
    values[i] = element(r, n)
  end
  n.e = r.pos
  return values
end

--- SEQUENCE: the count (`length`), checked against the bits left (`min_bits` per element),
--- then each element read by `element(r, parent)`.
local function rule_sequence(r, parent, field, length, bounded, min_bits, element)
  local start = r.pos
  local count = length(r)
  local per = min_bits
  if not bounded then
    per = math.max(per, 1)
  end
  if count * per > remaining(r) then
    malformed("LengthOverBound", start, plural(count, "element") .. " cannot fit the bits left")
  end
  return elements(r, node(parent, field, start, r.pos, plural(count, "element")), count, element)
end

--- ARRAY: `len` elements, which must fit the bits left before any is read.
local function rule_array(r, parent, field, len, min_bits, element)
  local start = r.pos
  if len * min_bits > remaining(r) then
    malformed("UnexpectedEnd", start, plural(len, "element") .. " cannot fit the bits left")
  end
  return elements(r, node(parent, field, start, r.pos, plural(len, "element")), len, element)
end

--- OPTIONAL: the presence bit, then the value read by `inner(r, parent)` into this node.
local function rule_optional(r, parent, field, inner)
  local start = r.pos
  if not bool(r) then
    node(parent, field, start, r.pos, "absent")
    return nil
  end
  local holder = { kids = {} }
  local value = inner(r, holder)
  local n = holder.kids[1]
  if n then
    n.s = start
    parent.kids[#parent.kids + 1] = n
  end
  return value
end

local MAX_DECODE_DEPTH = 128

--- The decoder of every struct, by IDL name: `DECODE[name](r, parent, nested)`.
local DECODE = {}

--- A nested struct: a node named after it, its fields under it.
local function rule_struct(r, parent, field, name)
  local start = r.pos
  local n = node(parent, field, start, r.pos, name)
  local value = DECODE[name](r, n, true)
  n.e = r.pos
  return value
end

--- Counts the nesting of a struct that can contain itself.
local function enter(r)
  if r.depth >= MAX_DECODE_DEPTH then
    malformed("TooDeep", r.pos, "nested deeper than " .. MAX_DECODE_DEPTH)
  end
  r.depth = r.depth + 1
end

local function leave(r)
  r.depth = r.depth - 1
end

--- A run of fixed-width fields read as one word: all its bits must be there first.
local function packed(r, width)
  need(r, width)
end

--- CHECK: the 32-bit marker 0x1D1CC0DE.
local function check(r)
  local start = r.pos
  if bits(r, 32) ~= 0x1D1CC0DE then
    malformed("CheckMismatch", start, "the CHECK marker is not 0x1D1CC0DE")
  end
end

--- The last node under `parent` (the one a read just added).
local function last(parent)
  return parent.kids[#parent.kids]
end

--- Removes `n` from `parent` (an old slot an EXTEND's whole value replaces).
local function drop(parent, n)
  for i, kid in ipairs(parent.kids) do
    if kid == n then
      table.remove(parent.kids, i)
      return
    end
  end
end

--- An open extension's present bit and length: the outer end, or nil when absent. The reader
--- is limited to the extension until `leave_extension`.
local function enter_extension(r)
  if not fence_present(r) then
    return nil
  end
  local start = r.pos
  local len = vlq_length(r)
  if len > remaining(r) then
    malformed("UnexpectedEnd", start, "an extension of " .. int_text(len) .. " bits beyond the end")
  end
  local outer = r.e
  r.e = r.pos + len
  return outer
end

local function leave_extension(r, outer)
  r.pos = r.e
  r.e = math.max(outer, r.e)
end

--- The extension of a nested struct's next segment: whether it is present (its outer end
--- kept in `outers`).
local function enter_segment(r, outers)
  local outer = enter_extension(r)
  if outer == nil then
    return false
  end
  outers[#outers + 1] = outer
  return true
end

--- Leaves the extensions `enter_segment` entered, innermost first.
local function leave_extensions(r, outers)
  for i = #outers, 1, -1 do
    leave_extension(r, outers[i])
  end
end

--- Skips an open extension (a newer writer's fields after a struct's open end).
local function skip_extension(r)
  if remaining(r) == 0 then
    return
  end
  local outer = enter_extension(r)
  if outer then
    leave_extension(r, outer)
  end
end

--- A field of a segment that was not sent: its DEFAULT.
local function default(parent, field, at, text)
  node(parent, field, at, at, text .. " (default)")
end

--- EXTEND with the high bits: `width` bits joined above the old slot's `low` bits.
local function extend_high_bits(r, slot, low, width)
  local start = r.pos
  local high = bits_wide(r, width)
  local base = slot.value
  if type(base) == "number" then
    base = UInt64.new(base % TWO32, math.floor(base / TWO32))
  end
  if high ~= UInt64.new(0, 0) and high:lshift(low):rshift(low) ~= high then
    out_of_range(start, "high bits beyond 64 bits")
  end
  local joined = base + high:lshift(low)
  slot.node.text = tostring(joined)
  slot.node.e = r.pos
  return joined
end

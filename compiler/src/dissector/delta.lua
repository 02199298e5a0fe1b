-- ---------------------------------------------------------------------------------------------
-- Deltas (docs/WIRE_FORMAT.md, section 5): a PUBLISHABLE_STRUCT read against a baseline, the
-- value and the node of the snapshot it was decoded from. A field sent is read and shown; a
-- field not sent keeps the baseline's value and shows a copy of its node, "(unchanged)"; a
-- dead-reckoned position not sent is extrapolated, "(extrapolated)".
-- ---------------------------------------------------------------------------------------------

--- The delta decoder of every PUBLISHABLE_STRUCT a snapshot carries, by IDL name:
--- `DELTA[name](r, parent, baseline value, baseline node, nested, elapsed seconds)`.
local DELTA = {}

--- A copy of the node `n` and its children under `parent`, at bit `at` (it covers no bits of
--- this packet).
local function copy_node(parent, n, at)
  local copy = { field = n.field, s = at, e = at, text = n.plain or n.text, kids = {} }
  for _, kid in ipairs(n.kids) do
    copy_node(copy, kid, at)
  end
  if parent then
    parent.kids[#parent.kids + 1] = copy
  end
  return copy
end

--- What a delta keeps of the baseline: a copy of its node `n`, marked "(unchanged)".
local function kept(parent, n, at)
  if n == nil then
    return
  end
  local copy = copy_node(parent, n, at)
  copy.plain = copy.text
  copy.text = copy.text .. " (unchanged)"
end

--- The child of `n` shown as `field` (nil when there is none).
local function kid_of(n, field)
  if n == nil then
    return nil
  end
  for _, kid in ipairs(n.kids) do
    if kid.field == field then
      return kid
    end
  end
  return nil
end

--- A field a delta did not send: the baseline's value `bv[name]`, its node copied from `bn`.
local function keep(r, parent, v, bv, bn, name, field)
  v[name] = bv[name]
  kept(parent, kid_of(bn, field), r.pos)
end

--- A PUBLISHABLE_STRUCT's delta under a node named after it, `elapsed` seconds after its
--- baseline.
local function delta_struct(r, parent, field, name, bv, bn, nested, elapsed)
  local n = node(parent, field, r.pos, r.pos, name)
  local value = DELTA[name](r, n, bv, bn, nested, elapsed)
  n.e = r.pos
  return value
end

-- Dead reckoning: the runtime's FixedPoint::nearest_step and dequantize and
-- DeadReckoningAxis::extrapolate, in the same floating-point operations. A quantizer is
-- { min, max, resolution, first, last }.

local function truncate(x)
  if x >= 0 then
    return math.floor(x)
  end
  return math.ceil(x)
end

local function clamp(x, lo, hi)
  return math.max(lo, math.min(x, hi))
end

local FAST_STEPS = 1099511627776.0
local FAST_MARGIN = 1.0 / 1024.0

--- The step nearest to `value` (FixedPoint::nearest_step).
local function nearest_step(fp, value)
  local min, resolution, first, last = fp[1], fp[3], fp[4], fp[5]
  local below = math.min(last - 1.0, FAST_STEPS)
  local guess = (value - min) * (1.0 / resolution)
  if guess >= 1.0 and guess <= below then
    local t = truncate(guess)
    local fraction = guess - t
    if math.abs(fraction - 0.5) > FAST_MARGIN then
      if fraction > 0.5 then
        t = t + 1
      end
      return clamp(t, first, last)
    end
  end
  local x = (value - min) / resolution
  if x ~= x or x <= 0 then
    return first
  elseif x >= last then
    return last
  end
  local t = truncate(x)
  if x - t >= 0.5 then
    t = t + 1
  end
  return clamp(t, first, last)
end

local function dequantize(fp, q)
  return math.min(fp[1] + q * fp[3], fp[2])
end

--- `x` rounded half away from zero (f64::round).
local function round_half_away(x)
  if math.abs(x) >= 4503599627370496.0 then
    return x
  end
  local t = truncate(x)
  local fraction = x - t
  if fraction >= 0.5 then
    return t + 1
  elseif fraction <= -0.5 then
    return t - 1
  end
  return t
end

--- A dead-reckoned position not sent: the baseline's `position` extrapolated with its
--- `velocity`, `elapsed` seconds on (DeadReckoningAxis::predict_from), shown "(extrapolated)".
local function extrapolated(r, parent, field, position, velocity, p, v, elapsed, decimals)
  local first, last = p[4], p[5]
  local q = clamp(nearest_step(p, position), first, last)
  local speed = dequantize(v, nearest_step(v, velocity))
  if speed ~= 0 then
    local displacement = round_half_away(speed * elapsed / p[3])
    if displacement == displacement and math.abs(displacement) ~= math.huge then
      q = q + displacement
      if q <= first then
        q = first
      elseif q >= last then
        q = last
      end
    end
  end
  local value = dequantize(p, q)
  local n = node(parent, field, r.pos, r.pos, string.format("%." .. decimals .. "f", value))
  n.plain = n.text
  n.text = n.text .. " (extrapolated)"
  return value
end

--- The bits of an integer in 0..max (`bits_required(0, max)`).
local function width_of(max)
  local w = 0
  while pow2(w) <= max do
    w = w + 1
  end
  return w
end

--- An index gap of a DELTA SEQUENCE: a 1 bit for 0, else a 0 bit and `gap - 1` in VLQ(3).
local function index_gap(r)
  if bool(r) then
    return 0
  end
  return vlq(r, 3, 64) + 1
end

--- A DELTA SEQUENCE against the baseline's elements `base` (their nodes under `base_node`):
--- its changed-bit, then the count (`length`), the listed elements' number and index gaps,
--- checked as the runtime's read_delta_sequence checks them, then each element: a listed one
--- read by `element(r, parent, baseline element, its node)` (nil for a new one), the others
--- kept.
local function delta_sequence(r, parent, field, base, base_node, length, min_bits, element)
  local start = r.pos
  if not bool(r) then
    kept(parent, base_node, start)
    return base
  end
  local head = r.pos
  local count = length(r)
  local listed_at = r.pos
  local listed_count = bits(r, width_of(count))
  if listed_count > count then
    out_of_range(listed_at, int_text(listed_count) .. " listed of " .. int_text(count))
  end
  local base_len = #base
  local new = math.max(count - base_len, 0)
  if listed_count * (min_bits + 1) > remaining(r) or new > listed_count then
    malformed("LengthOverBound", head, plural(listed_count, "listed element")
      .. " cannot fit the bits left or miss new ones")
  end
  local listed, next_index, listed_new = {}, 0, 0
  for _ = 1, listed_count do
    local at = r.pos
    local index = next_index + index_gap(r)
    if index >= count then
      out_of_range(at, "index " .. int_text(index) .. " of " .. int_text(count))
    end
    if index >= base_len then
      listed_new = listed_new + 1
    end
    listed[index] = true
    next_index = index + 1
  end
  if listed_new ~= new then
    out_of_range(head, "a new element is not listed")
  end
  local n = node(parent, field, start, r.pos, plural(count, "element"))
  local base_kids = {}
  if base_node then
    base_kids = base_node.kids
  end
  local values = {}
  for i = 1, count do
    if listed[i - 1] then
      values[i] = element(r, n, base[i], base_kids[i])
    else
      values[i] = base[i]
      kept(n, base_kids[i], r.pos)
    end
  end
  n.e = r.pos
  return values
end

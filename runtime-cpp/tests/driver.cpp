// Differential-test driver for the idlc C++ runtime (runtime/tests/cpp_runtime.rs runs it).
//
// Reads one case per line on stdin and prints one result line per case on stdout; the Rust test
// computes the same lines with the Rust runtime and compares them. The protocol:
//
//   W <bit|byte> <ops...>           write the ops; print `OK <hex>` or `ERR <Kind> <bit> <hex>`
//                                   (hex: finish() after the last op or the failed one)
//   R <bit|byte> <hex> <ops...>     read the ops from the bytes; print `OK <values...>` or
//                                   `ERR <Kind> <bit> <values read before>`
//   Q <min> <max> <res> <lo> <hi> <values...>   a quantizer: `N`, or `V <first> <steps> <bits>`
//                                   then per value `<quantize>/<nearest>/<dequantize bits>`
//   D <pmin> <pmax> <pres> <vmin> <vmax> <vres> <pstep> <vstep> <elapsed> <true> <dev>
//                                   dead reckoning: `<extrapolate> <predict bits> <needs_update>
//                                   <predict_from(true, true) bits> <extrapolate_from(true, true)>`
//   P <Kind> <bit> <steps...>       an error path: steps `f=Name.field` (`~` for a space) or
//                                   `i=3`; prints `<field>|<to_string()>`
//   X <f64 bits...>                 extend.rs helpers on reals and f32s (see run_x)
//   F <bit|byte> <tiers> <first> <last> <wraps> <skip> <now> <reference>
//                                   a Diff (tiers `4/8`, `-` for none): `<difference> <tier|->
//                                   <check_escaped> W <write> R <read back>`; the write is
//                                   `skip` zero bits, then `write` (and on the escape `now` in
//                                   64 bits): `OK <carried> <hex>` or `ERR <Kind> <bit> <hex>`
//   G <bit|byte> <tiers> <first> <last> <wraps> <skip> <reference> <hex>
//                                   a Diff's read of the bytes after `skip` bits: `S <step>
//                                   <bits read>`, `E <escaped value> <bits read>` or `ERR ...`
//   I <bit|byte> <tiers> <first> <last> <wraps> <skip> <origin> <type> <now> <reference>
//                                   a Diff of integers (with_origin): `<step of now|->
//                                   <reference step> <its value> <check_escaped_int> W <write_int>
//                                   R <read_int back into type>`, the write and read as in `F`
//                                   (on the escape the step of `now` in 64 bits)
//   J <bit|byte> <tiers> <first> <last> <wraps> <skip> <origin> <type> <reference> <hex>
//                                   read_int of the bytes, as `G`
//   K <bit|byte> <n> <tiers> <q> <ref>
//                                   SMALLEST_THREE(n) of the quaternion q (`x/y/z/w`, f32 bit
//                                   patterns in hex) against the baseline ref (or `-`):
//                                   `<code|ERR Kind> W <write> D <write_diff> R <read of W> RD
//                                   <read_diff of D>`; a write `OK <hex>` or `ERR <Kind> <bit>`,
//                                   a read `OK <x/y/z/w> <bits read>` or `ERR <Kind> <bit>`
//   L <bit|byte> <n> <tiers> <ref> <hex>
//                                   the read and the read_diff (against ref) of the bytes
//   V                               the runtime version
//
// Floats travel as hex bit patterns, so NaN payloads and -0.0 compare exactly. An op is
// `name:arg,arg,...`; `{k ... }` is an extension written with write_extension and read with
// read_extension by a reader that reads only its first k ops; `[k ... ]` the same read with
// enter_extension / leave_extension.
#include <idlc/idlc.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using idlc::Int128;
using idlc::Status;

/// One op of a case, or an extension holding ops.
struct Op {
    std::string name;
    std::vector<std::string> args;
    char ext = 0;           // '{' or '[' for an extension
    std::size_t read_k = 0; // ops an (older) reader reads of it
    std::vector<Op> inner;
};

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

std::uint64_t u64(const std::string& s) {
    return std::strtoull(s.c_str(), nullptr, 10);
}
std::int64_t i64(const std::string& s) {
    return std::strtoll(s.c_str(), nullptr, 10);
}
std::uint64_t hex64(const std::string& s) {
    return std::strtoull(s.c_str(), nullptr, 16);
}
double f64(const std::string& s) {
    return idlc::f64_from_bits(hex64(s));
}
Int128 wide(const std::string& s) {
    return s[0] == '-' ? Int128(i64(s)) : Int128(u64(s));
}
idlc::Bound bound(const std::string& s) {
    return s == "-" ? idlc::Bound{} : idlc::Bound{u64(s)};
}

std::vector<std::uint8_t> unhex(const std::string& s) {
    std::vector<std::uint8_t> out;
    if (s == "-") {
        return out;
    }
    for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
        out.push_back(static_cast<std::uint8_t>(std::strtoul(s.substr(i, 2).c_str(), nullptr, 16)));
    }
    return out;
}

std::string hex(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return "-";
    }
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < size; ++i) {
        out += digits[data[i] >> 4];
        out += digits[data[i] & 15];
    }
    return out;
}

std::string hex_u64(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
    return buf;
}

std::string dec(std::uint64_t v) {
    return std::to_string(v);
}
std::string dec_signed(std::int64_t v) {
    return std::to_string(v);
}

/// Parses ops from tokens[i..] up to a closing `}` / `]` or the end.
std::vector<Op> parse_ops(const std::vector<std::string>& tokens, std::size_t& i) {
    std::vector<Op> ops;
    while (i < tokens.size()) {
        const std::string& t = tokens[i++];
        if (t == "}" || t == "]") {
            return ops;
        }
        Op op;
        if (t[0] == '{' || t[0] == '[') {
            op.ext = t[0];
            op.read_k = static_cast<std::size_t>(u64(t.substr(1)));
            op.inner = parse_ops(tokens, i);
        } else {
            std::size_t colon = t.find(':');
            op.name = t.substr(0, colon);
            if (colon != std::string::npos) {
                op.args = split(t.substr(colon + 1), ',');
            }
        }
        ops.push_back(std::move(op));
    }
    return ops;
}

std::vector<idlc::HuffmanCode> codes_of(const std::string& s) {
    std::vector<idlc::HuffmanCode> codes;
    for (const std::string& pair : split(s, '/')) {
        std::vector<std::string> p = split(pair, '.');
        codes.push_back(idlc::HuffmanCode{u64(p[0]), static_cast<std::uint32_t>(u64(p[1]))});
    }
    return codes;
}

idlc::VlqMode mode_of(const std::string& s) {
    return s == "p"   ? idlc::VlqMode::Plain
           : s == "z" ? idlc::VlqMode::ZigZag
                      : idlc::VlqMode::Offset;
}

/// Calls `f(T{})` with the C++ type named `name`.
template <class F>
Status with_type(const std::string& name, F&& f) {
    if (name == "u8") return f(std::uint8_t{});
    if (name == "i16") return f(std::int16_t{});
    if (name == "u32") return f(std::uint32_t{});
    if (name == "i64") return f(std::int64_t{});
    return f(std::uint64_t{});
}

/// The decimal text of an integer of any type.
template <class T>
std::string int_text(T v) {
    return std::is_signed<T>::value ? dec_signed(static_cast<std::int64_t>(v))
                                    : dec(static_cast<std::uint64_t>(v));
}

/// A value of type T from its decimal text (the generator keeps it within T).
template <class T>
T int_of(const std::string& s) {
    return std::is_signed<T>::value ? static_cast<T>(i64(s)) : static_cast<T>(u64(s));
}

idlc::FixedPoint quantizer(const std::vector<std::string>& a) {
    return idlc::FixedPoint::make_with_ends(f64(a[0]), f64(a[1]), f64(a[2]), a[3] == "1",
                                            a[4] == "1");
}

template <class W>
Status write_ops(W& w, const std::vector<Op>& ops);

template <class W>
Status write_op(W& w, const Op& op) {
    const std::vector<std::string>& a = op.args;
    if (op.ext != 0) {
        return w.write_extension([&](W& inner) { return write_ops(inner, op.inner); });
    }
    const std::string& n = op.name;
    if (n == "bits") return w.write_bits(u64(a[1]), static_cast<std::uint32_t>(u64(a[0])));
    if (n == "bool") return w.write_bool(a[0] == "1");
    if (n == "noext") return w.write_bool(false);
    if (n == "fence") return w.write_bool(a[0] == "1");
    if (n == "vlq") return w.write_vlq(u64(a[2]), static_cast<std::uint32_t>(u64(a[0])));
    if (n == "vlqs")
        return idlc::write_vlq_signed(w, i64(a[1]), static_cast<std::uint32_t>(u64(a[0])));
    if (n == "ur") return idlc::write_uint_ranged(w, u64(a[2]), u64(a[0]), u64(a[1]));
    if (n == "ir") return idlc::write_int_ranged(w, i64(a[2]), i64(a[0]), i64(a[1]));
    if (n == "vr") {
        return idlc::write_vlq_ranged(w, i64(a[3]), i64(a[0]), i64(a[1]),
                                      static_cast<std::uint32_t>(u64(a[2])));
    }
    if (n == "f32")
        return idlc::write_f32(w, idlc::f32_from_bits(static_cast<std::uint32_t>(hex64(a[0]))));
    if (n == "f64") return idlc::write_f64(w, f64(a[0]));
    if (n == "fp") {
        idlc::FixedPoint fp = quantizer(a);
        if (!fp.valid()) {
            return w.error(idlc::ErrorKind::InvalidArgument);
        }
        return idlc::write_quantized(w, fp, f64(a[5]));
    }
    if (n == "fpr") return idlc::write_fixed_point(w, f64(a[3]), f64(a[0]), f64(a[1]), f64(a[2]));
    if (n == "en") return idlc::write_enum_index(w, u64(a[1]), u64(a[0]));
    if (n == "hf") {
        std::vector<idlc::HuffmanCode> codes = codes_of(a[1]);
        return idlc::write_huffman(w, i64(a[0]), codes.data(), codes.size());
    }
    if (n == "cnt") return idlc::write_count(w, u64(a[2]), bound(a[0]));
    if (n == "by") {
        std::vector<std::uint8_t> b = unhex(a[1]);
        return idlc::write_bytes(w, b.data(), b.size(), bound(a[0]));
    }
    if (n == "st") {
        std::vector<std::uint8_t> b = unhex(a[1]);
        return idlc::write_str(w, std::string(b.begin(), b.end()), bound(a[0]));
    }
    if (n == "as") {
        std::vector<std::uint8_t> b = unhex(a[0]);
        return idlc::write_aligned_bytes(w, b.data(), b.size());
    }
    if (n == "al") return w.align();
    if (n == "ck") return idlc::write_check(w);
    if (n == "rg") {
        return with_type(a[0], [&](auto t) {
            using T = decltype(t);
            return idlc::write_ranged(w, int_of<T>(a[4]), wide(a[1]), wide(a[2]),
                                      static_cast<std::uint32_t>(u64(a[3])));
        });
    }
    if (n == "fx") {
        return with_type(a[0], [&](auto t) {
            using T = decltype(t);
            return idlc::write_fixed(w, int_of<T>(a[5]), wide(a[1]), wide(a[2]),
                                     static_cast<std::uint32_t>(u64(a[3])), a[4] == "1");
        });
    }
    if (n == "vi") {
        return with_type(a[0], [&](auto t) {
            using T = decltype(t);
            return idlc::write_vlq_int(w, int_of<T>(a[6]), mode_of(a[1]), wide(a[2]), wide(a[3]),
                                       static_cast<std::uint32_t>(u64(a[4])));
        });
    }
    if (n == "wb")
        return idlc::write_wide_bool(w, a[1] == "1", static_cast<std::uint32_t>(u64(a[0])));
    if (n == "gap") return idlc::write_index_gap(w, u64(a[0]));
    if (n == "bl") {
        return idlc::write_bounded_length(w, u64(a[2]), u64(a[0]),
                                          static_cast<std::uint32_t>(u64(a[1])));
    }
    if (n == "f32r") {
        float single = 0.0f;
        IDLC_TRY(idlc::check_numeric_f32(w, f64(a[4]), f64(a[0]), f64(a[1]), a[2] == "1",
                                         a[3] == "1", single));
        return idlc::write_f32(w, single);
    }
    if (n == "f64r") {
        IDLC_TRY(idlc::check_numeric(w, f64(a[4]), f64(a[0]), f64(a[1]), a[2] == "1", a[3] == "1"));
        return idlc::write_f64(w, f64(a[4]));
    }
    if (n == "bb") {
        std::uint64_t word = u64(a[1]);
        std::uint32_t count = static_cast<std::uint32_t>(u64(a[0]));
        for (std::uint32_t i = 0; i < count; ++i) {
            IDLC_TRY(w.write_bool(i < 64 && ((word >> i) & 1) != 0));
        }
        return Status{};
    }
    if (n == "fin") {
        (void)w.finish();
        return Status{};
    }
    if (n == "end") return Status{};
    std::fprintf(stderr, "unknown op %s\n", n.c_str());
    std::exit(2);
}

template <class W>
Status write_ops(W& w, const std::vector<Op>& ops) {
    for (const Op& op : ops) {
        IDLC_TRY(write_op(w, op));
    }
    return Status{};
}

template <class R>
Status read_ops(R& r, const std::vector<Op>& ops, std::size_t limit, std::string& out);

template <class R>
Status read_op(R& r, const Op& op, std::string& out) {
    const std::vector<std::string>& a = op.args;
    auto put = [&](const std::string& s) {
        out += ' ';
        out += s;
    };
    if (op.ext == '{') {
        bool present = false;
        std::string inner_out;
        IDLC_TRY(r.read_extension(
            present, [&](R& inner) { return read_ops(inner, op.inner, op.read_k, inner_out); }));
        put(present ? "{" + inner_out + " }" : "N");
        return Status{};
    }
    if (op.ext == '[') {
        bool present = false;
        std::uint64_t outer = 0;
        IDLC_TRY(r.enter_extension(present, outer));
        if (!present) {
            put("N");
            return Status{};
        }
        std::string inner_out;
        Status s = read_ops(r, op.inner, op.read_k, inner_out);
        out += " [" + inner_out;
        IDLC_TRY(std::move(s));
        r.leave_extension(outer);
        put("]");
        return Status{};
    }
    const std::string& n = op.name;
    std::uint64_t u = 0;
    std::int64_t s = 0;
    bool b = false;
    double d = 0.0;
    float f = 0.0f;
    if (n == "bits") {
        IDLC_TRY(r.read_bits(static_cast<std::uint32_t>(u64(a[0])), u));
        put(dec(u));
    } else if (n == "bool") {
        IDLC_TRY(r.read_bool(b));
        put(b ? "1" : "0");
    } else if (n == "noext") {
        bool present = false;
        IDLC_TRY(r.read_extension(present, [](R&) { return Status{}; }));
        put(present ? "{ }" : "N");
    } else if (n == "fence") {
        IDLC_TRY(idlc::read_fence_present(r, b));
        put(b ? "1" : "0");
    } else if (n == "vlq") {
        IDLC_TRY(r.read_vlq_width(static_cast<std::uint32_t>(u64(a[0])),
                                  static_cast<std::uint32_t>(u64(a[1])), u));
        put(dec(u));
    } else if (n == "vlqs") {
        IDLC_TRY(idlc::read_vlq_signed(r, static_cast<std::uint32_t>(u64(a[0])), s));
        put(dec_signed(s));
    } else if (n == "ur") {
        IDLC_TRY(idlc::read_uint_ranged(r, u64(a[0]), u64(a[1]), u));
        put(dec(u));
    } else if (n == "ir") {
        IDLC_TRY(idlc::read_int_ranged(r, i64(a[0]), i64(a[1]), s));
        put(dec_signed(s));
    } else if (n == "vr") {
        IDLC_TRY(idlc::read_vlq_ranged(r, i64(a[0]), i64(a[1]),
                                       static_cast<std::uint32_t>(u64(a[2])), s));
        put(dec_signed(s));
    } else if (n == "f32") {
        IDLC_TRY(idlc::read_f32(r, f));
        put(hex_u64(idlc::f32_to_bits(f)));
    } else if (n == "f64") {
        IDLC_TRY(idlc::read_f64(r, d));
        put(hex_u64(idlc::f64_to_bits(d)));
    } else if (n == "fp") {
        idlc::FixedPoint fp = quantizer(a);
        if (!fp.valid()) {
            return r.error(idlc::ErrorKind::InvalidArgument);
        }
        IDLC_TRY(idlc::read_dequantized(r, fp, d));
        put(hex_u64(idlc::f64_to_bits(d)));
    } else if (n == "fpr") {
        IDLC_TRY(idlc::read_fixed_point(r, f64(a[0]), f64(a[1]), f64(a[2]), d));
        put(hex_u64(idlc::f64_to_bits(d)));
    } else if (n == "en") {
        IDLC_TRY(idlc::read_enum_index(r, u64(a[0]), u));
        put(dec(u));
    } else if (n == "hf") {
        std::vector<idlc::HuffmanCode> codes = codes_of(a[1]);
        IDLC_TRY(idlc::read_huffman(r, codes.data(), codes.size(), u));
        put(dec(u));
    } else if (n == "cnt") {
        std::size_t count = 0;
        IDLC_TRY(idlc::read_count(r, bound(a[0]), u64(a[1]), count));
        put(dec(count));
    } else if (n == "by") {
        const std::uint8_t* data = nullptr;
        std::size_t size = 0;
        IDLC_TRY(idlc::read_bytes(r, bound(a[0]), data, size));
        put(hex(data, size));
    } else if (n == "st") {
        std::string_view text;
        IDLC_TRY(idlc::read_str(r, bound(a[0]), text));
        put(hex(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
    } else if (n == "as") {
        std::string_view text;
        IDLC_TRY(idlc::read_aligned_str(r, unhex(a[0]).size(), text));
        put(hex(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
    } else if (n == "al") {
        IDLC_TRY(r.align());
        put(".");
    } else if (n == "ck") {
        IDLC_TRY(idlc::read_check(r));
        put(".");
    } else if (n == "rg" || n == "fx" || n == "vi") {
        IDLC_TRY(with_type(a[0], [&](auto t) {
            using T = decltype(t);
            T v{};
            if (n == "rg") {
                IDLC_TRY(idlc::read_ranged(r, wide(a[1]), wide(a[2]),
                                           static_cast<std::uint32_t>(u64(a[3])), v));
            } else if (n == "fx") {
                IDLC_TRY(idlc::read_fixed(r, wide(a[1]), wide(a[2]),
                                          static_cast<std::uint32_t>(u64(a[3])), a[4] == "1", v));
            } else {
                IDLC_TRY(idlc::read_vlq_int(r, mode_of(a[1]), wide(a[2]), wide(a[3]),
                                            static_cast<std::uint32_t>(u64(a[4])),
                                            static_cast<std::uint32_t>(u64(a[5])), v));
            }
            put(int_text(v));
            return Status{};
        }));
    } else if (n == "wb") {
        IDLC_TRY(idlc::read_wide_bool(r, static_cast<std::uint32_t>(u64(a[0])), b));
        put(b ? "1" : "0");
    } else if (n == "gap") {
        IDLC_TRY(idlc::read_index_gap(r, u));
        put(dec(u));
    } else if (n == "bl") {
        IDLC_TRY(idlc::read_bounded_length(r, u64(a[0]), static_cast<std::uint32_t>(u64(a[1])), u));
        put(dec(u));
    } else if (n == "f32r") {
        IDLC_TRY(
            idlc::read_f32_real_in_range(r, f64(a[0]), f64(a[1]), a[2] == "1", a[3] == "1", d));
        put(hex_u64(idlc::f64_to_bits(d)));
    } else if (n == "f64r") {
        IDLC_TRY(idlc::read_f64_in_range(r, f64(a[0]), f64(a[1]), a[2] == "1", a[3] == "1", d));
        put(hex_u64(idlc::f64_to_bits(d)));
    } else if (n == "bb") {
        IDLC_TRY(r.read_bool_bits(static_cast<std::uint32_t>(u64(a[0])), u));
        put(dec(u));
    } else if (n == "fin") {
        IDLC_TRY(r.finish());
        put(".");
    } else if (n == "end") {
        IDLC_TRY(r.expect_end());
        put(".");
    } else {
        std::fprintf(stderr, "unknown op %s\n", n.c_str());
        std::exit(2);
    }
    return Status{};
}

template <class R>
Status read_ops(R& r, const std::vector<Op>& ops, std::size_t limit, std::string& out) {
    for (std::size_t i = 0; i < ops.size() && i < limit; ++i) {
        IDLC_TRY(read_op(r, ops[i], out));
    }
    return Status{};
}

std::string error_text(const Status& s) {
    return std::string("ERR ") + idlc::error_kind_name(s.kind) + " " + dec(s.bit_offset);
}

template <class W>
std::string run_write(const std::vector<Op>& ops) {
    W w;
    Status s = write_ops(w, ops);
    const std::vector<std::uint8_t>& bytes = w.finish();
    std::string h = hex(bytes.data(), bytes.size());
    return s.ok() ? "OK " + h : error_text(s) + " " + h;
}

template <class R>
std::string run_read(const std::vector<std::uint8_t>& bytes, const std::vector<Op>& ops) {
    R r(bytes.data(), bytes.size());
    std::string values;
    Status s = read_ops(r, ops, ops.size(), values);
    return (s.ok() ? std::string("OK") : error_text(s)) + values;
}

std::string run_quantizer(const std::vector<std::string>& t) {
    std::vector<std::string> a(t.begin() + 1, t.begin() + 6);
    idlc::FixedPoint fp = quantizer(a);
    if (!fp.valid()) {
        return "N";
    }
    std::string out = "V " + dec(fp.first()) + " " + dec(fp.steps()) + " " + dec(fp.bits());
    for (std::size_t i = 6; i < t.size(); ++i) {
        double v = f64(t[i]);
        std::uint64_t q = 0;
        idlc::ErrorKind kind = fp.quantize(v, q);
        std::uint64_t near = fp.nearest_step(v);
        out +=
            " " + (kind == idlc::ErrorKind::Ok ? dec(q) : std::string(idlc::error_kind_name(kind)));
        out += "/" + dec(near) + "/" +
               hex_u64(idlc::f64_to_bits(fp.dequantize(kind == idlc::ErrorKind::Ok ? q : near)));
    }
    return out;
}

std::string run_dead_reckoning(const std::vector<std::string>& t) {
    idlc::DeadReckoningAxis axis{idlc::FixedPoint::make(f64(t[1]), f64(t[2]), f64(t[3])),
                                 idlc::FixedPoint::make(f64(t[4]), f64(t[5]), f64(t[6]))};
    if (!axis.position.valid() || !axis.velocity.valid()) {
        return "N";
    }
    idlc::DeltaContext ctx;
    ctx.elapsed = f64(t[9]);
    std::uint64_t p = u64(t[7]), v = u64(t[8]);
    return dec(axis.extrapolate(p, v, ctx)) + " " +
           hex_u64(idlc::f64_to_bits(axis.predict(p, v, ctx))) + " " +
           (axis.needs_update(f64(t[10]), p, v, ctx, f64(t[11])) ? "1" : "0") + " " +
           hex_u64(idlc::f64_to_bits(axis.predict_from(f64(t[10]), f64(t[10]), ctx))) + " " +
           dec(axis.extrapolate_from(f64(t[10]), f64(t[10]), ctx));
}

std::string run_path(const std::vector<std::string>& t) {
    Status s;
    for (int k = 0; k <= static_cast<int>(idlc::ErrorKind::NotANumber); ++k) {
        if (t[1] == idlc::error_kind_name(static_cast<idlc::ErrorKind>(k))) {
            s = Status::error(static_cast<idlc::ErrorKind>(k), u64(t[2]));
        }
    }
    for (std::size_t i = 3; i < t.size(); ++i) {
        if (t[i][0] == 'f') {
            std::string name = t[i].substr(2);
            for (char& c : name) {
                c = c == '~' ? ' ' : c;
            }
            s.in_field(name);
        } else {
            s.at_index(static_cast<std::size_t>(u64(t[i].substr(2))));
        }
    }
    return s.field + "|" + s.to_string();
}

/// extend.rs: `X <v f64> <min> <max> <lo> <hi> <int64 value> <low> <width>` prints
/// saturate_real, saturate_real_f32 of (float)v, nearest_f32_inside, low_bits, bit_slice and
/// with_bit_slice of an int32.
std::string run_extend(const std::vector<std::string>& t) {
    double v = f64(t[1]), min = f64(t[2]), max = f64(t[3]);
    bool lo = t[4] == "1", hi = t[5] == "1";
    std::int32_t value = static_cast<std::int32_t>(i64(t[6]));
    std::uint32_t low = static_cast<std::uint32_t>(u64(t[7])),
                  width = static_cast<std::uint32_t>(u64(t[8]));
    std::string out = hex_u64(idlc::f64_to_bits(idlc::saturate_real(v, min, max, lo, hi)));
    out += " " + hex_u64(idlc::f32_to_bits(
                     idlc::saturate_real_f32(static_cast<float>(v), min, max, lo, hi)));
    out += " " + hex_u64(idlc::f32_to_bits(idlc::nearest_f32_inside(v, min, max, lo, hi)));
    out += " " + dec_signed(idlc::low_bits(value, width));
    out += " " + dec(idlc::bit_slice(value, low, width));
    idlc::BitReader r(nullptr, 0);
    std::int32_t joined = 0;
    Status s = idlc::with_bit_slice(r, value, idlc::bit_slice(value, low, width) + 1, low, joined);
    out += " " + (s.ok() ? dec_signed(joined) : std::string(idlc::error_kind_name(s.kind)));
    return out;
}

constexpr std::uint32_t ANGLE_TIERS[] = {6};
/// A Diff as generated code declares one, at namespace scope and usable in constant expressions.
constexpr idlc::Diff ANGLE{ANGLE_TIERS, 0, 35999, true};
static_assert(ANGLE.difference(1, 35999) == Int128(2) && ANGLE.difference(35999, 1) == Int128(-2),
              "the shortest way around");
static_assert(ANGLE.tier_of(Int128(-32)) == std::optional<std::size_t>(0) &&
                  !ANGLE.tier_of(Int128(32)).has_value(),
              "zigzag(-32) = 63 takes 6 bits, zigzag(32) = 64 takes 7");

/// An integer Diff (INT[-100, 100]), as generated code declares one.
constexpr idlc::Diff HP = idlc::Diff{ANGLE_TIERS, 0, 200, false}.with_origin(-100);
static_assert(HP.reference(Int128(-99)) == 1 && HP.reference(Int128(500)) == 200 &&
                  HP.value(1) == Int128(-99),
              "steps of an integer: v - origin, a reference clamped into them");

/// The decimal text of a difference (|d| < 2^64).
std::string wide_text(Int128 v) {
    return v.negative() ? "-" + dec((Int128() - v).lo) : dec(v.lo);
}

/// The Diff of a case's `<tiers> <first> <last> <wraps>` at t[2..6]; `tiers` holds its tiers.
idlc::Diff diff_of(const std::vector<std::string>& t, std::vector<std::uint32_t>& tiers) {
    if (t[2] != "-") {
        for (const std::string& bits : split(t[2], '/')) {
            tiers.push_back(static_cast<std::uint32_t>(u64(bits)));
        }
    }
    return idlc::Diff(tiers.data(), tiers.size(), u64(t[3]), u64(t[4]), t[5] == "1");
}

/// What a Diff reads from `bytes` after `skip` bits; on the escape the value in 64 bits.
template <class R>
std::string diff_read(const idlc::Diff& diff, const std::vector<std::uint8_t>& bytes,
                      std::uint32_t skip, std::uint64_t reference) {
    R r(bytes.data(), bytes.size());
    std::string out;
    Status s = [&]() {
        std::uint64_t ignored = 0;
        IDLC_TRY(r.read_bits(skip, ignored));
        std::uint64_t start = r.bits_read();
        bool carried = false;
        std::uint64_t step = 0;
        IDLC_TRY(diff.read(r, reference, carried, step));
        if (carried) {
            out = "S " + dec(step);
            return Status{};
        }
        std::uint64_t value = 0;
        IDLC_TRY(r.read_bits(64, value));
        IDLC_TRY(diff.check_escaped(value, reference, start));
        out = "E " + dec(value);
        return Status{};
    }();
    return s.ok() ? out + " " + dec(r.bits_read()) : error_text(s);
}

/// An `F` case: a Diff's difference, tier, check and write, and the read of what it wrote.
template <class W, class R>
std::string run_diff_write(const std::vector<std::string>& t) {
    std::vector<std::uint32_t> tiers;
    idlc::Diff diff = diff_of(t, tiers);
    std::uint32_t skip = static_cast<std::uint32_t>(u64(t[6]));
    std::uint64_t now = u64(t[7]), reference = u64(t[8]);
    Int128 d = diff.difference(now, reference);
    std::optional<std::size_t> tier = diff.tier_of(d);
    Status check = diff.check_escaped(now, reference, skip);
    std::string out = wide_text(d) + " " + (tier.has_value() ? dec(*tier) : "-") + " " +
                      (check.ok() ? "." : error_text(check));
    W w;
    bool carried = false;
    Status s = [&]() {
        IDLC_TRY(w.write_bits(0, skip));
        IDLC_TRY(diff.write(w, now, reference, carried));
        return carried ? Status{} : w.write_bits(now, 64);
    }();
    const std::vector<std::uint8_t>& bytes = w.finish();
    std::string h = hex(bytes.data(), bytes.size());
    out += " W " +
           (s.ok() ? std::string("OK ") + (carried ? "1 " : "0 ") + h : error_text(s) + " " + h);
    return out + " R " + diff_read<R>(diff, bytes, skip, reference);
}

/// A `G` case: a Diff's read of given bytes.
template <class R>
std::string run_diff_read(const std::vector<std::string>& t) {
    std::vector<std::uint32_t> tiers;
    idlc::Diff diff = diff_of(t, tiers);
    return diff_read<R>(diff, unhex(t[8]), static_cast<std::uint32_t>(u64(t[6])), u64(t[7]));
}

/// The decimal text of any Int128.
std::string wide_dec(Int128 v) {
    bool negative = v.negative();
    Int128 magnitude = negative ? Int128() - v : v; // i128::MIN stays its own magnitude
    std::uint64_t limbs[4] = {magnitude.hi >> 32, magnitude.hi & 0xffffffffu, magnitude.lo >> 32,
                              magnitude.lo & 0xffffffffu};
    std::string digits;
    do {
        std::uint64_t rem = 0;
        for (std::uint64_t& limb : limbs) {
            std::uint64_t cur = (rem << 32) | limb;
            limb = cur / 10;
            rem = cur % 10;
        }
        digits.insert(digits.begin(), static_cast<char>('0' + rem));
    } while ((limbs[0] | limbs[1] | limbs[2] | limbs[3]) != 0);
    return negative ? "-" + digits : digits;
}

/// The integer Diff of a case: `diff_of` with the origin at t[7].
idlc::Diff int_diff_of(const std::vector<std::string>& t, std::vector<std::uint32_t>& tiers) {
    return diff_of(t, tiers).with_origin(wide(t[7]));
}

/// What an integer Diff reads into a `T` from `bytes` after `skip` bits; on the escape the step
/// in 64 bits, checked.
template <class R, class T>
std::string int_read(const idlc::Diff& diff, const std::vector<std::uint8_t>& bytes,
                     std::uint32_t skip, Int128 reference) {
    R r(bytes.data(), bytes.size());
    std::string out;
    Status s = [&]() {
        std::uint64_t ignored = 0;
        IDLC_TRY(r.read_bits(skip, ignored));
        std::uint64_t start = r.bits_read();
        bool carried = false;
        T value{};
        IDLC_TRY(diff.read_int(r, reference, carried, value));
        if (carried) {
            out = "S " + int_text(value);
            return Status{};
        }
        std::uint64_t step = 0;
        IDLC_TRY(r.read_bits(64, step));
        IDLC_TRY(diff.check_escaped_int(diff.value(step), reference, start));
        out = "E " + wide_dec(diff.value(step));
        return Status{};
    }();
    return s.ok() ? out + " " + dec(r.bits_read()) : error_text(s);
}

/// An `I` case: an integer Diff's steps, check and write_int, and the read_int of what it wrote.
template <class W, class R>
std::string run_int_write(const std::vector<std::string>& t) {
    std::vector<std::uint32_t> tiers;
    idlc::Diff diff = int_diff_of(t, tiers);
    std::uint32_t skip = static_cast<std::uint32_t>(u64(t[6]));
    Int128 now = wide(t[9]), reference = wide(t[10]);
    std::uint64_t step = 0;
    bool valid = diff.step(now, step);
    std::uint64_t base = diff.reference(reference);
    Status check = diff.check_escaped_int(now, reference, skip);
    std::string out = (valid ? dec(step) : "-") + " " + dec(base) + " " +
                      wide_dec(diff.value(base)) + " " + (check.ok() ? "." : error_text(check));
    W w;
    bool carried = false;
    Status s = [&]() {
        IDLC_TRY(w.write_bits(0, skip));
        IDLC_TRY(diff.write_int(w, now, reference, carried));
        return carried ? Status{} : w.write_bits(step, 64);
    }();
    const std::vector<std::uint8_t>& bytes = w.finish();
    std::string h = hex(bytes.data(), bytes.size());
    out += " W " +
           (s.ok() ? std::string("OK ") + (carried ? "1 " : "0 ") + h : error_text(s) + " " + h);
    std::string read;
    (void)with_type(t[8], [&](auto type) {
        read = int_read<R, decltype(type)>(diff, bytes, skip, reference);
        return Status{};
    });
    return out + " R " + read;
}

/// A `J` case: an integer Diff's read_int of given bytes.
template <class R>
std::string run_int_read(const std::vector<std::string>& t) {
    std::vector<std::uint32_t> tiers;
    idlc::Diff diff = int_diff_of(t, tiers);
    std::string read;
    (void)with_type(t[8], [&](auto type) {
        read = int_read<R, decltype(type)>(diff, unhex(t[10]),
                                           static_cast<std::uint32_t>(u64(t[6])), wide(t[9]));
        return Status{};
    });
    return read;
}

/// A quaternion of `x/y/z/w` f32 bit patterns in hex.
idlc::Quaternion quaternion_of(const std::string& s) {
    std::vector<std::string> c = split(s, '/');
    auto f = [&](std::size_t i) { return idlc::f32_from_bits(static_cast<std::uint32_t>(hex64(c[i]))); };
    return idlc::Quaternion{f(0), f(1), f(2), f(3)};
}

std::string quaternion_text(const idlc::Quaternion& q) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%08x/%08x/%08x/%08x", idlc::f32_to_bits(q.x),
                  idlc::f32_to_bits(q.y), idlc::f32_to_bits(q.z), idlc::f32_to_bits(q.w));
    return buf;
}

/// The read (`diff` false) or the read_diff of `bytes`.
template <class R>
std::string quaternion_read(const idlc::SmallestThree& rule, const idlc::Diff& diff, bool has_ref,
                            const idlc::SmallestThreeCode& ref, const std::vector<std::uint8_t>& bytes,
                            bool with_diff) {
    R r(bytes.data(), bytes.size());
    idlc::Quaternion q;
    Status s = with_diff ? rule.read_diff(r, diff, has_ref, ref, q) : rule.read(r, q);
    return s.ok() ? "OK " + quaternion_text(q) + " " + dec(r.bits_read()) : error_text(s);
}

/// The rule, tiers, DIFF and reference of a `K` or `L` case (ref at t[ref_at]).
struct QuaternionCase {
    idlc::SmallestThree rule{2};
    std::vector<std::uint32_t> tiers;
    bool has_ref = false;
    idlc::SmallestThreeCode ref;

    QuaternionCase(const std::vector<std::string>& t, std::size_t ref_at)
        : rule(static_cast<std::uint32_t>(u64(t[2]))) {
        for (const std::string& bits : split(t[3], '/')) {
            tiers.push_back(static_cast<std::uint32_t>(u64(bits)));
        }
        has_ref = t[ref_at] != "-" && rule.reference(quaternion_of(t[ref_at]), ref);
    }

    idlc::Diff diff() const {
        return idlc::Diff(tiers.data(), tiers.size(), 0, rule.last_step(), false);
    }
};

template <class W, class R>
std::string run_quaternion_write(const std::vector<std::string>& t) {
    QuaternionCase c(t, 5);
    idlc::Quaternion q = quaternion_of(t[4]);
    idlc::SmallestThreeCode code;
    idlc::ErrorKind kind = c.rule.encode(q, code);
    std::string out = kind == idlc::ErrorKind::Ok
                          ? dec(code.index) + "/" + dec(code.steps[0]) + "/" + dec(code.steps[1]) +
                                "/" + dec(code.steps[2])
                          : std::string("ERR ") + idlc::error_kind_name(kind);
    W w;
    Status s = c.rule.write(w, q);
    std::vector<std::uint8_t> full = w.finish();
    out += " W " + (s.ok() ? "OK " + hex(full.data(), full.size()) : error_text(s));
    W wd;
    idlc::Diff diff = c.diff();
    Status sd = c.rule.write_diff(wd, diff, q, c.has_ref, c.ref);
    std::vector<std::uint8_t> delta = wd.finish();
    out += " D " + (sd.ok() ? "OK " + hex(delta.data(), delta.size()) : error_text(sd));
    out += " R " + quaternion_read<R>(c.rule, diff, c.has_ref, c.ref, full, false);
    return out + " RD " + quaternion_read<R>(c.rule, diff, c.has_ref, c.ref, delta, true);
}

template <class R>
std::string run_quaternion_read(const std::vector<std::string>& t) {
    QuaternionCase c(t, 4);
    std::vector<std::uint8_t> bytes = unhex(t[5]);
    idlc::Diff diff = c.diff();
    return quaternion_read<R>(c.rule, diff, c.has_ref, c.ref, bytes, false) + " " +
           quaternion_read<R>(c.rule, diff, c.has_ref, c.ref, bytes, true);
}

std::string run_line(const std::string& line) {
    std::vector<std::string> t = split(line, ' ');
    const std::string& kind = t[0];
    if (kind == "V") {
        return idlc::RUNTIME_VERSION;
    }
    if (kind == "Q") {
        return run_quantizer(t);
    }
    if (kind == "D") {
        return run_dead_reckoning(t);
    }
    if (kind == "P") {
        return run_path(t);
    }
    if (kind == "X") {
        return run_extend(t);
    }
    bool bit = t[1] == "bit";
    if (kind == "F") {
        return bit ? run_diff_write<idlc::BitWriter, idlc::BitReader>(t)
                   : run_diff_write<idlc::ByteWriter, idlc::ByteReader>(t);
    }
    if (kind == "G") {
        return bit ? run_diff_read<idlc::BitReader>(t) : run_diff_read<idlc::ByteReader>(t);
    }
    if (kind == "I") {
        return bit ? run_int_write<idlc::BitWriter, idlc::BitReader>(t)
                   : run_int_write<idlc::ByteWriter, idlc::ByteReader>(t);
    }
    if (kind == "K") {
        return bit ? run_quaternion_write<idlc::BitWriter, idlc::BitReader>(t)
                   : run_quaternion_write<idlc::ByteWriter, idlc::ByteReader>(t);
    }
    if (kind == "L") {
        return bit ? run_quaternion_read<idlc::BitReader>(t)
                   : run_quaternion_read<idlc::ByteReader>(t);
    }
    if (kind == "J") {
        return bit ? run_int_read<idlc::BitReader>(t) : run_int_read<idlc::ByteReader>(t);
    }
    if (kind == "W") {
        std::size_t i = 2;
        std::vector<Op> ops = parse_ops(t, i);
        return bit ? run_write<idlc::BitWriter>(ops) : run_write<idlc::ByteWriter>(ops);
    }
    std::vector<std::uint8_t> bytes = unhex(t[2]);
    std::size_t i = 3;
    std::vector<Op> ops = parse_ops(t, i);
    return bit ? run_read<idlc::BitReader>(bytes, ops) : run_read<idlc::ByteReader>(bytes, ops);
}

} // namespace

int main() {
    std::string line;
    std::string out;
    while (std::getline(std::cin, line)) {
        if (line.empty()) {
            continue;
        }
        out += run_line(line);
        out += '\n';
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

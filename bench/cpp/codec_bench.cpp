// The generated C++ code timed on the values the Rust benchmark times (`bench-table cpp`,
// bench/src/cpp.rs, which writes the inputs, generates the headers, builds this file with
// -O2 and runs it): the mk48 updates in MK48, MK48_PLAIN and MK48_LOSSY and the seed's Character
// in MYENCODING1, each value one message.
//
//   codec_bench DIR ROUNDS [CASE]
//
// DIR holds one file per case, `<case>.bin`: the messages the generated Rust code wrote, each as
// a little-endian u32 length and its bytes. Each message is decoded (it must decode), and
// encoded again (into the very same bytes: the values the Rust code encoded); then the encode
// job (every value encoded into one writer, cleared first, as the Rust benchmark's encode_each)
// and the decode job (every message decoded into a new value, from_bytes_with, as its
// decode_each) run round-robin, once to warm up and then ROUNDS times. It prints one line per
// case: `<case> <values> <encode ns per value> <decode ns per value>` (medians of the rounds);
// a case whose bytes differ is an error (exit status 1). With CASE, only that case runs (for a
// profiler: `perf record codec_bench DIR 201 character_MYENCODING1`).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench_character.hpp"
#include "bench_mk48.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// Keeps a value alive as far as the optimizer can tell (the Rust side's `black_box`).
template <class T>
inline void keep(T& value) {
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(&value) : "memory");
#else
    static volatile const void* sink;
    sink = &value;
#endif
}

std::vector<std::vector<std::uint8_t>> read_messages(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::uint8_t> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::vector<std::uint8_t>> out;
    std::size_t at = 0;
    while (at + 4 <= all.size()) {
        std::size_t len = std::size_t(all[at]) | std::size_t(all[at + 1]) << 8 | std::size_t(all[at + 2]) << 16 |
                          std::size_t(all[at + 3]) << 24;
        at += 4;
        if (len > all.size() - at) {
            break;
        }
        out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                         all.begin() + static_cast<std::ptrdiff_t>(at + len));
        at += len;
    }
    if (!in.good() && !in.eof()) {
        error = "cannot read " + path;
    } else if (at != all.size() || out.empty()) {
        error = path + " is not a list of messages";
    }
    return out;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

/// One case: the values decoded from the Rust messages, and the two timed jobs.
class Case {
public:
    virtual ~Case() = default;
    virtual const char* name() const = 0;
    virtual std::size_t size() const = 0;
    /// Decodes every message and encodes each value again: empty when every value gives its
    /// message back byte for byte, else what went wrong.
    virtual std::string prepare(const std::string& dir) = 0;
    virtual std::size_t encode_all() = 0;
    virtual std::size_t decode_all() = 0;
};

/// `C` is the header's `Codec<T, E>`.
template <class T, class E, class C>
class CaseOf : public Case {
public:
    explicit CaseOf(const char* name) : name_(name) {}
    const char* name() const override { return name_; }
    std::size_t size() const override { return values_.size(); }

    std::string prepare(const std::string& dir) override {
        std::string error;
        messages_ = read_messages(dir + "/" + name_ + ".bin", error);
        if (!error.empty()) {
            return error;
        }
        std::vector<std::uint8_t> again;
        for (std::size_t i = 0; i < messages_.size(); ++i) {
            T value;
            idlc::Status s = value.template from_bytes_with<E>(messages_[i].data(), messages_[i].size());
            if (!s.ok()) {
                return std::string(name_) + ": message " + std::to_string(i) + " does not decode: " + s.to_string();
            }
            s = value.template to_bytes_with<E>(again);
            if (!s.ok()) {
                return std::string(name_) + ": value " + std::to_string(i) + " does not encode: " + s.to_string();
            }
            if (again != messages_[i]) {
                return std::string(name_) + ": value " + std::to_string(i) + " encodes to other bytes than Rust's";
            }
            values_.push_back(std::move(value));
        }
        return "";
    }

    std::size_t encode_all() override {
        std::size_t total = 0;
        for (const T& value : values_) {
            writer_.clear();
            if (C::encode(value, writer_).ok()) {
                total += writer_.finish().size();
            }
        }
        keep(total);
        return total;
    }

    std::size_t decode_all() override {
        std::size_t ok = 0;
        for (const std::vector<std::uint8_t>& message : messages_) {
            T value;
            if (value.template from_bytes_with<E>(message.data(), message.size()).ok()) {
                ++ok;
            }
            keep(value);
        }
        return ok;
    }

private:
    const char* name_;
    std::vector<std::vector<std::uint8_t>> messages_;
    std::vector<T> values_;
    typename C::Writer writer_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: codec_bench DIR ROUNDS [CASE]\n");
        return 2;
    }
    std::string dir = argv[1];
    int rounds = std::max(1, std::atoi(argv[2]));
    using namespace bench;
    using mk48::Update;
    using character::Character;
    CaseOf<Update, mk48::MK48, mk48::Codec<Update, mk48::MK48>> ranged("mk48_MK48");
    CaseOf<Update, mk48::MK48_PLAIN, mk48::Codec<Update, mk48::MK48_PLAIN>> plain("mk48_MK48_PLAIN");
    CaseOf<Update, mk48::MK48_LOSSY, mk48::Codec<Update, mk48::MK48_LOSSY>> lossy("mk48_MK48_LOSSY");
    CaseOf<Character, character::MYENCODING1, character::Codec<Character, character::MYENCODING1>> seed(
        "character_MYENCODING1");
    std::vector<Case*> cases = {&ranged, &plain, &lossy, &seed};
    if (argc == 4) {
        std::string only = argv[3];
        cases.erase(std::remove_if(cases.begin(), cases.end(), [&](Case* c) { return c->name() != only; }),
                    cases.end());
        if (cases.empty()) {
            std::fprintf(stderr, "codec_bench: no case %s\n", only.c_str());
            return 2;
        }
    }
    for (Case* c : cases) {
        std::string error = c->prepare(dir);
        if (!error.empty()) {
            std::fprintf(stderr, "codec_bench: %s\n", error.c_str());
            return 1;
        }
    }
    // Round-robin, as the Rust side's `medians`: round i of every job before round i + 1 of any.
    std::vector<std::vector<double>> encode(cases.size()), decode(cases.size());
    for (int round = -1; round < rounds; ++round) {
        for (std::size_t i = 0; i < cases.size(); ++i) {
            auto start = Clock::now();
            cases[i]->encode_all();
            auto middle = Clock::now();
            cases[i]->decode_all();
            auto end = Clock::now();
            if (round < 0) {
                continue;  // the warm-up
            }
            double n = static_cast<double>(cases[i]->size());
            encode[i].push_back(std::chrono::duration<double, std::nano>(middle - start).count() / n);
            decode[i].push_back(std::chrono::duration<double, std::nano>(end - middle).count() / n);
        }
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
        std::printf("%s %zu %.2f %.2f\n", cases[i]->name(), cases[i]->size(), median(encode[i]), median(decode[i]));
    }
    return 0;
}

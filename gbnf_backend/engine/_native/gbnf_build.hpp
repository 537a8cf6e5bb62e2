// GBNF text -> validated rules, the fast path of gbnf_backend.Grammar.from_gbnf.
//
// The same parser and checks as gbnf_backend/_gbnf_parser.py and _analysis.py (the oracle): symbol ids by first
// appearance, helper rules `base_N` for groups and repetitions (a counter suffix when a name is taken), repetitions
// expanded as chains of helper rules, the repetition-weight and size limits, then undefined rules, nullable rules
// (a least fixed point), left recursion through leftmost references and rules that can never finish. This path
// only ever *succeeds*: on any error it gives up (GiveUp) and the Python parser runs again to report the error with
// its message, line and column. So it must never accept a text the Python path refuses, and must build the same
// rules where it accepts (tests/gbnf_backend/test_grammar_native_build.py compares the two on every corpus).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <tuple>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common.hpp"

namespace pegchat {

namespace gbnf_build {

// The limits of gbnf_backend._gbnf_parser (MAX_REPETITION_BOUND, MAX_NESTED_REPETITION, MAX_ELEMENTS).
constexpr int64_t MAX_REPETITION_BOUND = 100000;
constexpr int64_t MAX_NESTED_REPETITION = 10000;
constexpr int64_t MAX_ELEMENTS = 4000000;

using Element = std::pair<int32_t, int32_t>;

struct GiveUp {};  // any error: the Python path reports it

struct Built {
    // Storage of the names: the text with every character outside ASCII replaced (names are ASCII), and the
    // helper names. A Built is filled in place and never moved (the views point into these).
    std::string narrow;
    std::deque<std::string> helper_names;
    std::vector<std::string_view> names;        // by symbol id
    std::vector<std::vector<Element>> rules;    // by symbol id, each ending with END
    std::vector<uint8_t> nullable;              // by symbol id
    std::vector<std::pair<std::vector<int32_t>, std::vector<Element>>> chains;  // (outermost link first, unit)
    std::vector<int32_t> generated;             // helper rule ids, ascending
    int32_t root = -1;
};

inline bool is_name_char(uint32_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class Parser {
   public:
    Parser(const uint32_t* text, size_t n, Built& out) : t_(text), n_(n), out_(out) {}

    void run(const std::string& root_name) {
        out_.narrow.resize(n_);
        for (size_t i = 0; i < n_; ++i) out_.narrow[i] = t_[i] < 0x80 ? static_cast<char>(t_[i]) : '\x01';
        collect_reserved();
        size_t pos = skip_space(0, true);
        while (pos < n_) pos = parse_rule(pos);
        auto root = ids_.find(root_name);
        if (root == ids_.end() || !heads_[root->second]) throw GiveUp{};
        out_.root = root->second;
        for (size_t sid = 0; sid < out_.rules.size(); ++sid)
            if (!defined_[sid]) throw GiveUp{};  // an undefined rule
        out_.generated.assign(generated_.begin(), generated_.end());
    }

   private:
    struct Frame {
        int32_t sid;
        bool nested;
        std::vector<Element> elements;
        int64_t weight = 1;
        size_t last_start = 0;
        int64_t last_weight = 1;
        int64_t sequence_weight = 1;
        Frame(int32_t s, bool n) : sid(s), nested(n) {}
        void start_sequence() {
            last_start = elements.size();
            last_weight = 1;
            sequence_weight = 1;
        }
    };

    const uint32_t* t_;
    size_t n_;
    Built& out_;
    std::unordered_map<std::string_view, int32_t> ids_;
    std::unordered_set<std::string_view> reserved_;
    std::vector<uint8_t> defined_;  // by symbol id: its body was read (or it is a helper rule)
    std::vector<uint8_t> heads_;    // by symbol id: a rule written in the text (not a helper)
    std::vector<int32_t> generated_;
    int64_t element_count_ = 0;
    int64_t counter_ = 0;

    uint32_t at(size_t pos) const { return pos < n_ ? t_[pos] : 0xFFFFFFFFu; }

    void collect_reserved() {
        // Every maximal run of name characters (a superset of the rule names): helper names avoid all of them.
        size_t i = 0;
        while (i < n_) {
            if (!is_name_char(t_[i])) {
                ++i;
                continue;
            }
            size_t j = i;
            while (j < n_ && is_name_char(t_[j])) ++j;
            reserved_.insert(view(i, j));
            i = j;
        }
    }

    std::string_view view(size_t from, size_t to) const { return std::string_view(out_.narrow).substr(from, to - from); }

    size_t skip_space(size_t pos, bool newline_ok) const {
        while (pos < n_) {
            uint32_t c = t_[pos];
            if (c == ' ' || c == '\t' || (newline_ok && (c == '\r' || c == '\n'))) {
                ++pos;
            } else if (c == '#') {
                while (pos < n_ && t_[pos] != '\r' && t_[pos] != '\n') ++pos;
            } else {
                break;
            }
        }
        return pos;
    }

    size_t name_end(size_t pos) const {
        while (pos < n_ && is_name_char(t_[pos])) ++pos;
        return pos;
    }

    int32_t new_symbol(std::string_view name) {
        auto sid = static_cast<int32_t>(out_.names.size());
        ids_.emplace(name, sid);
        out_.names.push_back(name);
        out_.rules.emplace_back();
        defined_.push_back(0);
        heads_.push_back(0);
        return sid;
    }

    int32_t symbol_id(std::string_view name) {
        auto it = ids_.find(name);
        return it != ids_.end() ? it->second : new_symbol(name);
    }

    bool taken(std::string_view name) const { return ids_.count(name) != 0 || reserved_.count(name) != 0; }

    // A new helper name `base_sid` (with a counter suffix while taken), stored in out_.helper_names.
    std::string_view helper_name(std::string_view base, int32_t sid) {
        std::string name = std::string(base) + "_" + std::to_string(sid);
        while (taken(name)) name = std::string(base) + "_" + std::to_string(sid) + "_" + std::to_string(++counter_);
        out_.helper_names.push_back(std::move(name));
        return out_.helper_names.back();
    }

    int32_t generate_symbol(std::string_view base) {
        int32_t got = new_symbol(helper_name(base, static_cast<int32_t>(out_.names.size())));
        generated_.push_back(got);
        return got;
    }

    void add_rule(int32_t sid, std::vector<Element>&& elements) {
        element_count_ += static_cast<int64_t>(elements.size());
        if (element_count_ > MAX_ELEMENTS) throw GiveUp{};
        out_.rules[sid] = std::move(elements);
        defined_[sid] = 1;
    }

    std::pair<uint32_t, size_t> scan_char(size_t pos) const {
        if (pos >= n_) throw GiveUp{};
        uint32_t c = t_[pos];
        if (c != '\\') return {c, pos + 1};
        uint32_t e = at(pos + 1);
        int size = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
        if (size) {
            uint32_t value = 0;
            for (int k = 0; k < size; ++k) {
                uint32_t d = at(pos + 2 + k);
                uint32_t digit;
                if (d >= '0' && d <= '9') digit = d - '0';
                else if (d >= 'a' && d <= 'f') digit = d - 'a' + 10;
                else if (d >= 'A' && d <= 'F') digit = d - 'A' + 10;
                else throw GiveUp{};
                value = value * 16 + digit;
                if (value > MAX_CODE_POINT) throw GiveUp{};
            }
            return {value, pos + 2 + size};
        }
        switch (e) {
            case 't': return {'\t', pos + 2};
            case 'r': return {'\r', pos + 2};
            case 'n': return {'\n', pos + 2};
            case '\\': case '"': case '[': case ']': return {e, pos + 2};
            default: throw GiveUp{};
        }
    }

    std::pair<int64_t, size_t> scan_int(size_t pos) const {
        size_t end = pos;
        while (end < n_ && t_[end] >= '0' && t_[end] <= '9') ++end;
        if (end == pos || end - pos > 9) throw GiveUp{};
        int64_t value = 0;
        for (size_t k = pos; k < end; ++k) value = value * 10 + (t_[k] - '0');
        return {value, end};
    }

    size_t parse_rule(size_t pos) {
        size_t end_of_name = name_end(pos);
        if (end_of_name == pos) throw GiveUp{};
        std::string_view name = view(pos, end_of_name);
        int32_t sid = symbol_id(name);
        if (heads_[sid]) throw GiveUp{};  // defined twice
        heads_[sid] = 1;
        defined_[sid] = 1;
        size_t after = skip_space(end_of_name, false);
        if (!(at(after) == ':' && at(after + 1) == ':' && at(after + 2) == '=')) throw GiveUp{};
        size_t end = parse_alternates(skip_space(after + 3, true), name, sid);
        if (end < n_) {
            uint32_t c = t_[end];
            if (c == '\r') end += at(end + 1) == '\n' ? 2 : 1;
            else if (c == '\n') end += 1;
            else throw GiveUp{};
        }
        return skip_space(end, true);
    }

    size_t parse_alternates(size_t pos, std::string_view rule_name, int32_t sid) {
        std::vector<Frame> frames;
        frames.emplace_back(sid, false);
        while (true) {
            size_t group_at = SIZE_MAX;
            pos = parse_sequence(pos, rule_name, frames.back(), group_at);
            if (group_at != SIZE_MAX) {
                int32_t sub = generate_symbol(rule_name);
                frames.emplace_back(sub, true);
                pos = skip_space(group_at + 1, true);
                continue;
            }
            Frame& frame = frames.back();
            frame.weight = std::max(frame.weight, frame.sequence_weight);
            if (at(pos) == '|') {
                frame.elements.emplace_back(ALT, 0);
                frame.start_sequence();
                pos = skip_space(pos + 1, true);
                continue;
            }
            frame.elements.emplace_back(END, 0);
            int32_t done_sid = frame.sid;
            int64_t done_weight = frame.weight;
            add_rule(done_sid, std::move(frame.elements));
            frames.pop_back();
            if (frames.empty()) return pos;
            if (at(pos) != ')') throw GiveUp{};
            Frame& parent = frames.back();
            parent.last_start = parent.elements.size();
            parent.elements.emplace_back(RULE_REF, done_sid);
            parent.last_weight = done_weight;
            parent.sequence_weight = std::max(parent.sequence_weight, done_weight);
            pos = skip_space(pos + 1, parent.nested);
        }
    }

    // One alternative (or the rest of one) into `frame`; sets group_at at an opening parenthesis.
    size_t parse_sequence(size_t pos, std::string_view rule_name, Frame& frame, size_t& group_at) {
        const bool nested = frame.nested;
        auto& elements = frame.elements;
        size_t last_start = frame.last_start;
        int64_t last_weight = frame.last_weight;
        int64_t weight = frame.sequence_weight;
        while (pos < n_) {
            uint32_t c = t_[pos];
            if (is_name_char(c)) {
                size_t end = name_end(pos);
                int32_t ref = symbol_id(view(pos, end));
                last_start = elements.size();
                elements.emplace_back(RULE_REF, ref);
                last_weight = 1;
                pos = skip_space(end, nested);
            } else if (c == '"') {
                ++pos;
                last_start = elements.size();
                while (true) {
                    if (pos >= n_) throw GiveUp{};
                    uint32_t d = t_[pos];
                    if (d == '"') break;
                    if (d == '\r' || d == '\n') throw GiveUp{};
                    auto [value, next] = scan_char(pos);
                    elements.emplace_back(CHAR, static_cast<int32_t>(value));
                    pos = next;
                }
                last_weight = 1;
                pos = skip_space(pos + 1, nested);
            } else if (c == '[') {
                ++pos;
                int32_t start_type = CHAR;
                if (at(pos) == '^') {
                    ++pos;
                    start_type = CHAR_NOT;
                }
                last_start = elements.size();
                while (true) {
                    if (pos >= n_) throw GiveUp{};
                    uint32_t d = t_[pos];
                    if (d == ']') break;
                    if (d == '\r' || d == '\n') throw GiveUp{};
                    auto [value, next] = scan_char(pos);
                    pos = next;
                    elements.emplace_back(elements.size() > last_start ? CHAR_ALT : start_type,
                                          static_cast<int32_t>(value));
                    if (at(pos) == '-' && pos + 1 < n_ && t_[pos + 1] != ']') {
                        auto [upper, after] = scan_char(pos + 1);
                        if (upper < value) throw GiveUp{};
                        pos = after;
                        elements.emplace_back(CHAR_RNG_UPPER, static_cast<int32_t>(upper));
                    }
                }
                if (elements.size() == last_start) throw GiveUp{};
                last_weight = 1;
                pos = skip_space(pos + 1, nested);
            } else if (c == '<' || (c == '!' && at(pos + 1) == '<')) {
                int32_t kind = TOKEN;
                if (c == '!') {
                    kind = TOKEN_NOT;
                    ++pos;
                }
                if (at(pos + 1) != '[') throw GiveUp{};
                auto [token, after] = scan_int(pos + 2);
                if (!(at(after) == ']' && at(after + 1) == '>')) throw GiveUp{};
                last_start = elements.size();
                elements.emplace_back(kind, static_cast<int32_t>(token));
                last_weight = 1;
                pos = skip_space(after + 2, nested);
            } else if (c == '(') {
                frame.last_start = last_start;
                frame.last_weight = last_weight;
                frame.sequence_weight = weight;
                group_at = pos;
                return pos;
            } else if (c == '.') {
                last_start = elements.size();
                elements.emplace_back(CHAR_ANY, 0);
                last_weight = 1;
                pos = skip_space(pos + 1, nested);
            } else if (c == '*' || c == '+' || c == '?') {
                pos = skip_space(pos + 1, nested);
                int64_t low = c == '+' ? 1 : 0, high = c == '?' ? 1 : -1;
                last_weight = repeat(elements, last_start, low, high, rule_name, last_weight);
            } else if (c == '{') {
                pos = skip_space(pos + 1, nested);
                auto [low, after_low] = scan_int(pos);  // (no digit: the Python path reports it)
                pos = skip_space(after_low, nested);
                int64_t high = low;
                if (at(pos) == ',') {
                    pos = skip_space(pos + 1, nested);
                    high = -1;
                    if (at(pos) >= '0' && at(pos) <= '9') {
                        auto [value, after_high] = scan_int(pos);
                        high = value;
                        pos = skip_space(after_high, nested);
                    }
                }
                if (at(pos) != '}') throw GiveUp{};
                if (high != -1 && high < low) throw GiveUp{};
                if (low > MAX_REPETITION_BOUND || high > MAX_REPETITION_BOUND) throw GiveUp{};
                pos = skip_space(pos + 1, nested);
                last_weight = repeat(elements, last_start, low, high, rule_name, last_weight);
            } else {
                break;
            }
            if (last_weight > weight) weight = last_weight;
        }
        frame.last_start = last_start;
        frame.last_weight = last_weight;
        frame.sequence_weight = weight;
        return pos;
    }

    // Expand a repetition of elements[last_start:] in place (llama.cpp's expansion); return the item's weight.
    int64_t repeat(std::vector<Element>& elements, size_t last_start, int64_t low, int64_t high,
                   std::string_view rule_name, int64_t unit_weight) {
        if (last_start == elements.size()) throw GiveUp{};
        std::vector<Element> unit(elements.begin() + static_cast<std::ptrdiff_t>(last_start), elements.end());
        const int64_t weight = unit_weight * (high > 1 ? high : 1);
        if (unit_weight > 1 && high > 1 && weight > MAX_NESTED_REPETITION) throw GiveUp{};
        const auto unit_size = static_cast<int64_t>(unit.size());
        if (unit_size * low > MAX_ELEMENTS) throw GiveUp{};
        if (low == 0) {
            elements.resize(last_start);
        } else {
            for (int64_t k = 1; k < low; ++k) elements.insert(elements.end(), unit.begin(), unit.end());
        }
        const int64_t optional_count = high < 0 ? 1 : high - low;
        if (optional_count == 0) return weight;
        element_count_ += optional_count * (unit_size + 3) - (high >= 0 ? 1 : 0);
        if (element_count_ > MAX_ELEMENTS) throw GiveUp{};
        const auto first = static_cast<int32_t>(out_.names.size());
        const auto stop = static_cast<int32_t>(first + optional_count);
        for (int32_t sid = first; sid < stop; ++sid) {
            new_symbol(helper_name(rule_name, sid));
            generated_.push_back(sid);
            defined_[sid] = 1;
            std::vector<Element> link(unit);
            link.reserve(unit.size() + 3);
            if (high < 0) link.emplace_back(RULE_REF, first);
            else if (sid > first) link.emplace_back(RULE_REF, sid - 1);
            link.emplace_back(ALT, 0);
            link.emplace_back(END, 0);
            out_.rules[sid] = std::move(link);
        }
        elements.emplace_back(RULE_REF, stop - 1);
        if (high > 1 && high - low > 1) {
            std::vector<int32_t> links;
            for (int32_t sid = stop - 1; sid >= first; --sid) links.push_back(sid);
            out_.chains.emplace_back(std::move(links), std::move(unit));
        }
        return weight;
    }
};

// ---- the checks of gbnf_backend._analysis.check_grammar --------------------------------------------------------

// Every alternative of every rule (but the inner links of chains), reduced to what the checks need; the references
// of alternative i are refs[begin[i] .. begin[i + 1]).
struct Alternatives {
    std::vector<int32_t> owner;
    std::vector<size_t> begin;     // one more entry than alternatives
    std::vector<size_t> lead;      // how many references come before the first terminal
    std::vector<uint8_t> terminal;  // has a terminal
    std::vector<int32_t> refs;
    size_t size() const { return owner.size(); }
};

inline Alternatives split_all(const Built& g, const std::vector<uint8_t>& skip) {
    Alternatives a;
    a.begin.push_back(0);
    for (size_t sid = 0; sid < g.rules.size(); ++sid) {
        if (skip[sid]) continue;
        size_t lead = 0;
        bool terminal = false;
        for (const auto& [kind, value] : g.rules[sid]) {
            if (kind == RULE_REF) {
                a.refs.push_back(value);
                if (!terminal) ++lead;
            } else if (kind == ALT || kind == END) {
                a.owner.push_back(static_cast<int32_t>(sid));
                a.lead.push_back(lead);
                a.terminal.push_back(terminal ? 1 : 0);
                a.begin.push_back(a.refs.size());
                if (kind == END) break;
                lead = 0;
                terminal = false;
            } else {
                terminal = true;
            }
        }
    }
    return a;
}

// Least fixed point: a rule holds when one alternative has only holding references (and, unless
// ignore_terminals, no terminal). users: per rule, the alternatives referring to it (CSR: user_begin/user_list).
inline std::vector<uint8_t> closure(const Alternatives& a, const std::vector<size_t>& user_begin,
                                    const std::vector<int32_t>& user_list, bool ignore_terminals,
                                    const std::vector<uint8_t>& given) {
    std::vector<uint8_t> holds(given);
    std::vector<int64_t> pending(a.size());
    std::vector<int32_t> todo;
    for (size_t i = 0; i < a.size(); ++i) {
        pending[i] = ignore_terminals || !a.terminal[i] ? static_cast<int64_t>(a.begin[i + 1] - a.begin[i]) : -1;
        if (pending[i] == 0 && !holds[a.owner[i]]) {
            holds[a.owner[i]] = 1;
            todo.push_back(a.owner[i]);
        }
    }
    while (!todo.empty()) {
        int32_t sid = todo.back();
        todo.pop_back();
        for (size_t k = user_begin[sid]; k < user_begin[sid + 1]; ++k) {
            int32_t index = user_list[k];
            if (--pending[index] == 0 && !holds[a.owner[index]]) {
                holds[a.owner[index]] = 1;
                todo.push_back(a.owner[index]);
            }
        }
    }
    return holds;
}

// Whether some cycle of leftmost references has a non-tail edge (left recursion): Tarjan's SCCs, then any
// non-tail edge inside one component.
inline bool left_recursive(size_t n, const Alternatives& a, const std::vector<uint8_t>& nullable) {
    std::vector<std::vector<std::pair<int32_t, bool>>> edges(n);
    for (size_t k = 0; k < a.size(); ++k) {
        const size_t lead = a.lead[k];
        if (lead == 0) continue;
        const size_t last = a.terminal[k] ? SIZE_MAX : lead - 1;
        for (size_t i = 0; i < lead; ++i) {
            int32_t value = a.refs[a.begin[k] + i];
            edges[a.owner[k]].emplace_back(value, i == last);
            if (!nullable[value]) break;
        }
    }
    std::vector<int32_t> index(n, -1), low(n, 0), component(n, -1);
    std::vector<uint8_t> on_stack(n, 0);
    std::vector<int32_t> stack;
    int32_t counter = 0, components = 0;
    std::vector<std::pair<int32_t, size_t>> work;
    for (size_t start = 0; start < n; ++start) {
        if (edges[start].empty() || index[start] != -1) continue;
        work.assign(1, {static_cast<int32_t>(start), 0});
        index[start] = low[start] = counter++;
        stack.push_back(static_cast<int32_t>(start));
        on_stack[start] = 1;
        while (!work.empty()) {
            const int32_t node = work.back().first;
            const size_t i = work.back().second;
            if (i < edges[node].size()) {
                work.back().second = i + 1;
                int32_t succ = edges[node][i].first;
                if (index[succ] == -1) {
                    index[succ] = low[succ] = counter++;
                    stack.push_back(succ);
                    on_stack[succ] = 1;
                    work.emplace_back(succ, 0);
                } else if (on_stack[succ]) {
                    low[node] = std::min(low[node], index[succ]);
                }
                continue;
            }
            work.pop_back();
            if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[node]);
            if (low[node] == index[node]) {
                while (true) {
                    int32_t member = stack.back();
                    stack.pop_back();
                    on_stack[member] = 0;
                    component[member] = components;
                    if (member == node) break;
                }
                ++components;
            }
        }
    }
    for (size_t source = 0; source < n; ++source)
        for (const auto& [target, tail] : edges[source])
            if (!tail && component[source] == component[target]) return true;
    return false;
}

// Nullable flags of a parsed grammar, or GiveUp when a check fails (left recursion, a reachable rule that can
// never finish). Inner links of repetition chains count as empty and finishing, as in the Python checks.
inline void check(Built& g) {
    const size_t n = g.rules.size();
    std::vector<uint8_t> inner(n, 0);
    for (const auto& chain : g.chains)
        for (size_t k = 1; k < chain.first.size(); ++k) inner[chain.first[k]] = 1;
    const Alternatives a = split_all(g, inner);
    std::vector<size_t> user_begin(n + 1, 0);
    for (int32_t ref : a.refs) ++user_begin[ref + 1];
    for (size_t sid = 0; sid < n; ++sid) user_begin[sid + 1] += user_begin[sid];
    std::vector<int32_t> user_list(a.refs.size());
    {
        std::vector<size_t> fill(user_begin.begin(), user_begin.end() - 1);
        for (size_t k = 0; k < a.size(); ++k)
            for (size_t r = a.begin[k]; r < a.begin[k + 1]; ++r) user_list[fill[a.refs[r]]++] = static_cast<int32_t>(k);
    }
    std::vector<uint8_t> nullable = closure(a, user_begin, user_list, false, inner);
    if (left_recursive(n, a, nullable)) throw GiveUp{};
    std::vector<uint8_t> productive = closure(a, user_begin, user_list, true, inner);
    // Reachable rules (through the alternatives kept above) must all be able to finish.
    std::vector<size_t> alt_begin(n + 1, 0);  // alternatives of a rule are consecutive: their range by owner
    for (size_t k = 0; k < a.size(); ++k) ++alt_begin[a.owner[k] + 1];
    for (size_t sid = 0; sid < n; ++sid) alt_begin[sid + 1] += alt_begin[sid];
    std::vector<uint8_t> seen(n, 0);
    std::vector<int32_t> todo{g.root};
    seen[g.root] = 1;
    while (!todo.empty()) {
        int32_t sid = todo.back();
        todo.pop_back();
        if (!productive[sid]) throw GiveUp{};
        for (size_t r = a.begin[alt_begin[sid]]; r < a.begin[alt_begin[sid + 1]]; ++r) {
            int32_t next = a.refs[r];
            if (!seen[next]) {
                seen[next] = 1;
                todo.push_back(next);
            }
        }
    }
    g.nullable = std::move(nullable);
}

// Parse and check `text` (code points); false when the Python path must run (it reports the error).
inline bool build(const uint32_t* text, size_t n, const std::string& root, Built& out) {
    try {
        Parser parser(text, n, out);
        parser.run(root);
        check(out);
        return true;
    } catch (const GiveUp&) {
        return false;
    }
}

// ---- the rules a converter's rule table reaches (gbnf_backend.schema.json_schema._reachable) ------------------

// Whether c may be part of a rule name as the converter's reference scan reads them ([a-zA-Z0-9-], no '_').
inline bool is_reference_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

// The end of the literal (close = '"') or class (close = ']') opening at `pos`, or 0 when it does not close the
// way the Python scan's regular expression requires (a backslash escapes any character but a line break).
inline size_t quoted_end(const std::string& body, size_t pos, char close) {
    for (size_t i = pos + 1; i < body.size();) {
        char c = body[i];
        if (c == close) return i + 1;
        if (c == '\\') {
            if (i + 1 >= body.size() || body[i + 1] == '\n') return 0;
            i += 2;
        } else {
            ++i;
        }
    }
    return 0;
}

// Per rule, whether the rule `root` reaches it through the names its body uses (literals and classes skipped, as
// json_schema._references reads a body; words made only of digits are repetition bounds). O(total body size).
inline std::vector<uint8_t> reachable_rules(const std::vector<std::string>& names,
                                            const std::vector<std::string>& bodies, size_t root) {
    std::unordered_map<std::string_view, size_t> index;
    for (size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
    std::vector<uint8_t> seen(names.size(), 0);
    std::vector<size_t> todo{root};
    seen[root] = 1;
    while (!todo.empty()) {
        const std::string& body = bodies[todo.back()];
        todo.pop_back();
        size_t pos = 0;
        while (pos < body.size()) {
            char c = body[pos];
            if (c == '"' || c == '[') {
                size_t end = quoted_end(body, pos, c == '"' ? '"' : ']');
                pos = end ? end : pos + 1;
            } else if (is_reference_char(c)) {
                size_t end = pos;
                bool digits = true;
                while (end < body.size() && is_reference_char(body[end])) {
                    digits = digits && body[end] >= '0' && body[end] <= '9';
                    ++end;
                }
                if (!digits) {
                    auto hit = index.find(std::string_view(body).substr(pos, end - pos));
                    if (hit != index.end() && !seen[hit->second]) {
                        seen[hit->second] = 1;
                        todo.push_back(hit->second);
                    }
                }
                pos = end;
            } else {
                ++pos;
            }
        }
    }
    return seen;
}

// ---- subset construction of key automata (gbnf_backend.schema._keys._determinize) ------------------------------

using Range = std::pair<uint32_t, uint32_t>;
using DfaRow = std::vector<std::pair<std::vector<Range>, int32_t>>;  // (characters, target) in row order

inline std::vector<int32_t> eps_closure(const std::vector<std::vector<int32_t>>& eps, std::vector<int32_t> states,
                                        std::vector<uint8_t>& mark) {
    std::vector<int32_t> todo(states);
    for (int32_t s : states) mark[s] = 1;
    while (!todo.empty()) {
        int32_t s = todo.back();
        todo.pop_back();
        for (int32_t next : eps[s])
            if (!mark[next]) {
                mark[next] = 1;
                states.push_back(next);
                todo.push_back(next);
            }
    }
    for (int32_t s : states) mark[s] = 0;
    std::sort(states.begin(), states.end());
    return states;
}

// The DFA of an NFA over code points, exactly as the Python construction numbers and orders it: states in order of
// discovery from closure({0}); per state, the elementary intervals between the edges' range ends, grouped by the set
// of NFA targets (groups in order of their first interval, adjacent intervals merged), one transition per group.
// Returns false when a state would be the (max_states + 1)-th. edges: per NFA state, (lo, hi, target) per range.
inline bool determinize(const std::vector<std::vector<int32_t>>& eps,
                        const std::vector<std::vector<std::tuple<uint32_t, uint32_t, int32_t>>>& edges,
                        size_t max_states, std::vector<DfaRow>& rows, std::vector<std::vector<int32_t>>& states) {
    const uint32_t end_of_code_points = MAX_CODE_POINT + 1;
    std::vector<uint8_t> mark(eps.size(), 0);
    std::unordered_map<std::vector<int32_t>, int32_t, VectorHash> index;
    states.push_back(eps_closure(eps, {0}, mark));
    index.emplace(states.back(), 0);
    std::vector<uint32_t> bounds;
    std::vector<std::vector<int32_t>> reached;
    for (size_t k = 0; k < states.size(); ++k) {
        bounds.assign(1, 0);
        for (int32_t s : states[k])
            for (const auto& [lo, hi, t] : edges[s]) {
                bounds.push_back(lo);
                bounds.push_back(hi + 1);
            }
        std::sort(bounds.begin(), bounds.end());
        bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
        if (bounds.back() != end_of_code_points) bounds.push_back(end_of_code_points);
        const size_t intervals = bounds.size() - 1;
        reached.assign(intervals, {});
        for (int32_t s : states[k])
            for (const auto& [lo, hi, t] : edges[s]) {
                size_t from = std::lower_bound(bounds.begin(), bounds.end(), lo) - bounds.begin();
                size_t to = std::lower_bound(bounds.begin(), bounds.end(), hi + 1) - bounds.begin();
                for (size_t i = from; i < to; ++i) reached[i].push_back(t);
            }
        std::vector<std::vector<int32_t>> group_keys;
        std::vector<std::vector<Range>> group_ranges;
        std::unordered_map<std::vector<int32_t>, size_t, VectorHash> group_of;
        for (size_t i = 0; i < intervals; ++i) {
            auto& hit = reached[i];
            std::sort(hit.begin(), hit.end());
            hit.erase(std::unique(hit.begin(), hit.end()), hit.end());
            auto [it, fresh] = group_of.emplace(hit, group_keys.size());
            if (fresh) {
                group_keys.push_back(hit);
                group_ranges.emplace_back();
            }
            auto& ranges = group_ranges[it->second];
            const uint32_t lo = bounds[i], hi = bounds[i + 1] - 1;
            if (!ranges.empty() && ranges.back().second + 1 == lo) ranges.back().second = hi;
            else ranges.emplace_back(lo, hi);
        }
        DfaRow row;
        for (size_t g = 0; g < group_keys.size(); ++g) {
            std::vector<int32_t> closed = eps_closure(eps, group_keys[g], mark);
            auto found = index.find(closed);
            int32_t target;
            if (found == index.end()) {
                if (states.size() >= max_states) return false;
                target = static_cast<int32_t>(states.size());
                index.emplace(closed, target);
                states.push_back(std::move(closed));
            } else {
                target = found->second;
            }
            row.emplace_back(std::move(group_ranges[g]), target);
        }
        rows.push_back(std::move(row));
    }
    return true;
}

}  // namespace gbnf_build

}  // namespace pegchat

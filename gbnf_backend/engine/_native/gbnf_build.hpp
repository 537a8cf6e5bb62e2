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

#include <cstdint>
#include <string>
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
    std::vector<std::string> names;             // by symbol id
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
    Parser(const uint32_t* text, size_t n) : t_(text), n_(n) {}

    Built run(const std::string& root_name) {
        collect_reserved();
        size_t pos = skip_space(0, true);
        while (pos < n_) pos = parse_rule(pos);
        auto root = ids_.find(root_name);
        if (root == ids_.end() || !heads_[root->second]) throw GiveUp{};
        out_.root = root->second;
        for (size_t sid = 0; sid < out_.rules.size(); ++sid)
            if (!defined_[sid]) throw GiveUp{};  // an undefined rule
        out_.generated.assign(generated_.begin(), generated_.end());
        return std::move(out_);
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
    Built out_;
    std::unordered_map<std::string, int32_t> ids_;
    std::unordered_set<std::string> reserved_;
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
            reserved_.insert(ascii(i, j));
            i = j;
        }
    }

    std::string ascii(size_t from, size_t to) const {
        std::string s;
        s.reserve(to - from);
        for (size_t k = from; k < to; ++k) s.push_back(static_cast<char>(t_[k]));
        return s;
    }

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

    int32_t new_symbol(std::string name) {
        auto sid = static_cast<int32_t>(out_.names.size());
        ids_.emplace(name, sid);
        out_.names.push_back(std::move(name));
        out_.rules.emplace_back();
        defined_.push_back(0);
        heads_.push_back(0);
        return sid;
    }

    int32_t symbol_id(const std::string& name) {
        auto it = ids_.find(name);
        return it != ids_.end() ? it->second : new_symbol(name);
    }

    bool taken(const std::string& name) const { return ids_.count(name) != 0 || reserved_.count(name) != 0; }

    int32_t generate_symbol(const std::string& base) {
        auto sid = static_cast<int32_t>(out_.names.size());
        std::string name = base + "_" + std::to_string(sid);
        while (taken(name)) name = base + "_" + std::to_string(sid) + "_" + std::to_string(++counter_);
        int32_t got = new_symbol(std::move(name));
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
        std::string name = ascii(pos, end_of_name);
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

    size_t parse_alternates(size_t pos, const std::string& rule_name, int32_t sid) {
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
    size_t parse_sequence(size_t pos, const std::string& rule_name, Frame& frame, size_t& group_at) {
        const bool nested = frame.nested;
        auto& elements = frame.elements;
        size_t last_start = frame.last_start;
        int64_t last_weight = frame.last_weight;
        int64_t weight = frame.sequence_weight;
        while (pos < n_) {
            uint32_t c = t_[pos];
            if (is_name_char(c)) {
                size_t end = name_end(pos);
                int32_t ref = symbol_id(ascii(pos, end));
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
                   const std::string& rule_name, int64_t unit_weight) {
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
            std::string name = rule_name + "_" + std::to_string(sid);
            while (taken(name)) name = rule_name + "_" + std::to_string(sid) + "_" + std::to_string(++counter_);
            new_symbol(std::move(name));
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

struct Alternative {
    int32_t owner;
    std::vector<int32_t> refs;  // every reference, with repeats
    size_t lead;                // how many of refs come before the first terminal
    bool terminal;              // has a terminal
};

inline std::vector<Alternative> split_all(const Built& g, const std::vector<uint8_t>& skip) {
    std::vector<Alternative> alts;
    for (size_t sid = 0; sid < g.rules.size(); ++sid) {
        if (skip[sid]) continue;
        Alternative alt{static_cast<int32_t>(sid), {}, 0, false};
        for (const auto& [kind, value] : g.rules[sid]) {
            if (kind == RULE_REF) {
                alt.refs.push_back(value);
                if (!alt.terminal) alt.lead = alt.refs.size();
            } else if (kind == ALT || kind == END) {
                alts.push_back(std::move(alt));
                if (kind == END) break;
                alt = Alternative{static_cast<int32_t>(sid), {}, 0, false};
            } else {
                alt.terminal = true;
            }
        }
    }
    return alts;
}

// Least fixed point: a rule holds when one alternative has only holding references (and, unless
// ignore_terminals, no terminal).
inline std::vector<uint8_t> closure(size_t n, const std::vector<Alternative>& alts,
                                    const std::vector<std::vector<int32_t>>& users, bool ignore_terminals,
                                    const std::vector<uint8_t>& given) {
    std::vector<uint8_t> holds(given);
    std::vector<int64_t> pending(alts.size());
    std::vector<int32_t> todo;
    for (size_t i = 0; i < alts.size(); ++i) {
        pending[i] = ignore_terminals || !alts[i].terminal ? static_cast<int64_t>(alts[i].refs.size()) : -1;
        if (pending[i] == 0 && !holds[alts[i].owner]) {
            holds[alts[i].owner] = 1;
            todo.push_back(alts[i].owner);
        }
    }
    while (!todo.empty()) {
        int32_t sid = todo.back();
        todo.pop_back();
        for (int32_t index : users[sid]) {
            if (--pending[index] == 0 && !holds[alts[index].owner]) {
                holds[alts[index].owner] = 1;
                todo.push_back(alts[index].owner);
            }
        }
    }
    (void)n;
    return holds;
}

// Whether some cycle of leftmost references has a non-tail edge (left recursion): Tarjan's SCCs, then any
// non-tail edge inside one component.
inline bool left_recursive(size_t n, const std::vector<Alternative>& alts, const std::vector<uint8_t>& nullable) {
    std::vector<std::vector<std::pair<int32_t, bool>>> edges(n);
    for (const auto& alt : alts) {
        if (alt.lead == 0) continue;
        const bool whole = !alt.terminal;
        const size_t last = whole ? alt.lead - 1 : SIZE_MAX;
        for (size_t i = 0; i < alt.lead; ++i) {
            int32_t value = alt.refs[i];
            edges[alt.owner].emplace_back(value, i == last);
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
            auto& [node, i] = work.back();
            if (i < edges[node].size()) {
                int32_t succ = edges[node][i++].first;
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
            int32_t done = node;
            work.pop_back();
            if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
            if (low[done] == index[done]) {
                while (true) {
                    int32_t member = stack.back();
                    stack.pop_back();
                    on_stack[member] = 0;
                    component[member] = components;
                    if (member == done) break;
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
    std::vector<Alternative> alts = split_all(g, inner);
    std::vector<std::vector<int32_t>> users(n);
    for (size_t i = 0; i < alts.size(); ++i)
        for (int32_t ref : alts[i].refs) users[ref].push_back(static_cast<int32_t>(i));
    std::vector<uint8_t> nullable = closure(n, alts, users, false, inner);
    if (left_recursive(n, alts, nullable)) throw GiveUp{};
    std::vector<uint8_t> productive = closure(n, alts, users, true, inner);
    std::vector<std::vector<int32_t>> successors(n);
    for (const auto& alt : alts)
        successors[alt.owner].insert(successors[alt.owner].end(), alt.refs.begin(), alt.refs.end());
    std::vector<uint8_t> seen(n, 0);
    std::vector<int32_t> todo{g.root};
    seen[g.root] = 1;
    while (!todo.empty()) {
        int32_t sid = todo.back();
        todo.pop_back();
        if (!productive[sid]) throw GiveUp{};
        for (int32_t next : successors[sid])
            if (!seen[next]) {
                seen[next] = 1;
                todo.push_back(next);
            }
    }
    g.nullable = std::move(nullable);
}

// Parse and check `text` (code points); false when the Python path must run (it reports the error).
inline bool build(const uint32_t* text, size_t n, const std::string& root, Built& out) {
    try {
        Parser parser(text, n);
        out = parser.run(root);
        check(out);
        return true;
    } catch (const GiveUp&) {
        return false;
    }
}

}  // namespace gbnf_build

}  // namespace pegchat

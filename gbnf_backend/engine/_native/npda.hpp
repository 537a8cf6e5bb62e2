// The grammar's nondeterministic pushdown automaton over code points, the C++ twin of gbnf_backend._npda.
//
// Positions index one flat element array (all rules end to end). A stack is an interned node (top position,
// parent node): frames share their tails, so memory stays linear in what is live (a left-nested chain of 100,000
// rules is one chain of 100,000 nodes). A state is the sorted set of live stacks whose tops are terminals (plus
// EMPTY when the grammar may end), interned to an int with per-state transition caches.
//
// Closure (advancing past rule references and ends of alternatives) is an explicit work list, never recursion.
// Every public step charges the closure edges it visits to a work budget and checks the live-stack cap while it
// proceeds, throwing LimitError at once instead of finishing an exponential amount of work first.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <deque>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "common.hpp"

namespace pegchat {

// One terminal: a character class (merged inclusive ranges, maybe negated) or a token reference.
struct Terminal {
    int32_t next = 0;  // position just past the terminal
    bool negated = false;
    bool is_token = false;
    std::array<uint64_t, 2> ascii{0, 0};
    std::vector<std::pair<uint32_t, uint32_t>> ranges;

    bool matches(uint32_t cp) const {
        if (is_token) return false;
        if (cp < 128) return (ascii[cp >> 6] >> (cp & 63)) & 1;
        auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(cp, MAX_CODE_POINT + 1));
        bool inside = it != ranges.begin() && cp <= std::prev(it)->second;
        return inside != negated;
    }

    // Whether some code point in [lo, hi] is accepted.
    bool intersects(uint32_t lo, uint32_t hi) const {
        if (is_token) return false;
        if (!negated) {
            for (const auto& r : ranges)
                if (r.first <= hi && lo <= r.second) return true;
            return false;
        }
        uint64_t covered = lo;
        for (const auto& r : ranges) {
            if (r.second < covered) continue;
            if (r.first > covered) return true;
            covered = static_cast<uint64_t>(r.second) + 1;
            if (covered > hi) return false;
        }
        return covered <= hi;
    }
};

// A set that lives in an inline array while small (a closure usually visits a handful of pairs: no allocation)
// and moves to a hash set when it grows.
template <typename T>
class SmallSet {
   public:
    // Inserts v; returns whether it was new.
    bool insert(T v) {
        if (n_ <= INLINE) {
            for (size_t i = 0; i < n_; ++i)
                if (inline_[i] == v) return false;
            if (n_ < INLINE) {
                inline_[n_++] = v;
                return true;
            }
            big_.insert(inline_.begin(), inline_.end());
            n_ = INLINE + 1;
        }
        return big_.insert(v).second;
    }

   private:
    static constexpr size_t INLINE = 32;
    std::array<T, INLINE> inline_{};
    size_t n_ = 0;  // INLINE + 1: the elements are in big_
    std::unordered_set<T> big_;
};

struct Limits {
    size_t max_stacks = 20000;    // live stacks in one state (gbnf_backend._npda.MAX_STACKS)
    size_t max_work = 250000;     // closure edges visited by one step
    size_t max_nodes = 50000000;  // interned stack nodes over the automaton's life
};

class Npda {
   public:
    // kinds/values: the flat element array; rule_start: first position of each rule plus the total (size
    // n_rules + 1); rule_nullable: per rule. Validates everything (a bad table is an InputError, never UB).
    Npda(std::vector<int32_t> kinds, std::vector<int32_t> values, std::vector<int32_t> rule_start,
         const std::vector<uint8_t>& rule_nullable, int32_t root, Limits limits)
        : kind_(std::move(kinds)), value_(std::move(values)), rule_start_(std::move(rule_start)), limits_(limits) {
        validate(rule_nullable, root);
        build_terminals();
        node_position_ = {-1, -1};
        node_parent_ = {-1, -1};
        begin_step();
        std::vector<int32_t> stacks;
        for (int32_t a : alts_[root]) {
            const auto& c = closure(push(a, EMPTY));
            stacks.insert(stacks.end(), c.begin(), c.end());
        }
        initial_ = intern(std::move(stacks));
    }

    int32_t initial() const { return initial_; }
    size_t n_positions() const { return kind_.size(); }
    size_t n_states() const { return states_.size(); }
    size_t n_nodes() const { return node_position_.size(); }
    const Limits& limits() const { return limits_; }
    int32_t kind(int32_t p) const { return kind_[p]; }
    int32_t value(int32_t p) const { return value_[p]; }
    int32_t node_position(int32_t n) const { return node_position_[n]; }
    int32_t node_parent(int32_t n) const { return node_parent_[n]; }
    const Terminal& terminal(int32_t p) const { return terminals_[terminal_of_[p]]; }

    const std::vector<int32_t>& stacks(int32_t state) const {
        check_state(state);
        return states_[state].stacks;
    }

    void check_state(int32_t state) const {
        if (state < 0 || static_cast<size_t>(state) >= states_.size())
            throw InputError("unknown automaton state " + std::to_string(state));
    }

    // Starts a new unit of bounded work (one step seen from outside).
    void begin_step() { work_ = 0; }

    bool can_end(int32_t state) const {
        if (state == DEAD) return false;
        const auto& s = stacks(state);
        return !s.empty() && s[0] == EMPTY;
    }

    // The state after one code point (DEAD if refused); cached per state.
    int32_t step_char(int32_t state, uint32_t cp) {
        check_state(state);
        if (cp < 128) {
            int32_t found = states_[state].ascii[cp];
            if (found != NOT_COMPUTED) return found;
        } else {
            auto& other = states_[state].other;
            auto it = other.find(cp);
            if (it != other.end()) return it->second;
        }
        std::vector<int32_t> out;
        // states_ is a deque: interning below never moves this state's stacks.
        const std::vector<int32_t>& current = states_[state].stacks;
        for (int32_t stack : current) {
            if (stack <= SENTINEL) continue;
            int32_t p = node_position_[stack];
            const Terminal& t = terminals_[terminal_of_[p]];
            if (!t.matches(cp)) continue;
            const auto& c = closure(push(t.next, node_parent_[stack]));
            out.insert(out.end(), c.begin(), c.end());
            if (out.size() > 4 * limits_.max_stacks) squeeze(out);
        }
        int32_t result = intern(std::move(out));
        if (cp < 128)
            states_[state].ascii[cp] = result;
        else
            states_[state].other.emplace(cp, result);
        return result;
    }

    // The state after stacks topped by <[id]> (or !<[other]>) consume one token (DEAD if none).
    int32_t step_token_reference(int32_t state, int64_t token_id) {
        check_state(state);
        std::vector<int32_t> out;
        const std::vector<int32_t>& current = states_[state].stacks;
        for (int32_t stack : current) {
            if (stack <= SENTINEL) continue;
            int32_t p = node_position_[stack];
            int32_t k = kind_[p];
            if ((k == TOKEN && value_[p] == token_id) || (k == TOKEN_NOT && value_[p] != token_id)) {
                const auto& c = closure(push(p + 1, node_parent_[stack]));
                out.insert(out.end(), c.begin(), c.end());
            }
        }
        return intern(std::move(out));
    }

    int32_t union_states(int32_t a, int32_t b) {
        if (a == DEAD) return b;
        if (b == DEAD || a == b) return a;
        std::vector<int32_t> out = stacks(a);
        const auto& sb = stacks(b);
        out.insert(out.end(), sb.begin(), sb.end());
        return intern(std::move(out));
    }

    // Whether some stack of the state accepts some code point in [lo, hi].
    bool accepts_in_range(int32_t state, uint32_t lo, uint32_t hi) const {
        for (int32_t stack : stacks(state)) {
            if (stack <= SENTINEL) continue;
            if (terminals_[terminal_of_[node_position_[stack]]].intersects(lo, hi)) return true;
        }
        return false;
    }

    // Sets the canonical position of every position (see gbnf_backend/_native/_chains.py); empty = identity.
    // A canonical position must have the same element kind as its position.
    void set_canonical(std::vector<int32_t> canonical) {
        if (!canonical.empty()) {
            if (canonical.size() != kind_.size()) throw InputError("canonical has the wrong length");
            for (size_t p = 0; p < canonical.size(); ++p) {
                int32_t c = canonical[p];
                if (c < 0 || static_cast<size_t>(c) >= kind_.size() || kind_[c] != kind_[p] ||
                    (is_token_kind(kind_[p]) && value_[c] != value_[p]))
                    throw InputError("canonical position of " + std::to_string(p) + " is not like it");
            }
        }
        canonical_ = std::move(canonical);
        canonical_nodes_.clear();
        canonical_states_.clear();
    }

    // The state with every stack's positions canonical: tokens (shorter than the repetitions left) cannot tell the
    // two apart, so they share one mask. Memoised per node and per state.
    int32_t canonical_state(int32_t state) {
        check_state(state);
        if (canonical_.empty()) return state;
        auto found = canonical_states_.find(state);
        if (found != canonical_states_.end()) return found->second;
        std::vector<int32_t> out;
        const std::vector<int32_t>& current = states_[state].stacks;
        for (int32_t stack : current) out.push_back(canonical_node(stack));
        int32_t result = intern(std::move(out));
        canonical_states_.emplace(state, result);
        return result;
    }

    // Sets the short-link relaxation (see chains.hpp): per position the repetitions left (0: none) and its twin.
    void set_relaxation(std::vector<int32_t> left, std::vector<int32_t> twin) {
        if (left.empty()) return;
        if (left.size() != kind_.size() || twin.size() != kind_.size()) throw InputError("relaxation size");
        for (size_t p = 0; p < left.size(); ++p) {
            if (left[p] == 0) continue;
            int32_t c = twin[p];
            if (left[p] < 0 || c < 0 || static_cast<size_t>(c) >= kind_.size() || kind_[c] != kind_[p] ||
                (is_token_kind(kind_[p]) && value_[c] != value_[p]))
                throw InputError("relaxed twin of " + std::to_string(p) + " is not like it");
        }
        short_left_ = std::move(left);
        short_twin_ = std::move(twin);
    }

    // (the state with every short link replaced by its loop twin, the fewest repetitions left among them); the
    // state itself and INT32_MAX when it has none. Memoised per node and per state.
    std::pair<int32_t, int32_t> relaxed_state(int32_t state) {
        check_state(state);
        if (short_left_.empty()) return {state, INT32_MAX};
        auto found = relaxed_states_.find(state);
        if (found != relaxed_states_.end()) return found->second;
        std::vector<int32_t> out;
        int32_t fewest = INT32_MAX;
        const std::vector<int32_t>& current = states_[state].stacks;
        for (int32_t stack : current) {
            auto r = relaxed_node(stack);
            out.push_back(r.first);
            fewest = std::min(fewest, r.second);
        }
        std::pair<int32_t, int32_t> result{fewest == INT32_MAX ? state : intern(std::move(out)), fewest};
        relaxed_states_.emplace(state, result);
        return result;
    }

    // Positions of a stack, top first (for tests).
    std::vector<int32_t> stack_positions(int32_t node) const {
        if (node < 0 || static_cast<size_t>(node) >= node_position_.size()) throw InputError("unknown stack node");
        std::vector<int32_t> out;
        while (node > SENTINEL) {
            out.push_back(node_position_[node]);
            node = node_parent_[node];
        }
        return out;
    }

    size_t memory_bytes() const {
        size_t total = (kind_.size() + value_.size() + terminal_of_.size()) * 4;
        total += node_position_.size() * 8 + node_index_.size() * 24;
        for (const auto& s : states_) total += sizeof(StateInfo) + s.stacks.size() * 4 + s.other.size() * 16;
        for (const auto& kv : closures_) total += 32 + kv.second.size() * 4;
        return total;
    }

   private:
    static constexpr int32_t NOT_COMPUTED = -2;

    std::pair<int32_t, int32_t> relaxed_node(int32_t node) {
        std::vector<int32_t> pending;
        auto known = [&](int32_t n) { return n <= SENTINEL || relaxed_nodes_.count(n) > 0; };
        while (!known(node)) {
            pending.push_back(node);
            node = node_parent_[node];
        }
        std::pair<int32_t, int32_t> below =
            node <= SENTINEL ? std::make_pair(node, INT32_MAX) : relaxed_nodes_[node];
        for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
            int32_t p = node_position_[*it];
            int32_t fewest = below.second;
            if (short_left_[p] > 0) {
                fewest = std::min(fewest, short_left_[p]);
                p = short_twin_[p];
            }
            below = {push(p, below.first), fewest};
            relaxed_nodes_[*it] = below;
        }
        return below;
    }

    int32_t canonical_node(int32_t node) {
        std::vector<int32_t> pending;
        auto known = [&](int32_t n) { return n <= SENTINEL || canonical_nodes_.count(n) > 0; };
        while (!known(node)) {
            pending.push_back(node);
            node = node_parent_[node];
        }
        int32_t below = node <= SENTINEL ? node : canonical_nodes_[node];
        for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
            below = push(canonical_[node_position_[*it]], below);
            canonical_nodes_[*it] = below;
        }
        return below;
    }

    struct StateInfo {
        std::vector<int32_t> stacks;
        std::array<int32_t, 128> ascii;
        std::unordered_map<uint32_t, int32_t> other;
    };

    void validate(const std::vector<uint8_t>& rule_nullable, int32_t root) {
        const size_t n = kind_.size();
        if (value_.size() != n) throw InputError("kinds and values differ in length");
        if (rule_start_.size() < 2) throw InputError("a grammar needs at least one rule");
        const size_t n_rules = rule_start_.size() - 1;
        if (rule_nullable.size() != n_rules) throw InputError("rule_nullable has the wrong length");
        if (rule_start_[0] != 0 || static_cast<size_t>(rule_start_.back()) != n)
            throw InputError("rule_start must begin at 0 and end at the number of elements");
        for (size_t r = 0; r < n_rules; ++r) {
            if (rule_start_[r + 1] <= rule_start_[r]) throw InputError("rule " + std::to_string(r) + " is empty");
            if (kind_[rule_start_[r + 1] - 1] != END)
                throw InputError("rule " + std::to_string(r) + " does not end with END");
        }
        if (root < 0 || static_cast<size_t>(root) >= n_rules) throw InputError("root rule out of range");
        for (size_t p = 0; p < n; ++p) {
            int32_t k = kind_[p];
            if (k < END || k > TOKEN_NOT) throw InputError("bad element kind at position " + std::to_string(p));
            int32_t v = value_[p];
            if (k == RULE_REF && (v < 0 || static_cast<size_t>(v) >= n_rules))
                throw InputError("rule reference out of range at position " + std::to_string(p));
            if ((k == CHAR || k == CHAR_NOT || k == CHAR_ALT || k == CHAR_RNG_UPPER) &&
                (v < 0 || static_cast<uint32_t>(v) > MAX_CODE_POINT))
                throw InputError("code point out of range at position " + std::to_string(p));
            if ((k == CHAR_ALT || k == CHAR_RNG_UPPER) &&
                (p == 0 || !(kind_[p - 1] == CHAR || kind_[p - 1] == CHAR_NOT || kind_[p - 1] == CHAR_ALT ||
                             kind_[p - 1] == CHAR_RNG_UPPER)))
                throw InputError("class member outside a class at position " + std::to_string(p));
        }
        alts_.resize(n_rules);
        for (size_t r = 0; r < n_rules; ++r) {
            alts_[r].push_back(rule_start_[r]);
            for (int32_t p = rule_start_[r]; p < rule_start_[r + 1] - 1; ++p)
                if (kind_[p] == ALT) alts_[r].push_back(p + 1);
        }
    }

    void build_terminals() {
        const int32_t n = static_cast<int32_t>(kind_.size());
        terminal_of_.assign(n, 0);
        terminals_.emplace_back();  // index 0: "not a terminal" (matches nothing)
        terminals_[0].is_token = true;
        for (int32_t p = 0; p < n; ++p) {
            int32_t k = kind_[p];
            if (k != CHAR && k != CHAR_NOT && k != CHAR_ANY && !is_token_kind(k)) continue;
            Terminal t;
            if (is_token_kind(k)) {
                t.is_token = true;
                t.next = p + 1;
            } else if (k == CHAR_ANY) {
                t.ranges.push_back({0, MAX_CODE_POINT});
                t.next = p + 1;
            } else {
                t.negated = k == CHAR_NOT;
                std::vector<std::pair<uint32_t, uint32_t>> members;
                int32_t q = p;
                do {
                    uint32_t v = static_cast<uint32_t>(value_[q]);
                    if (kind_[q] == CHAR_RNG_UPPER)
                        members.back().second = v;
                    else
                        members.push_back({v, v});
                    ++q;
                } while (q < n && (kind_[q] == CHAR_ALT || kind_[q] == CHAR_RNG_UPPER));
                t.next = q;
                std::vector<std::pair<uint32_t, uint32_t>> valid;
                for (const auto& m : members)
                    if (m.first <= m.second) valid.push_back(m);
                std::sort(valid.begin(), valid.end());
                for (const auto& m : valid) {
                    if (!t.ranges.empty() && m.first <= t.ranges.back().second + 1)
                        t.ranges.back().second = std::max(t.ranges.back().second, m.second);
                    else
                        t.ranges.push_back(m);
                }
            }
            if (!t.is_token) {
                for (const auto& r : t.ranges) {
                    if (r.first > 127) break;
                    for (uint32_t cp = r.first; cp <= std::min<uint32_t>(r.second, 127); ++cp)
                        t.ascii[cp >> 6] |= 1ULL << (cp & 63);
                }
                if (t.negated) {
                    t.ascii[0] = ~t.ascii[0];
                    t.ascii[1] = ~t.ascii[1];
                }
            }
            terminal_of_[p] = static_cast<int32_t>(terminals_.size());
            terminals_.push_back(std::move(t));
        }
    }

    int32_t push(int32_t position, int32_t parent) {
        uint64_t key = pair_key(position, parent);
        auto it = node_index_.find(key);
        if (it != node_index_.end()) return it->second;
        if (node_position_.size() >= limits_.max_nodes)
            throw LimitError("grammar too ambiguous: more than " + std::to_string(limits_.max_nodes) + " stack nodes");
        int32_t node = static_cast<int32_t>(node_position_.size());
        node_position_.push_back(position);
        node_parent_.push_back(parent);
        node_index_.emplace(key, node);
        return node;
    }

    void charge(size_t amount) {
        work_ += amount;
        if (work_ > limits_.max_work)
            throw LimitError("grammar too ambiguous: one step needed more than " + std::to_string(limits_.max_work) +
                             " closure steps");
    }

    static void squeeze(std::vector<int32_t>& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }

    // The terminal-topped stacks reached from stack `node` (whose top may be any position); may contain EMPTY or
    // SENTINEL. Cached per node. Work list over (position, parent) pairs, each visited once.
    const std::vector<int32_t>& closure(int32_t node) {
        auto found = closures_.find(node);
        if (found != closures_.end()) return found->second;
        std::vector<int32_t> out;
        SmallSet<uint64_t> seen;
        SmallSet<int32_t> emitted;
        std::vector<std::pair<int32_t, int32_t>> todo{{node_position_[node], node_parent_[node]}};
        auto emit = [&](int32_t stack) {
            if (emitted.insert(stack)) {
                out.push_back(stack);
                if (out.size() > limits_.max_stacks)
                    throw LimitError("grammar too ambiguous: more than " + std::to_string(limits_.max_stacks) + " live stacks");
            }
        };
        while (!todo.empty()) {
            auto [p, parent] = todo.back();
            todo.pop_back();
            if (!seen.insert(pair_key(p, parent))) continue;
            charge(1);
            int32_t k = kind_[p];
            if (is_end_kind(k)) {
                if (parent <= SENTINEL)
                    emit(parent);
                else
                    todo.push_back({node_position_[parent], node_parent_[parent]});
            } else if (k == RULE_REF) {
                int32_t after = p + 1;
                // A reference in tail position pushes no return address (right recursion in constant depth).
                int32_t below = is_end_kind(kind_[after]) ? parent : push(after, parent);
                for (int32_t a : alts_[value_[p]]) todo.push_back({a, below});
            } else if (k == CHAR || k == CHAR_NOT || k == CHAR_ANY || is_token_kind(k)) {
                emit(push(p, parent));
            } else {
                throw InputError("position " + std::to_string(p) + " is inside a character class");
            }
        }
        std::sort(out.begin(), out.end());
        return closures_.emplace(node, std::move(out)).first->second;
    }

    int32_t intern(std::vector<int32_t> stacks) {
        squeeze(stacks);
        if (stacks.empty()) return DEAD;
        if (stacks.size() > limits_.max_stacks)
            throw LimitError("grammar too ambiguous: more than " + std::to_string(limits_.max_stacks) + " live stacks");
        // Indexed by the stacks' hash (no second copy of them, cheap rehashing); equal hashes compare the stacks.
        const uint64_t hash = VectorHash{}(stacks);
        auto range = state_index_.equal_range(hash);
        for (auto it = range.first; it != range.second; ++it)
            if (states_[it->second].stacks == stacks) return it->second;
        int32_t id = static_cast<int32_t>(states_.size());
        states_.emplace_back();
        StateInfo& info = states_.back();
        info.stacks = std::move(stacks);
        info.ascii.fill(NOT_COMPUTED);
        state_index_.emplace(hash, id);
        return id;
    }

    std::vector<int32_t> kind_, value_, rule_start_;
    Limits limits_;
    std::vector<std::vector<int32_t>> alts_;
    std::vector<Terminal> terminals_;
    std::vector<int32_t> terminal_of_;
    std::vector<int32_t> node_position_, node_parent_;
    std::unordered_map<uint64_t, int32_t> node_index_;
    std::unordered_map<int32_t, std::vector<int32_t>> closures_;
    std::deque<StateInfo> states_;  // a deque: a state's stacks stay put while new states are interned
    std::unordered_multimap<uint64_t, int32_t> state_index_;
    std::vector<int32_t> canonical_, short_left_, short_twin_;
    std::unordered_map<int32_t, std::pair<int32_t, int32_t>> relaxed_nodes_, relaxed_states_;
    std::unordered_map<int32_t, int32_t> canonical_nodes_, canonical_states_;
    int32_t initial_ = DEAD;
    size_t work_ = 0;
};

}  // namespace pegchat

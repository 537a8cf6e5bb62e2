// The element tables of a grammar as the core builds them from the Python rules, with one synthetic loop per
// repeated unit of a long bounded repetition and the canonical position of every position.
//
// A link of a repetition chain S{0,n} with more repetitions left than any token is long behaves, for one token,
// like the unit's unbounded loop `loop ::= unit loop |`; links with fewer left map to the link of the unit's
// longest chain with as many left; positions followed by identical elements (references compared after that
// mapping) share one representative. Masks are computed per canonical state (see Npda::canonical_state), so
// `char{0,2000}` costs what `char*` costs. The same idea as gbnf_backend._mask_engine; linear in the grammar.
#pragma once

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>
#include <vector>

#include "common.hpp"

namespace pegchat {

using ElementPair = std::pair<int32_t, int32_t>;

struct ChainInput {
    std::vector<int32_t> rule_ids;  // the chain's helper rules; rule_ids[k] may still repeat n - k times
    std::vector<ElementPair> unit;  // the repeated item's elements
};

struct Tables {
    std::vector<int32_t> kinds, values, rule_start;
    std::vector<uint8_t> nullable;
    std::vector<int32_t> canonical;  // empty when there is no vocabulary (no masks)
    // Per canonical position of a short link (fewer repetitions left than a token may be long): the repetitions
    // left (0: not a short link) and the canonical position of its relaxed twin in the unit's loop.
    std::vector<int32_t> short_left, short_twin;
};

// A lower bound on the bytes every string of each rule takes (a character or a token reference counts one),
// by iterating to a fixed point; capped so that sums cannot overflow.
inline std::vector<int64_t> shortest_rules(const std::vector<std::vector<ElementPair>>& rules) {
    const int64_t cap = 1 << 20;
    std::vector<int64_t> shortest(rules.size(), cap);
    auto element_length = [&](const ElementPair& e) -> int64_t {
        if (e.first == RULE_REF) return e.second >= 0 && static_cast<size_t>(e.second) < rules.size() ? shortest[e.second] : cap;
        if (e.first == CHAR || e.first == CHAR_NOT || e.first == CHAR_ANY || is_token_kind(e.first)) return 1;
        return 0;  // class members, ends of alternatives
    };
    for (size_t round = 0; round <= rules.size(); ++round) {
        bool changed = false;
        for (size_t r = 0; r < rules.size(); ++r) {
            int64_t best = cap, sum = 0;
            for (const ElementPair& e : rules[r]) {
                if (is_end_kind(e.first)) {
                    best = std::min(best, sum);
                    sum = 0;
                } else {
                    sum = std::min(cap, sum + element_length(e));
                }
            }
            if (best < shortest[r]) {
                shortest[r] = best;
                changed = true;
            }
        }
        if (!changed) break;
    }
    return shortest;
}

inline Tables build_tables(const std::vector<std::vector<ElementPair>>& rules, const std::vector<uint8_t>& nullable,
                           const std::vector<ChainInput>& chains, int64_t max_token_length, bool with_canonical) {
    if (nullable.size() != rules.size()) throw InputError("nullable and rules differ in length");
    const int32_t n_rules = static_cast<int32_t>(rules.size());
    auto rule_ok = [&](int32_t r) { return r >= 0 && r < n_rules; };
    // Units whose chains get a loop, with the longest chain of each (first appearance keeps the numbering stable).
    std::map<std::vector<ElementPair>, size_t> unit_index;
    std::vector<std::vector<ElementPair>> units;
    std::vector<const std::vector<int32_t>*> longest;
    for (const ChainInput& chain : chains) {
        for (int32_t r : chain.rule_ids)
            if (!rule_ok(r)) throw InputError("chain rule id out of range");
        bool skippable = !chain.unit.empty();
        for (const ElementPair& e : chain.unit)
            skippable = skippable && e.first == RULE_REF && rule_ok(e.second) && nullable[e.second];
        if (skippable || !with_canonical) continue;  // an empty-able unit: links are not interchangeable counters
        auto found = unit_index.find(chain.unit);
        if (found == unit_index.end()) {
            unit_index.emplace(chain.unit, units.size());
            units.push_back(chain.unit);
            longest.push_back(&chain.rule_ids);
        } else if (chain.rule_ids.size() > longest[found->second]->size()) {
            longest[found->second] = &chain.rule_ids;
        }
    }
    Tables t;
    std::vector<int32_t> rule_of;
    auto append_rule = [&](const std::vector<ElementPair>& rule, int32_t id) {
        t.rule_start.push_back(static_cast<int32_t>(t.kinds.size()));
        for (const ElementPair& e : rule) {
            t.kinds.push_back(e.first);
            t.values.push_back(e.second);
            rule_of.push_back(id);
        }
    };
    for (int32_t r = 0; r < n_rules; ++r) append_rule(rules[r], r);
    t.nullable = nullable;
    std::vector<int32_t> loop_of(units.size());
    for (size_t u = 0; u < units.size(); ++u) {
        int32_t id = n_rules + static_cast<int32_t>(u);
        std::vector<ElementPair> loop = units[u];
        loop.push_back({RULE_REF, id});
        loop.push_back({ALT, 0});
        loop.push_back({END, 0});
        append_rule(loop, id);
        t.nullable.push_back(1);
        loop_of[u] = id;
    }
    // Rules repeated in runs (x{44} is 44 references in a row) get an endless loop `ever ::= x ever` (no way out):
    // a run position with c copies left behaves like it for every token shorter than c copies (see below).
    std::vector<int64_t> shortest_all = shortest_rules(rules);
    std::map<int32_t, int32_t> endless_of;  // referenced rule -> its endless loop's rule id
    if (with_canonical) {
        for (int32_t r = 0; r < n_rules; ++r) {
            const std::vector<ElementPair>& rule = rules[r];
            for (size_t i = 0; i + 1 < rule.size(); ++i) {
                const ElementPair& e = rule[i];
                if (e.first != RULE_REF || !rule_ok(e.second) || rule[i + 1] != e) continue;
                if (shortest_all[e.second] < 1 || endless_of.count(e.second)) continue;
                int32_t id = n_rules + static_cast<int32_t>(units.size() + endless_of.size());
                endless_of.emplace(e.second, id);
                append_rule({{RULE_REF, e.second}, {RULE_REF, id}, {END, 0}}, id);
                t.nullable.push_back(0);
            }
        }
    }
    t.rule_start.push_back(static_cast<int32_t>(t.kinds.size()));
    if (!with_canonical) return t;
    const int64_t threshold = max_token_length + 2;
    // A repetition takes at least `unit_bytes` bytes, so `left` of them outlast any token of left * unit_bytes.
    const std::vector<int64_t>& shortest = shortest_all;
    std::vector<int64_t> unit_bytes(units.size(), 1);
    for (size_t u = 0; u < units.size(); ++u) {
        int64_t bytes = 0;
        for (const ElementPair& e : units[u]) {
            if (e.first == RULE_REF && rule_ok(e.second))
                bytes += shortest[e.second];
            else if (e.first == CHAR || e.first == CHAR_NOT || e.first == CHAR_ANY || is_token_kind(e.first))
                bytes += 1;
        }
        unit_bytes[u] = std::max<int64_t>(1, std::min<int64_t>(bytes, 1 << 16));
    }
    std::unordered_map<int32_t, int32_t> rule_map;
    for (const ChainInput& chain : chains) {
        auto found = unit_index.find(chain.unit);
        if (found == unit_index.end()) continue;
        const std::vector<int32_t>& links = *longest[found->second];
        const int64_t n = static_cast<int64_t>(chain.rule_ids.size()), m = static_cast<int64_t>(links.size());
        const int64_t per_unit = unit_bytes[found->second];
        for (int64_t k = 0; k < n; ++k) {
            int64_t left = n - k;
            // The loop stands in only for links laid out like it (unit, next link, "|", end): the last link of a
            // chain has no next link, and a position maps to the same offset in its target.
            const int32_t link = chain.rule_ids[k];
            const int32_t loop = loop_of[found->second];
            const bool same_layout = rules[link].size() == units[found->second].size() + 3;
            int32_t target = left * per_unit >= threshold && same_layout ? loop : links[m - left];
            if (target != link) rule_map[link] = target;
        }
    }
    // Representatives: one backward pass; every end of an alternative behaves alike (pop).
    const size_t size = t.kinds.size();
    std::vector<int32_t> class_of(size, -1);
    std::map<std::tuple<int32_t, int32_t, int32_t>, int32_t> classes;
    for (size_t i = size; i-- > 0;) {
        int32_t kind = t.kinds[i];
        if (is_end_kind(kind)) continue;
        int32_t value = t.values[i];
        if (kind == RULE_REF) {
            auto mapped = rule_map.find(value);
            if (mapped != rule_map.end()) value = mapped->second;
        }
        int32_t after = i + 1 < size ? class_of[i + 1] : -1;
        auto key = std::make_tuple(kind, value, after);
        auto found = classes.find(key);
        if (found == classes.end()) found = classes.emplace(key, static_cast<int32_t>(classes.size())).first;
        class_of[i] = found->second;
    }
    std::vector<int32_t> first(classes.size(), -1), representative(size);
    for (size_t i = 0; i < size; ++i) {
        if (class_of[i] < 0) {
            representative[i] = static_cast<int32_t>(i);
        } else {
            if (first[class_of[i]] < 0) first[class_of[i]] = static_cast<int32_t>(i);
            representative[i] = first[class_of[i]];
        }
    }
    // Runs of one rule reference repeated in sequence (x{45} is 45 references): a position with more copies left
    // than any token can consume maps to the position in its run with just enough left (no token reaches what
    // follows the run from either), so a long exact repetition costs a handful of states, not one per copy.
    std::vector<int32_t> run_target(size), run_left(size, 0);
    for (size_t i = 0; i < size; ++i) run_target[i] = static_cast<int32_t>(i);
    for (size_t i = 0; i < size;) {
        size_t j = i;
        while (j < size && t.kinds[j] == RULE_REF && t.kinds[i] == RULE_REF && t.values[j] == t.values[i] &&
               rule_of[j] == rule_of[i])
            ++j;
        if (j - i >= 2) {
            int32_t ref = t.values[i];
            int64_t bytes = static_cast<size_t>(ref) < shortest_all.size() ? shortest_all[ref] : 0;
            if (bytes >= 1) {
                const int64_t enough = (threshold + bytes - 1) / bytes;  // copies no token can get through
                const int64_t n = static_cast<int64_t>(j - i);
                for (int64_t k = 0; k < n; ++k) {
                    if (n - k > enough) run_target[i + k] = static_cast<int32_t>(i + (n - enough));
                    run_left[i + k] = static_cast<int32_t>(std::min(n - k, enough));
                }
            }
            i = j;
        } else {
            i = std::max(j, i + 1);
        }
    }
    t.canonical.resize(size);
    for (size_t i = 0; i < size; ++i) {
        int32_t position = static_cast<int32_t>(i);
        auto mapped = rule_map.find(rule_of[i]);
        if (mapped != rule_map.end()) {
            int64_t moved = static_cast<int64_t>(t.rule_start[mapped->second]) + (position - t.rule_start[rule_of[i]]);
            if (moved < 0 || static_cast<size_t>(moved) >= size) throw InputError("a repetition link is longer than its twin");
            position = static_cast<int32_t>(moved);
        }
        t.canonical[i] = representative[run_target[position]];
    }
    // A short link with `left` repetitions left decides every token of at most `left` bytes like its loop does
    // (each repetition consumes a byte): masks take those tokens from the relaxed state (see MaskEngine).
    t.short_left.assign(size, 0);
    t.short_twin.assign(size, -1);
    // A run position (a return address inside x{n}) with c copies of x left: leaving the run takes at least
    // c * shortest(x) bytes, so every token with fewer bytes left steps exactly as under the endless loop
    // `ever ::= x ever`. Every position inside a block (json--char{44}) thus shares one relaxed state.
    for (size_t i = 0; i < size; ++i) {
        if (run_left[i] == 0 || rule_map.count(rule_of[i])) continue;
        auto endless = endless_of.find(t.values[i]);
        if (endless == endless_of.end()) continue;
        const int64_t left = static_cast<int64_t>(run_left[i]) * shortest_all[t.values[i]] - 1;
        if (left < 1) continue;
        int32_t position = t.canonical[i];
        t.short_left[position] = static_cast<int32_t>(std::min<int64_t>(left, INT32_MAX / 2));
        t.short_twin[position] = t.canonical[t.rule_start[endless->second]];
    }
    for (size_t u = 0; u < units.size(); ++u) {
        const std::vector<int32_t>& links = *longest[u];
        const int64_t m = static_cast<int64_t>(links.size());
        const int32_t loop = loop_of[u];
        for (int64_t left = 1; left <= m && left * unit_bytes[u] < threshold; ++left) {
            int32_t link = links[m - left];
            int32_t length = t.rule_start[link + 1] - t.rule_start[link];
            if (length != t.rule_start[loop + 1] - t.rule_start[loop]) continue;  // not the loop's layout
            for (int32_t offset = 0; offset < length; ++offset) {
                int32_t position = representative[t.rule_start[link] + offset];
                t.short_left[position] = static_cast<int32_t>(std::min<int64_t>(left * unit_bytes[u], INT32_MAX / 2));
                t.short_twin[position] = t.canonical[t.rule_start[loop] + offset];
            }
        }
    }
    return t;
}

}  // namespace pegchat

// Exact token masks for one grammar over one vocabulary (the compiled grammar many matchers share).
//
// A *byte state* is (NPDA state, partial UTF-8 character), interned to an int with a lazily filled 256-entry
// transition row; id 0 is DEAD. The text part of a mask is a forward scan of a preorder trie that keeps the byte
// state of every depth and skips the subtree of every dead node (one table lookup per live trie node); states
// inside character-class loops scan much less (see text_mask: loop signatures, relaxed twins, one character
// before a loop, each with a vocabulary-level bitmask). Token references, !<[id]> and EOS are added from the
// state's stacks. Masks are cached per (NPDA state, partial character). Every method locks the engine: matchers in
// different threads may share it.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "npda.hpp"
#include "utf8.hpp"
#include "vocab_trie.hpp"

namespace pegchat {

class MaskEngine {
   public:
    MaskEngine(std::unique_ptr<Npda> npda, std::shared_ptr<const VocabTrie> trie)
        : npda_(std::move(npda)), trie_(std::move(trie)) {
        keys_.push_back({DEAD, NO_PARTIAL});
        table_.assign(256, DEAD_ID);
    }

    Npda& npda() { return *npda_; }
    bool has_trie() const { return trie_ != nullptr; }
    const VocabTrie& trie() const {
        if (!trie_) throw InputError("this automaton was built without a vocabulary");
        return *trie_;
    }
    std::mutex& mutex() { return mutex_; }

    // The mask of (state, partial), computed on first use and cached (caller holds mutex(); the reference is valid
    // until the next call). Throws LimitError.
    const std::vector<uint32_t>& mask(int32_t state, Partial partial) {
        npda_->begin_step();
        state = npda_->canonical_state(state);
        uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(state)) << 32) | partial;
        auto it = masks_.find(key);
        if (it == masks_.end()) {
            std::vector<uint32_t> words = compute(state, partial);
            if (masks_.size() >= MASK_CACHE_LIMIT) masks_.clear();
            it = masks_.emplace(key, std::move(words)).first;
        } else {
            ++stats_.mask_hits;
        }
        return it->second;
    }

    // Writes the mask of (state, partial) into out[0..n_words) (caller holds mutex()). Throws LimitError.
    void write_mask(int32_t state, Partial partial, uint32_t* out) {
        const std::vector<uint32_t>& words = mask(state, partial);
        std::copy(words.begin(), words.end(), out);
    }

    // Preserved special tokens (e.g. [TOOL_CALLS]) stand for their text as well as for <[id]> references.
    void set_preserved(std::vector<int64_t> ids) {
        const VocabTrie& vocab = trie();
        for (int64_t t : ids)
            if (t < 0 || static_cast<uint64_t>(t) >= vocab.size() || !vocab.is_special(static_cast<size_t>(t)))
                throw InputError("preserved token " + std::to_string(t) + " is not a special token of the vocabulary");
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        preserved_ = std::move(ids);
        masks_.clear();
        text_masks_.clear();
    }
    bool is_preserved(int64_t t) const { return std::binary_search(preserved_.begin(), preserved_.end(), t); }

    // (state, partial) after preserved token t: its bytes, or a reference to it, or both (caller holds mutex()).
    std::pair<int32_t, Partial> preserved_allowed(int32_t state, Partial partial, int64_t t) {
        const std::string& bytes = trie().bytes_of(static_cast<size_t>(t));
        npda_->begin_step();
        auto fed = feed_bytes(*npda_, state, partial, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        int32_t referenced = partial == NO_PARTIAL ? npda_->step_token_reference(state, t) : DEAD;
        if (fed.first != DEAD && referenced != DEAD && fed.second == NO_PARTIAL)
            return {npda_->union_states(fed.first, referenced), NO_PARTIAL};
        if (fed.first != DEAD) return fed;
        return {referenced, NO_PARTIAL};
    }

    struct Stats {
        size_t masks = 0, mask_hits = 0, byte_states = 0, nodes_walked = 0;
    };
    Stats stats() const {
        Stats s = stats_;
        s.byte_states = keys_.size();
        return s;
    }

    size_t memory_bytes() const {
        size_t total = sizeof(*this) + npda_->memory_bytes() + table_.size() * 4 + keys_.size() * 24 + key_index_.size() * 24;
        for (const auto& kv : masks_) total += 48 + kv.second.size() * 4;
        for (const auto& kv : text_masks_) total += 48 + kv.second.size() * 4;
        return total;
    }

   private:
    static constexpr int32_t DEAD_ID = 0;
    static constexpr int32_t NOT_COMPUTED = -1;
    static constexpr size_t MASK_CACHE_LIMIT = 8192;

    int32_t byte_state(int32_t state, Partial partial) {
        if (state == DEAD) return DEAD_ID;
        // Every state a walk reaches is canonical too: what remains of a token is shorter than any repetition
        // counter a canonical position forgets.
        state = npda_->canonical_state(state);
        uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(state)) << 32) | partial;
        auto it = key_index_.find(key);
        if (it != key_index_.end()) return it->second;
        int32_t id = static_cast<int32_t>(keys_.size());
        keys_.push_back({state, partial});
        key_index_.emplace(key, id);
        table_.resize(table_.size() + 256, NOT_COMPUTED);
        return id;
    }

    // What is known of the bytes that lead a byte state back to itself: ASCII bytes are tried one at a time, only
    // when a subtree asks (a counted state never loops: its first try settles every subtree), and the non-ASCII
    // answer is one flag (a lead byte always makes a partial character, so it is never a loop byte by itself).
    struct LoopInfo {
        uint64_t known[2] = {0, 0};  // ASCII bytes tried
        uint64_t loops[2] = {0, 0};  // ASCII bytes tried that lead back
        int8_t non_ascii = -1;       // every non-ASCII character leads back: -1 not computed, 0 no, 1 yes
    };

    LoopInfo& loop_info(int32_t id) {
        if (loop_info_.size() <= static_cast<size_t>(id)) loop_info_.resize(keys_.size() + 64);
        return loop_info_[id];
    }

    // Whether every byte string of a trie subtree (its bytes below the node: `rest`; utf8_ok: they are valid
    // UTF-8 from a character boundary) leads byte state `id` back to itself, so every token below is accepted.
    bool subtree_loops(int32_t id, const ByteSet& rest, bool utf8_ok) {
        if ((rest[0] | rest[1] | rest[2] | rest[3]) == 0) return true;  // a leaf: nothing below
        if (keys_[id].second != NO_PARTIAL) return false;             // a partial character never loops
        for (int w = 0; w < 2; ++w) {
            const LoopInfo& info = loop_info(id);
            if (rest[w] & info.known[w] & ~info.loops[w]) return false;
            uint64_t unknown = rest[w] & ~info.known[w];
            while (unknown != 0) {
                int b = __builtin_ctzll(unknown) + 64 * w;
                unknown &= unknown - 1;
                bool back = transition(id, static_cast<uint8_t>(b)) == id;  // may grow loop_info_: index again
                LoopInfo& again = loop_info(id);
                again.known[w] |= 1ULL << (b & 63);
                if (!back) return false;
                again.loops[w] |= 1ULL << (b & 63);
            }
        }
        if ((rest[2] | rest[3]) == 0) return true;
        if (!utf8_ok) return false;
        if (loop_info(id).non_ascii < 0) {
            bool every = loops_every_non_ascii(id);
            loop_info(id).non_ascii = every ? 1 : 0;
        }
        return loop_info(id).non_ascii == 1;
    }

    // Whether every non-ASCII character leads byte state `id` (no partial) back to itself: no class boundary of
    // its stacks lies inside U+0080..U+10FFFF, so every such character matches the same stacks as U+0080 does.
    bool loops_every_non_ascii(int32_t id) {
        int32_t state = keys_[id].first;
        const std::vector<uint32_t>& bounds = boundaries(state);
        auto it = std::upper_bound(bounds.begin(), bounds.end(), 0x80u);
        if (it != bounds.end() && *it <= MAX_CODE_POINT) return false;
        npda_->begin_step();
        return byte_state(npda_->step_char(state, 0x80), NO_PARTIAL) == id;
    }

    struct Relaxed {
        int32_t state = DEAD_ID;  // the relaxed byte state (itself when there is no short link)
        int64_t left = 0;         // the fewest repetitions left among its short links
    };

    // The relaxed twin of byte state `id` (see Npda::relaxed_state), cached per byte state.
    const Relaxed& relaxed(int32_t id) {
        if (static_cast<size_t>(id) < relaxed_known_.size() && relaxed_known_[id]) return relaxed_[id];
        auto [state, partial] = keys_[id];
        npda_->begin_step();
        auto [twin, left] = npda_->relaxed_state(state);
        Relaxed r;
        r.state = twin == state ? id : byte_state(twin, partial);
        r.left = left;
        if (relaxed_.size() <= static_cast<size_t>(id)) {
            relaxed_.resize(keys_.size() + 64);
            relaxed_known_.resize(keys_.size() + 64, 0);
        }
        relaxed_[id] = r;
        relaxed_known_[id] = 1;
        return relaxed_[id];
    }

    // A "collapsed" partial character: every code point it can still become leads to the same NPDA state (stored
    // as the byte state's NPDA state) and every remaining continuation byte is valid, so only the number of
    // continuation bytes still needed matters. Inside a string this turns ~1,000 partial states into a handful.
    static constexpr uint32_t COLLAPSED_LENGTH = 7;
    static bool is_collapsed(Partial p) { return p != NO_PARTIAL && partial_length(p) == COLLAPSED_LENGTH; }

    int32_t transition(int32_t id, uint8_t byte) {
        int32_t found = table_[static_cast<size_t>(id) * 256 + byte];
        if (found != NOT_COMPUTED) return found;
        auto [state, partial] = keys_[id];
        npda_->begin_step();
        int32_t result;
        if (is_collapsed(partial)) {
            uint32_t remaining = partial_remaining(partial);
            if (byte < 0x80 || byte > 0xBF)
                result = DEAD_ID;
            else
                result = byte_state(state, remaining == 1 ? NO_PARTIAL : make_partial(0, remaining - 1, COLLAPSED_LENGTH));
        } else {
            auto next = step_byte(*npda_, state, partial, byte);
            Partial grown = next.second;
            // After a lead byte that narrows its first continuation (E0, ED, F0, F4) the range is not yet free.
            bool narrowing = partial == NO_PARTIAL && (byte == 0xE0 || byte == 0xED || byte == 0xF0 || byte == 0xF4);
            if (next.first != DEAD && grown != NO_PARTIAL && !narrowing) {
                int32_t target = collapse_target(next.first, grown);
                if (target != DEAD) {
                    next.first = target;
                    grown = make_partial(0, partial_remaining(grown), COLLAPSED_LENGTH);
                }
            }
            result = byte_state(next.first, grown);
        }
        table_[static_cast<size_t>(id) * 256 + byte] = result;  // index again: byte_state may have grown table_
        return result;
    }

    // The NPDA state every code point of partial `p` leads to from `state` when no class boundary of the state's
    // stacks falls inside the partial's range (then they all match the same stacks), else DEAD.
    int32_t collapse_target(int32_t state, Partial p) {
        std::pair<uint32_t, uint32_t> ranges[2];
        if (partial_ranges(p, ranges) != 1) return DEAD;
        const std::vector<uint32_t>& bounds = boundaries(state);
        auto it = std::upper_bound(bounds.begin(), bounds.end(), ranges[0].first);
        if (it != bounds.end() && *it <= ranges[0].second) return DEAD;
        return npda_->step_char(state, ranges[0].first);
    }

    // Sorted code points where some stack's class membership changes (cached per NPDA state).
    const std::vector<uint32_t>& boundaries(int32_t state) {
        auto found = boundaries_.find(state);
        if (found != boundaries_.end()) return found->second;
        std::vector<uint32_t> points;
        for (int32_t stack : npda_->stacks(state)) {
            if (stack <= SENTINEL) continue;
            const Terminal& t = npda_->terminal(npda_->node_position(stack));
            if (t.is_token) continue;
            for (const auto& r : t.ranges) {
                points.push_back(r.first);
                points.push_back(r.second + 1);
            }
        }
        std::sort(points.begin(), points.end());
        points.erase(std::unique(points.begin(), points.end()), points.end());
        return boundaries_.emplace(state, std::move(points)).first->second;
    }

    std::vector<uint32_t> compute(int32_t state, Partial partial) {
        ++stats_.masks;
        const VocabTrie& trie = this->trie();
        std::vector<uint32_t> words(trie.n_words(), 0);
        text_mask(byte_state(state, partial), words);
        for (int64_t t : preserved_) {
            if (preserved_allowed(state, partial, t).first != DEAD) words[t >> 5] |= 1u << (t & 31);
        }
        if (partial != NO_PARTIAL) return words;
        const size_t size = trie.size();
        for (int32_t stack : npda_->stacks(state)) {
            if (stack <= SENTINEL) continue;
            int32_t p = npda_->node_position(stack);
            int32_t k = npda_->kind(p);
            int64_t v = npda_->value(p);
            if (k == TOKEN) {
                if (v >= 0 && static_cast<size_t>(v) < size) words[v >> 5] |= 1u << (v & 31);
            } else if (k == TOKEN_NOT) {
                const auto& others = trie.all_but_eos_words();
                bool inside = v >= 0 && static_cast<size_t>(v) < size;
                for (size_t w = 0; w < words.size(); ++w) {
                    uint32_t bits = others[w];
                    if (inside && static_cast<size_t>(v >> 5) == w) bits &= ~(1u << (v & 31));
                    words[w] |= bits;
                }
            }
        }
        if (npda_->can_end(state)) {
            const auto& eos = trie.eos_words();
            for (size_t w = 0; w < words.size(); ++w) words[w] |= eos[w];
        }
        return words;
    }

    // ORs into `words` the text tokens that keep byte state `id` alive. Four routes, all exact:
    // - a state with short links (x{0,40}: its relaxed twin R decides every token of at most `left` bytes): R's
    //   text mask (cached per byte state) on those tokens, and a walk of only the subtrees that hold a longer token;
    // - a state one character before a loop (a string with minLength 1): tokens whose first byte leads to the loop
    //   and loops there are decided by the loop's text mask, the others by a walk of their subtrees;
    // - a state that loops on a broad byte class (a string body): its loop signature's tokens inside the class, and
    //   a walk of the signature's exit trie (the tails of the other tokens, shared by every grammar on the vocabulary);
    // - else one walk of the whole trie.
    // compose = false (a twin's own mask) leaves out the two routes that take another state's text mask.
    void text_mask(int32_t id, std::vector<uint32_t>& words, bool compose = true) {
        if (id == DEAD_ID) return;
        const VocabTrie& trie = this->trie();
        const bool no_partial = keys_[id].second == NO_PARTIAL;
        if (no_partial && compose) {
            Relaxed r = relaxed(id);
            if (r.state != id && r.left >= 1 && relaxed(r.state).state == r.state) {
                const std::vector<uint32_t>& twin = cached_text_mask(r.state);
                auto short_tokens = trie.short_words(static_cast<size_t>(r.left));
                walk(trie.arrays(), id, words, r.left);
                for (size_t w = 0; w < words.size(); ++w) words[w] |= twin[w] & (*short_tokens)[w];
                return;
            }
            if (r.state == id && step_into_loop(id, words)) return;
        }
        if (no_partial) {
            if (auto sig = signature_of(id)) {
                for (size_t w = 0; w < words.size(); ++w) words[w] |= sig->inside[w];
                walk(sig->exits, id, words, -1);
                return;
            }
        }
        walk(trie.arrays(), id, words, -1);
    }

    // The loop a first byte b leads byte state `id` into, for every token starting with b: the state after b (its
    // relaxed twin when every such token is short enough for it) when b leads that state back to itself, so that a
    // token b+rest is accepted from `id` exactly when it is accepted from the loop. DEAD_ID if none.
    int32_t loop_after(int32_t id, uint8_t b) {
        const TrieArrays& t = trie().arrays();
        int32_t node = t.root_child[b];
        if (node == 0) return DEAD_ID;
        int32_t next = transition(id, b);
        if (next == DEAD_ID) return DEAD_ID;
        const Relaxed& r = relaxed(next);
        if (r.state != next) {
            if (static_cast<int64_t>(t.longest_below[node]) - 1 > r.left) return DEAD_ID;
            next = r.state;
        }
        return transition(next, b) == next ? next : DEAD_ID;
    }

    // The route of a state one character before a loop (see text_mask); false when it does not apply (a probe
    // byte first, so that other states pay two transitions).
    bool step_into_loop(int32_t id, std::vector<uint32_t>& words) {
        constexpr uint8_t PROBE = 'e';
        const int32_t loop = loop_after(id, PROBE);
        if (loop == DEAD_ID || loop == id || relaxed(loop).state != loop) return false;
        ByteSet first{0, 0, 0, 0};
        int count = 0;
        for (int b = 0; b < 128; ++b)
            if (loop_after(id, static_cast<uint8_t>(b)) == loop) {
                first[b >> 6] |= 1ULL << (b & 63);
                ++count;
            }
        if (count < 32) return false;
        // Tokens starting with a non-ASCII character: when every such character leads `id` to one state whose
        // loop (for tokens short enough) is the same loop and takes every non-ASCII character back to itself.
        const int32_t after = non_ascii_step(id);
        if (after != DEAD_ID) {
            const TrieArrays& t = trie().arrays();
            const Relaxed r = relaxed(after);
            for (int b = 0xC2; b <= 0xF4; ++b) {
                int32_t node = t.root_child[b];
                if (node == 0) continue;
                int32_t target = after;
                if (r.state != after) {
                    if (static_cast<int64_t>(t.longest_below[node]) - 1 > r.left) continue;
                    target = r.state;
                }
                if (target != loop) break;
                if (loop_info(loop).non_ascii < 0) {
                    bool every = loops_every_non_ascii(loop);
                    loop_info(loop).non_ascii = every ? 1 : 0;
                }
                if (loop_info(loop).non_ascii != 1) break;
                first[b >> 6] |= 1ULL << (b & 63);
            }
        }
        auto first_words = trie().first_byte_words(first);
        if (!first_words) return false;
        const std::vector<uint32_t>& twin = cached_text_mask(loop);
        walk(trie().arrays(), id, words, -1, &first);
        for (size_t w = 0; w < words.size(); ++w) words[w] |= twin[w] & (*first_words)[w];
        return true;
    }

    // The byte state every non-ASCII character leads byte state `id` (no partial) to, when no class boundary of
    // its stacks lies inside U+0080..U+10FFFF (they all match the same stacks); DEAD_ID otherwise.
    int32_t non_ascii_step(int32_t id) {
        int32_t state = keys_[id].first;
        const std::vector<uint32_t>& bounds = boundaries(state);
        auto it = std::upper_bound(bounds.begin(), bounds.end(), 0x80u);
        if (it != bounds.end() && *it <= MAX_CODE_POINT) return DEAD_ID;
        npda_->begin_step();
        return byte_state(npda_->step_char(state, 0x80), NO_PARTIAL);
    }

    // The text mask of a byte state, cached (the relaxed twins and loops many states share).
    const std::vector<uint32_t>& cached_text_mask(int32_t id) {
        auto found = text_masks_.find(id);
        if (found != text_masks_.end()) return found->second;
        std::vector<uint32_t> words(trie().n_words(), 0);
        text_mask(id, words, false);
        if (text_masks_.size() >= MASK_CACHE_LIMIT) text_masks_.clear();
        return text_masks_.emplace(id, std::move(words)).first->second;
    }

    // The loop signature's masks when byte state `id` (no partial character) loops on a broad ASCII class (at
    // least 32 bytes; a probe byte first so that other states pay one transition), else nullptr.
    std::shared_ptr<const SignatureMasks> signature_of(int32_t id) {
        constexpr uint8_t PROBE = 'e';
        if (transition(id, PROBE) != id) return nullptr;
        LoopSignature sig;
        for (int b = 0; b < 128; ++b)
            if (transition(id, static_cast<uint8_t>(b)) == id) sig.ascii[b >> 6] |= 1ULL << (b & 63);
        if (__builtin_popcountll(sig.ascii[0]) + __builtin_popcountll(sig.ascii[1]) < 32) return nullptr;
        LoopInfo& info = loop_info(id);
        info.known[0] = info.known[1] = ~0ULL;
        info.loops[0] = sig.ascii[0];
        info.loops[1] = sig.ascii[1];
        if (info.non_ascii < 0) {
            bool every = loops_every_non_ascii(id);
            loop_info(id).non_ascii = every ? 1 : 0;
        }
        sig.non_ascii = loop_info(id).non_ascii == 1;
        return trie().signature(sig);
    }

    // ORs into `words` the tokens of trie `t` that keep byte state `start` alive. One forward scan of the preorder
    // trie: dead subtrees are jumped over and so is a subtree whose bytes all lead a state back to itself
    // (accepted whole). With short_limit >= 0, subtrees whose tokens all have at most short_limit bytes are skipped
    // (refused here: the caller decides them). Tokens are contiguous in preorder, so the scan yields accepted and
    // refused runs of the preorder token list that cover it; the mask is written from the smaller side (free text
    // refuses a few thousand tokens, accepts 120,000). Cost: one table lookup per live node visited.
    // skip_first: root subtrees whose first byte is in the set are skipped too (refused here, decided by the caller).
    void walk(const TrieArrays& t, int32_t start, std::vector<uint32_t>& words, int64_t short_limit,
              const ByteSet* skip_first = nullptr) {
        if (start == DEAD_ID) return;
        const auto& node_byte = t.byte;
        const auto& depth = t.depth;
        const auto& end = t.end;
        const auto& begin = t.token_begin;
        const auto& tokens = t.tokens;
        const auto& below = t.below;
        const auto& longest_below = t.longest_below;
        std::vector<int32_t> at_depth(t.max_depth + 1, DEAD_ID);
        at_depth[0] = start;
        const size_t n = t.n_nodes();
        size_t node = 1, walked = 0;
        std::vector<std::pair<int32_t, int32_t>> accepted, refused;
        int64_t n_accepted = 0;
        auto add = [](std::vector<std::pair<int32_t, int32_t>>& runs, int32_t from, int32_t to) {
            if (from >= to) return;
            if (!runs.empty() && runs.back().second == from)
                runs.back().second = to;
            else
                runs.push_back({from, to});
        };
        while (node < n) {
            const bool skipped_first = skip_first != nullptr && depth[node] == 1 &&
                                       (((*skip_first)[node_byte[node] >> 6] >> (node_byte[node] & 63)) & 1);
            if (skipped_first || static_cast<int64_t>(longest_below[node]) <= short_limit) {
                size_t last = static_cast<size_t>(end[node]);
                add(refused, begin[node], begin[last]);
                node = last;
                continue;
            }
            ++walked;
            uint16_t d = depth[node];
            int32_t next = transition(at_depth[d - 1], node_byte[node]);
            if (next == DEAD_ID) {
                size_t last = static_cast<size_t>(end[node]);
                add(refused, begin[node], begin[last]);
                node = last;
                continue;
            }
            // Inside short bounded repetitions (x{0,40}: every character a new state) the rest of every token
            // below may be decided by the relaxed state (the repetitions' loops, which return to themselves and
            // so are walked little) when it is no longer than the repetitions left allow.
            const Relaxed& r = relaxed(next);
            if (r.state != next && static_cast<int64_t>(longest_below[node]) - d <= r.left) next = r.state;
            // Non-ASCII bytes below are fine when every non-ASCII character leads back here and the bytes below
            // are valid UTF-8 (a token may end inside a character: the partial is viable).
            if (subtree_loops(next, below[node], t.utf8_below(node))) {
                size_t last = static_cast<size_t>(end[node]);
                add(accepted, begin[node], begin[last]);
                n_accepted += begin[last] - begin[node];
                node = last;
                continue;
            }
            at_depth[d] = next;
            add(accepted, begin[node], begin[node + 1]);
            n_accepted += begin[node + 1] - begin[node];
            ++node;
        }
        stats_.nodes_walked += walked;
        auto set = [&](int32_t i) {
            uint32_t token = static_cast<uint32_t>(tokens[i]);
            words[token >> 5] |= 1u << (token & 31);
        };
        if (n_accepted * 2 <= static_cast<int64_t>(tokens.size())) {
            for (const auto& run : accepted)
                for (int32_t i = run.first; i < run.second; ++i) set(i);
            return;
        }
        std::vector<uint32_t> refused_words(words.size(), 0);
        for (const auto& run : refused)
            for (int32_t i = run.first; i < run.second; ++i) {
                uint32_t token = static_cast<uint32_t>(tokens[i]);
                refused_words[token >> 5] |= 1u << (token & 31);
            }
        const auto& members = t.members;
        for (size_t w = 0; w < words.size(); ++w) words[w] |= members[w] & ~refused_words[w];
    }

    std::unique_ptr<Npda> npda_;
    std::shared_ptr<const VocabTrie> trie_;
    std::mutex mutex_;
    std::vector<std::pair<int32_t, Partial>> keys_;
    std::unordered_map<uint64_t, int32_t> key_index_;
    std::vector<int32_t> table_;
    std::unordered_map<uint64_t, std::vector<uint32_t>> masks_;
    std::unordered_map<int32_t, std::vector<uint32_t>> text_masks_;
    std::unordered_map<int32_t, std::vector<uint32_t>> boundaries_;
    std::vector<int64_t> preserved_;
    std::vector<LoopInfo> loop_info_;
    std::vector<uint8_t> relaxed_known_;
    std::vector<Relaxed> relaxed_;
    Stats stats_;
};

}  // namespace pegchat

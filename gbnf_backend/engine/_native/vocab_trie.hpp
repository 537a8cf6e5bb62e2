// A vocabulary's byte trie, built once per vocabulary and shared (read-only) by every grammar's mask engine.
//
// Nodes are numbered in preorder (node 0 is the root), so a mask walk is one forward scan: a node's subtree is
// [node, end[node]) and a dead node is skipped by jumping to its end. Only text tokens (non-special, non-empty:
// Vocabulary.lengths > 0) are in the trie; special tokens are reached only through <[id]> references. Beside the
// trie it keeps small caches every grammar on the vocabulary shares (behind one mutex, bounded): loop signatures,
// tokens by length and tokens by first byte.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "common.hpp"

namespace pegchat {

using ByteSet = std::array<uint64_t, 4>;

// One byte trie over a set of (byte string, token id) entries, in preorder: node 0 is the root, a node's subtree is
// [node, end[node]) and its tokens are tokens[token_begin[node] .. token_begin[node + 1]). The vocabulary's trie is
// one; the exit tries of loop signatures (below) are others, over the tails of tokens.
struct TrieArrays {
    std::vector<uint8_t> byte;
    std::vector<uint16_t> depth;
    std::vector<int32_t> end, token_begin, tokens;
    // The bytes that occur strictly below each node (what the rest of any string through it may consume).
    std::vector<ByteSet> below;
    // The length of the longest string at or below each node (0: none).
    std::vector<uint16_t> longest_below;
    // Bit q: every byte string below the node is valid UTF-8 (complete characters, then maybe the start of one)
    // read from UTF-8 decoder state q (see utf8_next).
    std::vector<uint8_t> utf8_ok;
    std::vector<uint32_t> members;  // the tokens of the trie, as a bitmask
    std::array<int32_t, 256> root_child{};  // the node of each first byte (0: no token starts with it)
    size_t max_depth = 0;

    size_t n_nodes() const { return byte.size(); }
    bool utf8_below(size_t node) const { return utf8_ok[node] & 1; }
    size_t memory_bytes() const {
        return byte.size() * (1 + 2 + 4 + 4 + 2 + 1 + sizeof(ByteSet)) + tokens.size() * 4 + members.size() * 4;
    }

    // UTF-8 decoder states: 0 at a character boundary; 1-3 any 1-3 continuation bytes still needed; 4-7 the
    // restricted first continuation after E0 (A0-BF), ED (80-9F), F0 (90-BF), F4 (80-8F). -1 = invalid.
    static int utf8_next(int q, uint8_t b) {
        bool cont = b >= 0x80 && b <= 0xBF;
        switch (q) {
            case 0:
                if (b < 0x80) return 0;
                if (b >= 0xC2 && b <= 0xDF) return 1;
                if (b == 0xE0) return 4;
                if (b == 0xED) return 5;
                if (b >= 0xE1 && b <= 0xEF) return 2;
                if (b == 0xF0) return 6;
                if (b == 0xF4) return 7;
                if (b >= 0xF1 && b <= 0xF3) return 3;
                return -1;
            case 1: return cont ? 0 : -1;
            case 2: return cont ? 1 : -1;
            case 3: return cont ? 2 : -1;
            case 4: return b >= 0xA0 && b <= 0xBF ? 1 : -1;
            case 5: return b >= 0x80 && b <= 0x9F ? 1 : -1;
            case 6: return b >= 0x90 && b <= 0xBF ? 2 : -1;
            case 7: return b >= 0x80 && b <= 0x8F ? 2 : -1;
        }
        return -1;
    }

    // Builds the trie of `entries`, sorted by their bytes (ties in any order); n_words: the bitmask width.
    static TrieArrays build(const std::vector<std::pair<std::string_view, int32_t>>& entries, size_t n_words) {
        TrieArrays a;
        a.members.assign(n_words, 0);
        a.byte.push_back(0);
        a.below.push_back({0, 0, 0, 0});
        a.depth.push_back(0);
        a.end.push_back(0);
        a.token_begin.push_back(0);
        std::vector<int32_t> path{0};  // path[d] = node at depth d of the current string
        const std::string_view* previous = nullptr;
        auto close_to = [&](size_t depth) {
            while (path.size() > depth + 1) {
                int32_t child = path.back();
                a.end[child] = static_cast<int32_t>(a.byte.size());
                path.pop_back();
                ByteSet& parent = a.below[path.back()];
                const ByteSet& mine = a.below[child];
                for (int w = 0; w < 4; ++w) parent[w] |= mine[w];
                parent[a.byte[child] >> 6] |= 1ULL << (a.byte[child] & 63);
            }
        };
        for (const auto& entry : entries) {
            const std::string_view& s = entry.first;
            if (s.size() > 65535) throw InputError("token longer than 65535 bytes");
            size_t common = 0;
            if (previous != nullptr) {
                size_t limit = std::min(previous->size(), s.size());
                while (common < limit && (*previous)[common] == s[common]) ++common;
            }
            close_to(common);
            for (size_t d = common; d < s.size(); ++d) {
                int32_t node = static_cast<int32_t>(a.byte.size());
                a.byte.push_back(static_cast<uint8_t>(s[d]));
                a.below.push_back({0, 0, 0, 0});
                a.depth.push_back(static_cast<uint16_t>(d + 1));
                a.end.push_back(0);
                a.token_begin.push_back(static_cast<int32_t>(a.tokens.size()));
                path.push_back(node);
            }
            // Tokens are appended in preorder of their nodes, so each node's tokens are contiguous.
            a.tokens.push_back(entry.second);
            a.members[static_cast<uint32_t>(entry.second) >> 5] |= 1u << (entry.second & 31);
            a.max_depth = std::max(a.max_depth, s.size());
            previous = &s;
        }
        close_to(0);
        a.end[0] = static_cast<int32_t>(a.byte.size());
        for (int32_t node = 1; node < a.end[0]; node = a.end[node]) a.root_child[a.byte[node]] = node;
        a.token_begin.push_back(static_cast<int32_t>(a.tokens.size()));
        a.compute_flags();
        return a;
    }

   private:
    // Children come after their parent in preorder: one backward pass fills utf8_ok and longest_below.
    void compute_flags() {
        const size_t n = byte.size();
        utf8_ok.assign(n, 0xFF);
        std::vector<int32_t> parent(n, -1);
        std::vector<int32_t> path;
        for (size_t node = 1; node < n; ++node) {
            while (!path.empty() && end[path.back()] <= static_cast<int32_t>(node)) path.pop_back();
            parent[node] = path.empty() ? 0 : path.back();
            path.push_back(static_cast<int32_t>(node));
        }
        longest_below.assign(n, 0);
        for (size_t node = 0; node < n; ++node)
            if (token_begin[node] < token_begin[node + 1]) longest_below[node] = depth[node];
        for (size_t node = n - 1; node >= 1; --node) {
            longest_below[parent[node]] = std::max(longest_below[parent[node]], longest_below[node]);
            uint8_t ok = 0;
            for (int q = 0; q < 8; ++q) {
                int r = utf8_next(q, byte[node]);
                if (r >= 0 && ((utf8_ok[node] >> r) & 1)) ok |= static_cast<uint8_t>(1u << q);
            }
            utf8_ok[parent[node]] &= ok;
        }
    }
};

// The ASCII bytes that lead a byte state back to itself, and whether every non-ASCII character does.
struct LoopSignature {
    uint64_t ascii[2] = {0, 0};
    bool non_ascii = false;
    bool operator<(const LoopSignature& o) const {
        return std::tie(ascii[0], ascii[1], non_ascii) < std::tie(o.ascii[0], o.ascii[1], o.non_ascii);
    }
};

// What a loop signature decides for every state that has it: the tokens made only of its loop bytes (inside:
// accepted, the state comes back to itself after each character) and, for every other token, its tail from the
// start of the first character that is not a loop character (exits: the state is still itself there, so a walk of
// this small trie from the state decides them). For a JSON string body: 127,555 tokens inside, 2,517 exits whose
// tails make a trie of ~2,500 nodes instead of the ~10,700 a walk of the whole trie visits.
struct SignatureMasks {
    std::vector<uint32_t> inside;
    TrieArrays exits;
    size_t memory_bytes() const { return inside.size() * 4 + exits.memory_bytes(); }
};

class VocabTrie {
   public:
    // token_bytes: every token's bytes by id; is_text: whether the token is a text token; eos/special: ids.
    VocabTrie(const std::vector<std::string>& token_bytes, const std::vector<uint8_t>& is_text,
              const std::vector<int64_t>& eos, const std::vector<int64_t>& special)
        : size_(token_bytes.size()) {
        if (is_text.size() != size_) throw InputError("is_text and token_bytes differ in length");
        if (size_ == 0) throw InputError("a vocabulary needs at least one token");
        if (size_ > static_cast<size_t>(INT32_MAX) - 64) throw InputError("vocabulary too large");
        n_words_ = (size_ + 31) / 32;
        kind_.assign(size_, TEXT);
        for (size_t t = 0; t < size_; ++t)
            if (!is_text[t] || token_bytes[t].empty()) kind_[t] = OTHER;
        for (int64_t id : special) kind_.at(checked(id, "special")) = SPECIAL;
        eos_words_.assign(n_words_, 0);
        for (int64_t id : eos) {
            size_t t = checked(id, "eos");
            kind_[t] = EOS;
            eos_words_[t >> 5] |= 1u << (t & 31);
        }
        all_but_eos_words_.assign(n_words_, 0);
        for (size_t t = 0; t < size_; ++t)
            if (kind_[t] != EOS) all_but_eos_words_[t >> 5] |= 1u << (t & 31);
        token_bytes_ = token_bytes;
        std::vector<std::pair<std::string_view, int32_t>> entries;
        for (size_t t = 0; t < size_; ++t)
            if (kind_[t] == TEXT) entries.push_back({token_bytes_[t], static_cast<int32_t>(t)});
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        trie_ = TrieArrays::build(entries, n_words_);
        short_words_.resize(trie_.max_depth + 1);
    }

    size_t size() const { return size_; }
    size_t n_words() const { return n_words_; }
    size_t n_nodes() const { return trie_.n_nodes(); }
    size_t max_depth() const { return trie_.max_depth; }
    bool is_text(size_t t) const { return kind_[t] == TEXT; }
    bool is_eos(size_t t) const { return kind_[t] == EOS; }
    bool is_special(size_t t) const { return kind_[t] == SPECIAL; }
    const std::string& bytes_of(size_t t) const { return token_bytes_[t]; }
    const std::vector<uint32_t>& eos_words() const { return eos_words_; }
    const std::vector<uint32_t>& all_but_eos_words() const { return all_but_eos_words_; }
    const std::vector<uint32_t>& text_words() const { return trie_.members; }
    // The trie of every text token (read by the mask walk).
    const TrieArrays& arrays() const { return trie_; }

    // The text tokens of at most `length` bytes, as a bitmask (built on first use per length; thread-safe).
    std::shared_ptr<const std::vector<uint32_t>> short_words(size_t length) const {
        length = std::min(length, trie_.max_depth);
        std::lock_guard<std::mutex> lock(cache_mutex_);
        auto& found = short_words_[length];
        if (!found) {
            auto words = std::make_shared<std::vector<uint32_t>>(n_words_, 0);
            for (size_t t = 0; t < size_; ++t)
                if (kind_[t] == TEXT && token_bytes_[t].size() <= length) (*words)[t >> 5] |= 1u << (t & 31);
            found = std::move(words);
        }
        return found;
    }

    // The masks a loop signature decides (see SignatureMasks), built on first use (one pass over the vocabulary,
    // ~1-3 ms for 131k tokens) and kept for every grammar on this vocabulary; nullptr once MAX_SIGNATURES
    // different signatures are kept (the caller walks the whole trie instead). Thread-safe.
    std::shared_ptr<const SignatureMasks> signature(const LoopSignature& sig) const {
        {
            std::lock_guard<std::mutex> lock(cache_mutex_);
            auto found = signatures_.find(sig);
            if (found != signatures_.end()) return found->second;
            if (signatures_.size() >= MAX_SIGNATURES) return nullptr;
        }
        auto built = std::make_shared<SignatureMasks>(build_signature(sig));
        std::lock_guard<std::mutex> lock(cache_mutex_);
        return signatures_.emplace(sig, std::move(built)).first->second;
    }

    // The text tokens whose first byte is in `first`, as a bitmask (built on first use per set, from the root's
    // subtrees; nullptr once MAX_SIGNATURES sets are kept). Thread-safe.
    std::shared_ptr<const std::vector<uint32_t>> first_byte_words(const ByteSet& first) const {
        {
            std::lock_guard<std::mutex> lock(cache_mutex_);
            auto found = first_bytes_.find(first);
            if (found != first_bytes_.end()) return found->second;
            if (first_bytes_.size() >= MAX_SIGNATURES) return nullptr;
        }
        auto words = std::make_shared<std::vector<uint32_t>>(n_words_, 0);
        for (int b = 0; b < 256; ++b) {
            int32_t node = trie_.root_child[b];
            if (node == 0 || !((first[b >> 6] >> (b & 63)) & 1)) continue;
            for (int32_t i = trie_.token_begin[node]; i < trie_.token_begin[trie_.end[node]]; ++i) {
                uint32_t t = static_cast<uint32_t>(trie_.tokens[i]);
                (*words)[t >> 5] |= 1u << (t & 31);
            }
        }
        std::lock_guard<std::mutex> lock(cache_mutex_);
        return first_bytes_.emplace(first, std::move(words)).first->second;
    }

    size_t memory_bytes() const {
        size_t total = trie_.memory_bytes() + n_words_ * 8 + size_;
        for (const auto& s : token_bytes_) total += s.size() + sizeof(std::string);
        std::lock_guard<std::mutex> lock(cache_mutex_);
        for (const auto& kv : signatures_) total += kv.second->memory_bytes();
        total += first_bytes_.size() * n_words_ * 4;
        for (const auto& w : short_words_)
            if (w) total += w->size() * 4;
        return total;
    }

   private:
    enum TokenKind : uint8_t { TEXT, OTHER, SPECIAL, EOS };
    static constexpr size_t MAX_SIGNATURES = 64;

    size_t checked(int64_t id, const char* what) const {
        if (id < 0 || static_cast<uint64_t>(id) >= size_)
            throw InputError(std::string(what) + " token id " + std::to_string(id) + " out of range");
        return static_cast<size_t>(id);
    }

    // One walk of the vocabulary's trie: a node whose byte keeps every string through it inside the loop (an ASCII
    // loop byte at a character boundary; with non_ascii, a byte that continues valid UTF-8) marks its tokens
    // inside, and its whole subtree when every byte below does too; at the first other byte, every token below
    // exits at the start of the character that byte belongs to (the state is the loop's own there: every character
    // before it leads back). A token may end inside a character: its start is viable, since every character it can
    // become loops. Visits the nodes a mask walk of a string body visits (~10,700 on tekken), not every token.
    SignatureMasks build_signature(const LoopSignature& sig) const {
        SignatureMasks m;
        m.inside.assign(n_words_, 0);
        const TrieArrays& a = trie_;
        auto mark = [&](int32_t from, int32_t to) {
            for (int32_t i = from; i < to; ++i) {
                uint32_t t = static_cast<uint32_t>(a.tokens[i]);
                m.inside[t >> 5] |= 1u << (t & 31);
            }
        };
        std::vector<std::pair<std::string_view, int32_t>> entries;
        std::vector<int8_t> decoder(a.max_depth + 1, 0);        // UTF-8 decoder state after d bytes
        std::vector<uint16_t> char_start(a.max_depth + 1, 0);  // where the character in progress began
        const size_t n = a.n_nodes();
        size_t node = 1;
        while (node < n) {
            const uint16_t d = a.depth[node];
            const uint8_t b = a.byte[node];
            const int q = decoder[d - 1];
            const uint16_t start = q == 0 ? static_cast<uint16_t>(d - 1) : char_start[d - 1];
            int next = -1;
            if (b < 0x80)
                next = q == 0 && ((sig.ascii[b >> 6] >> (b & 63)) & 1) ? 0 : -1;
            else if (sig.non_ascii)
                next = TrieArrays::utf8_next(q, b);
            const int32_t last = a.end[node];
            if (next < 0) {
                for (int32_t i = a.token_begin[node]; i < a.token_begin[last]; ++i) {
                    int32_t t = a.tokens[i];
                    entries.push_back({std::string_view(token_bytes_[t]).substr(start), t});
                }
                node = static_cast<size_t>(last);
                continue;
            }
            const ByteSet& rest = a.below[node];
            bool whole = (rest[0] & ~sig.ascii[0]) == 0 && (rest[1] & ~sig.ascii[1]) == 0 &&
                         (sig.non_ascii ? ((a.utf8_ok[node] >> next) & 1) != 0 : (rest[2] | rest[3]) == 0);
            if (whole) {
                mark(a.token_begin[node], a.token_begin[last]);
                node = static_cast<size_t>(last);
                continue;
            }
            mark(a.token_begin[node], a.token_begin[node + 1]);
            decoder[d] = static_cast<int8_t>(next);
            char_start[d] = start;
            ++node;
        }
        std::sort(entries.begin(), entries.end());
        m.exits = TrieArrays::build(entries, n_words_);
        return m;
    }

    size_t size_;
    size_t n_words_ = 0;
    std::vector<uint8_t> kind_;
    std::vector<std::string> token_bytes_;
    std::vector<uint32_t> eos_words_, all_but_eos_words_;
    TrieArrays trie_;
    mutable std::mutex cache_mutex_;
    mutable std::map<LoopSignature, std::shared_ptr<const SignatureMasks>> signatures_;
    mutable std::map<ByteSet, std::shared_ptr<const std::vector<uint32_t>>> first_bytes_;
    mutable std::vector<std::shared_ptr<const std::vector<uint32_t>>> short_words_;
};

}  // namespace pegchat

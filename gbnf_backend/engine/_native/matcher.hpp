// The token-level matcher of the compiled core (gbnf_backend.engine.matcher.GrammarMatcher, lazy or not).
//
// State per token: (NPDA state, partial UTF-8 character, terminated), and for a lazy matcher (one given Triggers)
// whether it still awaits a trigger, the two trigger automata's states and how many bytes of the text generated
// while awaiting belong to the state; a bounded history of snapshots serves rollback. The awaited text itself is one
// append-only buffer per matcher: a snapshot keeps only its length, so history costs O(1) per token. Nothing throws in the decode loop: a LimitError from the automaton puts the matcher in a sticky error
// state in which only EOS is allowed and every token is refused. Bad arguments (ids out of range are simply
// refused; negative or too large rollback counts, wrong buffers) are InputErrors at the call.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "mask_engine.hpp"
#include "triggers.hpp"

namespace pegchat {

struct MatchState {
    int32_t npda = DEAD;
    Partial partial = NO_PARTIAL;
    bool terminated = false;
    bool awaiting = false;  // a lazy matcher before its trigger fired
    int32_t scan = 0;       // word-trigger automaton state (while awaiting)
    int32_t anchor = 0;     // pattern-anchor automaton state (while awaiting)
    size_t buffered = 0;    // bytes of the matcher's buffer generated while awaiting, up to this state
};

class Matcher {
   public:
    // triggers (optional) make the matcher lazy; awaiting_masks caches its masks while awaiting (shared by the
    // matchers of one compiled grammar; optional).
    Matcher(std::shared_ptr<MaskEngine> engine, size_t max_rollback, std::shared_ptr<const Triggers> triggers = nullptr,
            std::shared_ptr<AwaitingMasks> awaiting_masks = nullptr)
        : engine_(std::move(engine)),
          max_history_(std::max<size_t>(16, max_rollback)),
          triggers_(std::move(triggers)),
          awaiting_masks_(std::move(awaiting_masks)),
          buffer_(std::make_shared<std::string>()) {
        const VocabTrie& trie = engine_->trie();  // a matcher needs the vocabulary: InputError otherwise
        if (triggers_ && triggers_->vocab_size() != trie.size())
            throw InputError("the triggers were built for a vocabulary of another size");
        if (triggers_ && !awaiting_masks_) awaiting_masks_ = std::make_shared<AwaitingMasks>();
        reset();
    }

    // A copy shares nothing mutable: the awaited text is copied (the compiled grammar's caches stay shared).
    Matcher(const Matcher& other)
        : engine_(other.engine_),
          state_(other.state_),
          history_(other.history_),
          max_history_(other.max_history_),
          error_(other.error_),
          has_error_(other.has_error_),
          triggers_(other.triggers_),
          awaiting_masks_(other.awaiting_masks_),
          buffer_(std::make_shared<std::string>(*other.buffer_)) {}
    Matcher& operator=(const Matcher&) = delete;

    bool is_lazy() const { return triggers_ != nullptr; }
    bool is_awaiting() const { return state_.awaiting; }

    std::shared_ptr<MaskEngine> engine() const { return engine_; }

    void reset() {
        state_ = MatchState{};
        state_.npda = engine_->npda().initial();
        state_.awaiting = triggers_ != nullptr;
        buffer_->clear();
        history_.clear();
        error_.clear();
        has_error_ = false;
    }

    bool is_error() const { return has_error_; }
    const std::string& error() const { return error_; }
    bool is_terminated() const { return state_.terminated; }
    size_t history_size() const { return history_.size(); }
    int32_t npda_state() const { return state_.npda; }
    Partial partial() const { return state_.partial; }

    bool can_end() {
        if (has_error_ || state_.terminated) return false;
        if (state_.awaiting) return true;
        std::lock_guard<std::mutex> lock(engine_->mutex());
        return state_.partial == NO_PARTIAL && engine_->npda().can_end(state_.npda);
    }

    // A step that hits the ambiguity cap enters the sticky error state, as accept_token does: "False" must never
    // stand for "gave up" (the budget counts work not cached yet, so a retry could answer otherwise).
    bool is_token_allowed(int64_t token_id) {
        if (has_error_ || state_.terminated) return false;
        try {
            MatchState next;
            return trial(state_, token_id, next);
        } catch (const LimitError& e) {
            set_error("token " + std::to_string(token_id) + ": " + e.what());
            return false;
        } catch (const TriggerError& e) {
            set_error("token " + std::to_string(token_id) + ": " + e.what());
            return false;
        }
    }

    bool accept_token(int64_t token_id) {
        if (has_error_ || state_.terminated) return false;
        MatchState next;
        try {
            if (!trial(state_, token_id, next)) return false;
        } catch (const LimitError& e) {
            set_error("token " + std::to_string(token_id) + ": " + e.what());
            return false;
        } catch (const TriggerError& e) {
            set_error("token " + std::to_string(token_id) + ": " + e.what());
            return false;
        }
        const std::string& bytes = engine_->trie().bytes_of(static_cast<size_t>(token_id));
        keep_awaited(next, bytes.data(), bytes.size());
        push(next);
        return true;
    }

    // Raw bytes (UTF-8 of accepted text, not a token).
    bool accept_bytes(const std::string& data) {
        if (has_error_ || state_.terminated) return false;
        MatchState next = state_;
        if (state_.awaiting) {
            try {
                if (!awaiting_feed(state_, reinterpret_cast<const uint8_t*>(data.data()), data.size(), next))
                    return false;
            } catch (const std::runtime_error& e) {  // LimitError or TriggerError
                set_error(std::string("text: ") + e.what());
                return false;
            }
            keep_awaited(next, data.data(), data.size());
            push(next);
            return true;
        }
        try {
            std::lock_guard<std::mutex> lock(engine_->mutex());
            Npda& npda = engine_->npda();
            npda.begin_step();
            auto fed = feed_bytes(npda, state_.npda, state_.partial, reinterpret_cast<const uint8_t*>(data.data()),
                                  data.size());
            if (fed.first == DEAD) return false;
            next.npda = fed.first;
            next.partial = fed.second;
        } catch (const LimitError& e) {
            set_error(std::string("text: ") + e.what());
            return false;
        }
        push(next);
        return true;
    }

    void rollback(int64_t n_tokens) {
        if (n_tokens < 0 || static_cast<uint64_t>(n_tokens) > history_.size())
            throw InputError("cannot roll back " + std::to_string(n_tokens) + " tokens: " +
                             std::to_string(history_.size()) + " are kept");
        for (int64_t i = 0; i < n_tokens; ++i) {
            state_ = history_.back();
            history_.pop_back();
        }
        if (n_tokens > 0) {
            has_error_ = false;
            error_.clear();
        }
    }

    std::unique_ptr<Matcher> fork() const { return std::make_unique<Matcher>(*this); }

    // Writes the allowed tokens into out[0..n_cols): the first n_cols words of the mask when the row is narrower
    // than the vocabulary's, zeros past the vocabulary when it is wider. Returns whether some token is masked out.
    // Never throws LimitError (sets the sticky error instead).
    bool fill(uint32_t* out, size_t n_cols) {
        const VocabTrie& trie = engine_->trie();
        const size_t n_words = trie.n_words();
        const size_t width = std::min(n_cols, n_words);
        auto write = [&](const uint32_t* words) {
            std::copy(words, words + width, out);
            std::fill(out + width, out + n_cols, 0u);
            for (size_t w = 0; w < n_words; ++w)
                if (words[w] != 0xFFFFFFFFu) return true;
            return false;
        };
        if (!has_error_ && !state_.terminated && state_.awaiting) {
            std::vector<uint32_t> words(n_words, 0);
            awaiting_mask(words.data(), n_words);
            return write(words.data());
        }
        if (!has_error_ && !state_.terminated) {
            try {
                // The cached mask goes straight into the caller's row (no intermediate copy).
                std::lock_guard<std::mutex> lock(engine_->mutex());
                return write(engine_->mask(state_.npda, state_.partial).data());
            } catch (const LimitError& e) {
                set_error(std::string("mask computation failed: ") + e.what());
            }
        }
        return write(trie.eos_words().data());
    }

   private:
    void set_error(std::string message) {
        has_error_ = true;
        error_ = std::move(message);
    }

    void push(const MatchState& next) {
        history_.push_back(state_);
        if (history_.size() > max_history_) history_.pop_front();
        state_ = next;
    }

    // The matcher keeps the text generated while awaiting: next (just accepted from state_) grew it by data.
    void keep_awaited(const MatchState& next, const char* data, size_t size) {
        if (!next.awaiting || next.buffered == state_.buffered) return;
        // Snapshots in the history are older, so they never need more than state_.buffered bytes; what lies past
        // that was generated by a state rolled back and is dropped.
        buffer_->resize(state_.buffered);
        buffer_->append(data, size);
    }

    // Whether token_id is accepted from `from`, and the state after it. Throws LimitError or TriggerError.
    bool trial(const MatchState& from, int64_t token_id, MatchState& next) {
        const VocabTrie& trie = engine_->trie();
        if (token_id < 0 || static_cast<uint64_t>(token_id) >= trie.size()) return false;
        size_t t = static_cast<size_t>(token_id);
        next = from;
        if (from.awaiting) return awaiting_trial(from, t, next);
        std::lock_guard<std::mutex> lock(engine_->mutex());
        Npda& npda = engine_->npda();
        npda.begin_step();
        if (trie.is_eos(t)) {
            next.terminated = true;
            return from.partial == NO_PARTIAL && npda.can_end(from.npda);
        }
        if (engine_->is_preserved(token_id)) {
            auto after = engine_->preserved_allowed(from.npda, from.partial, token_id);
            next.npda = after.first;
            next.partial = after.second;
            return after.first != DEAD;
        }
        if (!trie.is_text(t)) {
            // Special and unused (empty) tokens only through <[id]> / !<[id]> references, as the mask says.
            if (from.partial != NO_PARTIAL) return false;
            next.npda = npda.step_token_reference(from.npda, token_id);
            return next.npda != DEAD;
        }
        const std::string& bytes = trie.bytes_of(t);
        auto fed = feed_bytes(npda, from.npda, from.partial, reinterpret_cast<const uint8_t*>(bytes.data()),
                              bytes.size());
        if (from.partial == NO_PARTIAL) {
            // A stack topped by !<[id]> (or <[id]>) consumes the whole token as one unit.
            int32_t as_unit = npda.step_token_reference(from.npda, token_id);
            if (as_unit != DEAD) {
                if (fed.first == DEAD)
                    fed = {as_unit, NO_PARTIAL};
                else if (fed.second == NO_PARTIAL)
                    fed.first = npda.union_states(fed.first, as_unit);
            }
        }
        next.npda = fed.first;
        next.partial = fed.second;
        return fed.first != DEAD;
    }

    // ---- lazy matchers: the step and the mask while awaiting a trigger (mirrors gbnf_backend/matcher.py) ------
    // A token while awaiting: EOS ends; a trigger token starts the grammar at itself; a preserved special token is
    // scanned as its text; other special and unused tokens leave the state as it is; text is scanned.
    bool awaiting_trial(const MatchState& from, size_t t, MatchState& next) {
        const VocabTrie& trie = engine_->trie();
        if (trie.is_eos(t)) {
            next.terminated = true;
            return true;
        }
        if (triggers_->is_trigger_token(t)) return start_from_token(t, next);
        const std::string& bytes = trie.bytes_of(t);
        if (!engine_->is_preserved(static_cast<int64_t>(t)) && !trie.is_text(t)) return true;
        return awaiting_feed(from, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), next);
    }

    // A trigger token: the grammar starts with a reference to it (<[id]>), or else with its text.
    bool start_from_token(size_t t, MatchState& next) {
        std::lock_guard<std::mutex> lock(engine_->mutex());
        Npda& npda = engine_->npda();
        npda.begin_step();
        next.awaiting = false;
        next.buffered = 0;
        next.partial = NO_PARTIAL;
        next.npda = npda.step_token_reference(npda.initial(), static_cast<int64_t>(t));
        if (next.npda != DEAD) return true;
        const std::string& bytes = engine_->trie().bytes_of(t);
        auto fed = feed_bytes(npda, npda.initial(), NO_PARTIAL, reinterpret_cast<const uint8_t*>(bytes.data()),
                              bytes.size());
        next.npda = fed.first;
        next.partial = fed.second;
        return fed.first != DEAD;
    }

    // Bytes while awaiting: scan for a word trigger (a word may have begun in earlier tokens) and, when an anchor
    // completes (every time for a pattern without anchors), ask the patterns; the earliest start wins and the grammar
    // is fed the text from there to the end of data. The engine's lock is taken only for that feed.
    bool awaiting_feed(const MatchState& from, const uint8_t* data, size_t size, MatchState& next) {
        const size_t old = from.buffered;
        const WordAutomaton& words = triggers_->words();
        const WordAutomaton& anchors = triggers_->anchors();
        int64_t start = -1;
        int32_t scan = from.scan, anchor = from.anchor;
        if (!words.empty()) {
            auto found = words.feed(scan, data, size);
            scan = found.first;
            if (found.second >= 0) start = static_cast<int64_t>(old) + found.second - words.match_length(scan);
        }
        bool run_patterns = triggers_->has_patterns();
        if (!anchors.empty()) std::tie(anchor, run_patterns) = anchors.scan(anchor, data, size);
        std::string text;
        if (run_patterns || start >= 0) {
            text.assign(buffer_->data(), old);
            text.append(reinterpret_cast<const char*>(data), size);
        }
        if (run_patterns) {
            int64_t begin = triggers_->pattern_start(text, old);
            if (begin > static_cast<int64_t>(text.size())) throw TriggerError("a pattern trigger started past the text");
            if (begin >= 0 && (start < 0 || begin < start)) start = begin;
        }
        if (start < 0) {
            next.scan = scan;
            next.anchor = anchor;
            next.buffered = old + size;
            return true;
        }
        std::lock_guard<std::mutex> lock(engine_->mutex());
        Npda& npda = engine_->npda();
        npda.begin_step();
        auto fed = feed_bytes(npda, npda.initial(), NO_PARTIAL,
                              reinterpret_cast<const uint8_t*>(text.data()) + start, text.size() - start);
        next.awaiting = false;
        next.buffered = 0;
        next.npda = fed.first;
        next.partial = fed.second;
        return fed.first != DEAD;
    }

    // Every token, minus the few that would fire a trigger and break the grammar at once (tried exactly; a trial
    // that hits a limit counts as breaking). Cached per word-automaton state when no pattern reads the buffer.
    void awaiting_mask(uint32_t* words, size_t n_words) {
        const size_t size = engine_->trie().size();
        std::fill(words, words + n_words, 0xFFFFFFFFu);
        if (size % 32) words[n_words - 1] = (1u << (size % 32)) - 1;
        if (triggers_->allows_everything()) return;
        const bool cacheable = triggers_->cacheable();
        if (cacheable && awaiting_masks_->find(state_.scan, words, n_words)) return;
        std::vector<int32_t> candidates = triggers_->candidates(state_.scan, state_.anchor);
        std::sort(candidates.begin(), candidates.end());
        candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
        for (int32_t t : candidates) {
            bool ok = false;
            try {
                MatchState next;
                ok = trial(state_, t, next);
            } catch (const std::runtime_error&) {  // LimitError or TriggerError: the token is refused
                ok = false;
            }
            if (!ok) words[static_cast<size_t>(t) >> 5] &= ~(1u << (t & 31));
        }
        if (cacheable) awaiting_masks_->store(state_.scan, words, n_words);
    }

    std::shared_ptr<MaskEngine> engine_;
    MatchState state_;
    std::deque<MatchState> history_;
    size_t max_history_;
    std::string error_;
    bool has_error_ = false;
    std::shared_ptr<const Triggers> triggers_;
    std::shared_ptr<AwaitingMasks> awaiting_masks_;
    std::shared_ptr<std::string> buffer_;
};

}  // namespace pegchat

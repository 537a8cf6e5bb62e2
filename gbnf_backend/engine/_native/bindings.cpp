// nanobind binding of the compiled core: gbnf_backend._native._core (see _core.pyi for the Python view).
//
// Every argument is checked here or in the engine: ids, states, partial characters, rollback counts, and bitmask
// buffers (dtype int32, CPU, two dimensions, contiguous rows, writable, row index in range). Batch fills check
// everything first, then release the GIL and fill on a few threads.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>

#include "chains.hpp"
#include "gbnf_build.hpp"
#include "matcher.hpp"

namespace nb = nanobind;
using namespace pegchat;

namespace {

using Buffer = nb::ndarray<nb::device::cpu>;
using PartialTuple = std::optional<std::tuple<int64_t, int64_t, int64_t>>;

Partial to_partial(const PartialTuple& t) {
    if (!t) return NO_PARTIAL;
    auto [value, remaining, length] = *t;
    if (value < 0 || value >= (1 << 21) || remaining < 1 || remaining > 3 || length < 2 || length > 4 ||
        remaining >= length)
        throw InputError("bad partial UTF-8 character");
    Partial p = make_partial(static_cast<uint32_t>(value), static_cast<uint32_t>(remaining),
                             static_cast<uint32_t>(length));
    if (!valid_partial(p)) throw InputError("bad partial UTF-8 character");
    return p;
}

PartialTuple from_partial(Partial p) {
    if (p == NO_PARTIAL) return std::nullopt;
    return std::make_tuple<int64_t, int64_t, int64_t>(partial_value(p), partial_remaining(p), partial_length(p));
}

// The row `index` of a (batch, words) int32 buffer, checked; returns (pointer, words in the row).
std::pair<uint32_t*, size_t> checked_row(Buffer& buffer, int64_t index) {
    if (buffer.dtype() != nb::dtype<int32_t>())
        throw nb::type_error("the bitmask must have dtype int32");
    if (buffer.ndim() != 2 && buffer.ndim() != 1)
        throw nb::type_error("the bitmask must have shape (batch, words) or (words,)");
    if (buffer.ndim() == 1) {
        if (index != 0) throw std::out_of_range("row index out of range for a one-dimensional bitmask");
        if (buffer.shape(0) > 1 && buffer.stride(0) != 1) throw InputError("the bitmask must be contiguous");
        return {static_cast<uint32_t*>(buffer.data()), buffer.shape(0)};
    }
    if (index < 0 || static_cast<uint64_t>(index) >= buffer.shape(0))
        throw std::out_of_range("row index " + std::to_string(index) + " out of range for a batch of " +
                                std::to_string(buffer.shape(0)));
    if (buffer.shape(1) > 1 && buffer.stride(1) != 1) throw InputError("bitmask rows must be contiguous");
    auto* base = static_cast<int32_t*>(buffer.data());
    return {reinterpret_cast<uint32_t*>(base + index * buffer.stride(0)), buffer.shape(1)};
}

std::vector<std::string> bytes_list(const nb::sequence& tokens) {
    std::vector<std::string> out;
    out.reserve(nb::len(tokens));
    for (nb::handle item : tokens) {
        if (!nb::isinstance<nb::bytes>(item)) throw nb::type_error("token_bytes must hold bytes");
        nb::bytes b = nb::borrow<nb::bytes>(item);
        out.emplace_back(b.c_str(), b.size());
    }
    return out;
}

// A compiled grammar: the automaton plus (optionally) the mask engine over a vocabulary.
struct Engine {
    std::shared_ptr<MaskEngine> engine;

    template <class F>
    auto locked(F&& f) {
        std::lock_guard<std::mutex> lock(engine->mutex());
        engine->npda().begin_step();
        return f(engine->npda());
    }
};

struct NativeMatcher {
    std::unique_ptr<Matcher> matcher;
};

// ---- lazy matchers (triggers.hpp) ----------------------------------------------------------------------------------
// The pattern triggers' start, answered by a Python callable (bytes, old_length) -> int (-1: no match). Called with the
// GIL taken (a batch fill runs without it); a Python exception becomes a TriggerError (the matcher's sticky error).
struct PyPatternOracle final : PatternOracle {
    explicit PyPatternOracle(nb::object callable) : callable(std::move(callable)) {}
    int64_t start(const std::string& buffer, size_t old_length) const override {
        nb::gil_scoped_acquire gil;
        try {
            nb::object found = callable(nb::bytes(buffer.data(), buffer.size()), old_length);
            return nb::cast<int64_t>(found);
        } catch (const std::exception& e) {
            throw TriggerError(std::string("pattern trigger failed: ") + e.what());
        }
    }
    nb::object callable;
};

struct TriggersHandle {
    std::shared_ptr<const Triggers> triggers;
};

struct AwaitingHandle {
    std::shared_ptr<AwaitingMasks> masks;
};

// Native-endian int32 values packed in bytes (numpy's tobytes()): the cheap way across for long tables.
std::vector<int32_t> int32_values(const nb::bytes& data) {
    if (data.size() % sizeof(int32_t)) throw InputError("int32 table: byte length not a multiple of 4");
    std::vector<int32_t> out(data.size() / sizeof(int32_t));
    if (!out.empty()) std::memcpy(out.data(), data.c_str(), data.size());
    return out;
}

std::vector<std::vector<int32_t>> int32_lists(const std::vector<nb::bytes>& lists) {
    std::vector<std::vector<int32_t>> out;
    out.reserve(lists.size());
    for (const auto& list : lists) out.push_back(int32_values(list));
    return out;
}


// ---- GBNF text -> rules (gbnf_build.hpp), as the Python objects Grammar keeps -------------------------------------

// `t` (a tuple of ints, or of such tuples) left out of the cyclic garbage collector's lists: it can be in no
// reference cycle, and the collector would untrack it on its first pass anyway, after walking it (grammars and key
// automata hold 10^4-10^5 of them, which every collection of a large process would otherwise visit).
template <typename T>
T untracked(T t) {
    if (PyObject_GC_IsTracked(t.ptr())) PyObject_GC_UnTrack(t.ptr());
    return t;
}

// A Python tuple of element tuples; equal elements share one tuple object (they are immutable).
PyObject* element_tuple(const std::vector<gbnf_build::Element>& elements,
                        std::unordered_map<uint64_t, PyObject*>& cache) {
    PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(elements.size()));
    if (out == nullptr) throw nb::python_error();
    for (size_t i = 0; i < elements.size(); ++i) {
        const auto& [kind, value] = elements[i];
        PyObject*& item = cache[pair_key(kind, value)];
        if (item == nullptr) {
            item = Py_BuildValue("(ii)", kind, value);
            if (item == nullptr) {
                Py_DECREF(out);
                throw nb::python_error();
            }
            PyObject_GC_UnTrack(item);  // (two ints: see untracked())
        }
        Py_INCREF(item);
        PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), item);
    }
    PyObject_GC_UnTrack(out);  // (untracked element tuples only: see untracked())
    return out;
}

nb::object build_grammar(const nb::str& text, const std::string& root) {
    PyObject* s = text.ptr();
    const Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    const int kind = PyUnicode_KIND(s);
    const void* data = PyUnicode_DATA(s);
    std::vector<uint32_t> points(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) points[static_cast<size_t>(i)] = PyUnicode_READ(kind, data, i);
    gbnf_build::Built built;
    if (!gbnf_build::build(points.data(), points.size(), root, built)) return nb::none();
    std::unordered_map<uint64_t, PyObject*> cache;
    struct Release {
        std::unordered_map<uint64_t, PyObject*>& cache;
        ~Release() {
            for (auto& entry : cache) Py_XDECREF(entry.second);
        }
    } release{cache};
    nb::list names, rules, nullable, chains, generated;
    for (std::string_view name : built.names) names.append(nb::str(name.data(), name.size()));
    for (const auto& rule : built.rules) rules.append(nb::steal(element_tuple(rule, cache)));
    for (uint8_t flag : built.nullable) nullable.append(nb::bool_(flag != 0));
    for (const auto& [links, unit] : built.chains) {
        nb::list ids;
        for (int32_t id : links) ids.append(id);
        chains.append(untracked(nb::make_tuple(untracked(nb::tuple(ids)), nb::steal(element_tuple(unit, cache)))));
    }
    for (int32_t id : built.generated) generated.append(id);
    return nb::make_tuple(names, rules, nullable, chains, generated, built.root);
}

}  // namespace

NB_MODULE(_core, m) {
    m.doc() = "The compiled core of gbnf_backend: NPDA, byte trie, token masks, matcher.";
    nb::exception<LimitError>(m, "LimitError", PyExc_RuntimeError);

    nb::class_<VocabTrie>(m, "VocabTrie")
        .def(
            "__init__",
            [](VocabTrie* self, const nb::sequence& token_bytes, const nb::bytes& is_text,
               const std::vector<int64_t>& eos, const std::vector<int64_t>& special) {
                std::vector<std::string> tokens = bytes_list(token_bytes);
                std::vector<uint8_t> text(is_text.c_str(), is_text.c_str() + is_text.size());
                new (self) VocabTrie(tokens, text, eos, special);
            },
            nb::arg("token_bytes"), nb::arg("is_text"), nb::arg("eos"), nb::arg("special"))
        .def_prop_ro("size", &VocabTrie::size)
        .def_prop_ro("n_words", &VocabTrie::n_words)
        .def_prop_ro("n_nodes", &VocabTrie::n_nodes)
        .def_prop_ro("memory_bytes", &VocabTrie::memory_bytes);

    nb::class_<Engine>(m, "Engine")
        .def(
            "__init__",
            [](Engine* self, std::vector<int32_t> kinds, std::vector<int32_t> values, std::vector<int32_t> rule_start,
               const std::vector<uint8_t>& rule_nullable, int32_t root, std::shared_ptr<VocabTrie> trie,
               size_t max_stacks, size_t max_work, std::vector<int32_t> canonical) {
                Limits limits;
                limits.max_stacks = max_stacks;
                limits.max_work = max_work;
                auto npda = std::make_unique<Npda>(std::move(kinds), std::move(values), std::move(rule_start),
                                                   rule_nullable, root, limits);
                npda->set_canonical(std::move(canonical));
                new (self) Engine{std::make_shared<MaskEngine>(std::move(npda), std::move(trie))};
            },
            nb::arg("kinds"), nb::arg("values"), nb::arg("rule_start"), nb::arg("rule_nullable"), nb::arg("root"),
            nb::arg("trie").none(), nb::arg("max_stacks") = 20000, nb::arg("max_work") = 250000,
            nb::arg("canonical") = std::vector<int32_t>())
        .def_prop_ro("initial", [](Engine& e) { return e.locked([](Npda& n) { return n.initial(); }); })
        .def_prop_ro("n_states", [](Engine& e) { return e.locked([](Npda& n) { return n.n_states(); }); })
        .def_prop_ro("n_nodes", [](Engine& e) { return e.locked([](Npda& n) { return n.n_nodes(); }); })
        .def_prop_ro("memory_bytes",
                     [](Engine& e) {
                         std::lock_guard<std::mutex> lock(e.engine->mutex());
                         return e.engine->memory_bytes();
                     })
        .def("stats",
             [](Engine& e) {
                 std::lock_guard<std::mutex> lock(e.engine->mutex());
                 auto s = e.engine->stats();
                 return std::make_tuple(s.masks, s.mask_hits, s.byte_states, s.nodes_walked);
             })
        .def("step_char",
             [](Engine& e, int32_t state, int64_t cp) {
                 if (cp < 0 || cp > MAX_CODE_POINT) throw InputError("code point out of range");
                 return e.locked([&](Npda& n) { return n.step_char(state, static_cast<uint32_t>(cp)); });
             })
        .def("step_text",
             [](Engine& e, int32_t state, const std::string& text) {
                 // `text` arrives as UTF-8 (nanobind encodes the str), so it decodes without checks.
                 return e.locked([&](Npda& n) {
                     n.check_state(state);
                     const auto* s = reinterpret_cast<const uint8_t*>(text.data());
                     size_t i = 0;
                     while (i < text.size()) {
                         uint32_t cp = s[i];
                         size_t extra = cp < 0x80 ? 0 : cp < 0xE0 ? 1 : cp < 0xF0 ? 2 : 3;
                         if (extra) cp &= 0x3F >> extra;
                         for (size_t k = 1; k <= extra && i + k < text.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
                         i += extra + 1;
                         n.begin_step();
                         state = n.step_char(state, cp);
                         if (state == DEAD) break;
                     }
                     return state;
                 });
             })
        .def("step_token_reference",
             [](Engine& e, int32_t state, int64_t token) {
                 return e.locked([&](Npda& n) { return n.step_token_reference(state, token); });
             })
        .def("union", [](Engine& e, int32_t a,
                         int32_t b) { return e.locked([&](Npda& n) { return n.union_states(a, b); }); })
        .def("feed_bytes",
             [](Engine& e, int32_t state, PartialTuple partial, const nb::bytes& data) {
                 Partial p = to_partial(partial);
                 return e.locked([&](Npda& n) {
                     n.check_state(state);
                     std::pair<int32_t, Partial> out{state, p};
                     for (size_t i = 0; i < data.size(); ++i) {
                         n.begin_step();
                         out = step_byte(n, out.first, out.second, static_cast<uint8_t>(data.c_str()[i]));
                         if (out.first == DEAD) break;
                     }
                     return std::make_pair(out.first, from_partial(out.second));
                 });
             })
        .def("canonical_state",
             [](Engine& e, int32_t state) { return e.locked([&](Npda& n) { return n.canonical_state(state); }); })
        .def("can_end", [](Engine& e, int32_t state) { return e.locked([&](Npda& n) { return n.can_end(state); }); })
        .def("stacks", [](Engine& e, int32_t state) { return e.locked([&](Npda& n) { return n.stacks(state); }); })
        .def("stack_positions",
             [](Engine& e, int32_t node) { return e.locked([&](Npda& n) { return n.stack_positions(node); }); })
        .def("next_chars",
             [](Engine& e, int32_t state) {
                 // (terminal ranges, negated flag) per class-topped stack, plus token ids; merged in Python.
                 return e.locked([&](Npda& n) {
                     std::vector<std::tuple<bool, std::vector<std::pair<uint32_t, uint32_t>>>> classes;
                     std::vector<int64_t> tokens, not_tokens;
                     for (int32_t stack : n.stacks(state)) {
                         if (stack <= SENTINEL) continue;
                         int32_t p = n.node_position(stack);
                         if (n.kind(p) == TOKEN)
                             tokens.push_back(n.value(p));
                         else if (n.kind(p) == TOKEN_NOT)
                             not_tokens.push_back(n.value(p));
                         else
                             classes.emplace_back(n.terminal(p).negated, n.terminal(p).ranges);
                     }
                     return std::make_tuple(classes, n.can_end(state), tokens, not_tokens);
                 });
             })
        .def("set_preserved",
             [](Engine& e, std::vector<int64_t> ids) {
                 std::lock_guard<std::mutex> lock(e.engine->mutex());
                 e.engine->set_preserved(std::move(ids));
             })
        .def("fill_state",
             [](Engine& e, int32_t state, PartialTuple partial, Buffer buffer, int64_t index) {
                 Partial p = to_partial(partial);
                 auto [row, n_cols] = checked_row(buffer, index);
                 std::lock_guard<std::mutex> lock(e.engine->mutex());
                 const size_t n_words = e.engine->trie().n_words();
                 if (n_cols < n_words) throw InputError("bitmask row too short for the vocabulary");
                 e.engine->npda().check_state(state);
                 std::fill(row + n_words, row + n_cols, 0u);
                 e.engine->write_mask(state, p, row);
             },
             nb::arg("state"), nb::arg("partial").none(), nb::arg("buffer"), nb::arg("index") = 0);

    m.def("build_grammar", &build_grammar, nb::arg("text"), nb::arg("root"),
          "Parse and check GBNF text: (names, rules, nullable, chains, generated, root id), or None when the Python "
          "parser must run (it reports the error).");

    m.def(
        "determinize",
        [](const std::vector<std::vector<int32_t>>& eps,
           const std::vector<std::vector<std::tuple<uint32_t, uint32_t, int32_t>>>& edges,
           const std::vector<int32_t>& final_component, size_t max_states) -> nb::object {
            const size_t n = eps.size();
            if (n == 0 || edges.size() != n || final_component.size() != n)
                throw InputError("eps, edges and final_component must describe the same non-empty NFA");
            for (size_t s = 0; s < n; ++s) {
                for (int32_t t : eps[s])
                    if (t < 0 || static_cast<size_t>(t) >= n) throw InputError("epsilon target out of range");
                for (const auto& [lo, hi, t] : edges[s])
                    if (t < 0 || static_cast<size_t>(t) >= n || lo > hi || hi > MAX_CODE_POINT)
                        throw InputError("edge out of range");
            }
            std::vector<gbnf_build::DfaRow> rows;
            std::vector<std::vector<int32_t>> states;
            if (!gbnf_build::determinize(eps, edges, max_states, rows, states)) return nb::none();
            nb::list py_rows, accepts;
            for (const auto& row : rows) {
                nb::list py_row;
                for (const auto& [ranges, target] : row) {
                    nb::list py_ranges;
                    for (const auto& [lo, hi] : ranges) py_ranges.append(untracked(nb::make_tuple(lo, hi)));
                    py_row.append(untracked(nb::make_tuple(untracked(nb::tuple(py_ranges)), target)));
                }
                py_rows.append(untracked(nb::tuple(py_row)));
            }
            for (const auto& members : states) {
                nb::list components;
                for (int32_t s : members)
                    if (final_component[s] >= 0) components.append(final_component[s]);
                accepts.append(components);
            }
            // Per state, (target, characters leading there): targets in order of first appearance, the ranges of
            // a target's transitions merged (KeyDfa.by_target).
            nb::list by_target;
            for (const auto& row : rows) {
                std::vector<int32_t> targets;
                std::unordered_map<int32_t, std::vector<gbnf_build::Range>> ranges_of;
                for (const auto& [ranges, target] : row) {
                    auto [it, fresh] = ranges_of.emplace(target, std::vector<gbnf_build::Range>{});
                    if (fresh) targets.push_back(target);
                    it->second.insert(it->second.end(), ranges.begin(), ranges.end());
                }
                nb::list grouped;
                for (int32_t target : targets) {
                    auto& ranges = ranges_of[target];
                    std::sort(ranges.begin(), ranges.end());
                    nb::list merged;
                    uint32_t lo = ranges[0].first, hi = ranges[0].second;
                    for (size_t k = 1; k < ranges.size(); ++k) {
                        if (ranges[k].first <= hi + 1) {
                            hi = std::max(hi, ranges[k].second);
                        } else {
                            merged.append(untracked(nb::make_tuple(lo, hi)));
                            lo = ranges[k].first;
                            hi = ranges[k].second;
                        }
                    }
                    merged.append(untracked(nb::make_tuple(lo, hi)));
                    grouped.append(untracked(nb::make_tuple(target, untracked(nb::tuple(merged)))));
                }
                by_target.append(untracked(nb::tuple(grouped)));
            }
            return nb::make_tuple(py_rows, accepts, by_target);
        },
        nb::arg("eps"), nb::arg("edges"), nb::arg("final_component"), nb::arg("max_states"),
        "Subset construction of a key NFA: (rows, accepting components per state, rows grouped by target), or None "
        "beyond max_states.");

    m.def(
        "reachable_rules",
        [](const std::vector<std::string>& names, const std::vector<std::string>& bodies, size_t root) {
            if (names.size() != bodies.size() || root >= names.size())
                throw InputError("names and bodies differ in length, or root is out of range");
            std::vector<uint8_t> seen = gbnf_build::reachable_rules(names, bodies, root);
            return std::vector<bool>(seen.begin(), seen.end());
        },
        nb::arg("names"), nb::arg("bodies"), nb::arg("root"),
        "Per rule, whether rule `root` reaches it through the names its GBNF body uses.");

    m.def(
        "compile_rules",
        [](const std::vector<std::vector<ElementPair>>& rules, const std::vector<uint8_t>& nullable, int32_t root,
           const std::vector<std::pair<std::vector<int32_t>, std::vector<ElementPair>>>& chains,
           std::shared_ptr<VocabTrie> trie, int64_t max_token_length, size_t max_stacks, size_t max_work) {
            std::vector<ChainInput> inputs;
            for (const auto& c : chains) inputs.push_back(ChainInput{c.first, c.second});
            Tables t = build_tables(rules, nullable, inputs, max_token_length, trie != nullptr);
            Limits limits;
            limits.max_stacks = max_stacks;
            limits.max_work = max_work;
            auto npda = std::make_unique<Npda>(std::move(t.kinds), std::move(t.values), std::move(t.rule_start),
                                               t.nullable, root, limits);
            npda->set_canonical(std::move(t.canonical));
            npda->set_relaxation(std::move(t.short_left), std::move(t.short_twin));
            return new Engine{std::make_shared<MaskEngine>(std::move(npda), std::move(trie))};
        },
        nb::arg("rules"), nb::arg("nullable"), nb::arg("root"), nb::arg("chains"), nb::arg("trie").none(),
        nb::arg("max_token_length"), nb::arg("max_stacks") = 20000, nb::arg("max_work") = 250000,
        nb::rv_policy::take_ownership);

    nb::class_<NativeMatcher>(m, "Matcher")
        .def(
            "__init__",
            [](NativeMatcher* self, Engine& engine, size_t max_rollback, TriggersHandle* triggers,
               AwaitingHandle* awaiting_masks) {
                new (self) NativeMatcher{std::make_unique<Matcher>(
                    engine.engine, max_rollback, triggers ? triggers->triggers : nullptr,
                    awaiting_masks ? awaiting_masks->masks : nullptr)};
            },
            nb::arg("engine"), nb::arg("max_rollback_tokens") = 256, nb::arg("triggers").none() = nb::none(),
            nb::arg("awaiting_masks").none() = nb::none())
        .def("is_lazy", [](NativeMatcher& m) { return m.matcher->is_lazy(); })
        .def("is_awaiting", [](NativeMatcher& m) { return m.matcher->is_awaiting(); })
        .def("reset", [](NativeMatcher& m) { m.matcher->reset(); })
        .def("fork", [](NativeMatcher& m) { return NativeMatcher{m.matcher->fork()}; })
        .def("is_error", [](NativeMatcher& m) { return m.matcher->is_error(); })
        .def_prop_ro("error",
                     [](NativeMatcher& m) -> std::optional<std::string> {
                         if (!m.matcher->is_error()) return std::nullopt;
                         return m.matcher->error();
                     })
        .def("is_terminated", [](NativeMatcher& m) { return m.matcher->is_terminated(); })
        .def("can_end", [](NativeMatcher& m) { return m.matcher->can_end(); })
        .def_prop_ro("npda_state", [](NativeMatcher& m) { return m.matcher->npda_state(); })
        .def_prop_ro("partial", [](NativeMatcher& m) { return from_partial(m.matcher->partial()); })
        .def_prop_ro("history_size", [](NativeMatcher& m) { return m.matcher->history_size(); })
        .def("accept_token", [](NativeMatcher& m, int64_t token) { return m.matcher->accept_token(token); })
        .def("is_token_allowed", [](NativeMatcher& m, int64_t token) { return m.matcher->is_token_allowed(token); })
        .def("accept_bytes", [](NativeMatcher& m, const nb::bytes& data) {
            return m.matcher->accept_bytes(std::string(data.c_str(), data.size()));
        })
        .def("rollback", [](NativeMatcher& m, int64_t n) { m.matcher->rollback(n); })
        .def(
            "fill",
            [](NativeMatcher& m, Buffer buffer, int64_t index) {
                auto [row, n_cols] = checked_row(buffer, index);
                return m.matcher->fill(row, n_cols);
            },
            nb::arg("buffer"), nb::arg("index") = 0);

    m.def(
        "fill_batch",
        [](const std::vector<NativeMatcher*>& matchers, Buffer buffer, std::optional<std::vector<int64_t>> indices,
           int64_t threads) {
            const size_t n = matchers.size();
            if (indices && indices->size() != n) throw InputError("indices and matchers differ in length");
            if (threads < 1 || threads > 64) throw InputError("threads must be between 1 and 64");
            std::vector<std::pair<uint32_t*, size_t>> rows;
            rows.reserve(n);
            for (size_t i = 0; i < n; ++i) {
                if (matchers[i] == nullptr) throw nb::type_error("fill_batch needs Matcher objects");
                for (size_t j = 0; j < i; ++j)
                    if (matchers[j] == matchers[i]) throw InputError("the same matcher appears twice in a batch");
                rows.push_back(checked_row(buffer, indices ? (*indices)[i] : static_cast<int64_t>(i)));
            }
            std::vector<uint8_t> results(n, 0);
            {
                nb::gil_scoped_release release;
                std::atomic<size_t> next{0};
                auto work = [&]() {
                    for (size_t i = next++; i < n; i = next++) {
                        try {
                            results[i] = matchers[i]->matcher->fill(rows[i].first, rows[i].second) ? 1 : 0;
                        } catch (...) {
                            // Rows were checked above; only an allocation failure can land here: refuse all.
                            std::fill(rows[i].first, rows[i].first + rows[i].second, 0u);
                            results[i] = 1;
                        }
                    }
                };
                size_t extra = std::min<size_t>(static_cast<size_t>(threads), n) - (n > 0 ? 1 : 0);
                std::vector<std::thread> pool;
                for (size_t t = 0; t < extra; ++t) pool.emplace_back(work);
                work();
                for (auto& t : pool) t.join();
            }
            return std::vector<bool>(results.begin(), results.end());
        },
        nb::arg("matchers"), nb::arg("buffer"), nb::arg("indices").none() = nb::none(), nb::arg("threads") = 2);

    // ---- lazy matchers ---------------------------------------------------------------------------------------------
    nb::class_<TriggersHandle>(m, "Triggers")
        .def(
            "__init__",
            [](TriggersHandle* self, size_t vocab_size, const nb::bytes& word_table, const nb::bytes& word_lengths,
               const std::vector<nb::bytes>& firing, const nb::bytes& anchor_table, const nb::bytes& anchor_lengths,
               const std::vector<nb::bytes>& anchor_firing, const nb::bytes& containing,
               std::vector<int64_t> trigger_tokens,
               std::vector<int64_t> preserved, bool has_patterns, bool patterns_exact, nb::object pattern_start) {
                auto automaton = [](const nb::bytes& table, const nb::bytes& lengths) {
                    std::vector<int32_t> t = int32_values(table), l = int32_values(lengths);
                    return t.empty() && l.empty() ? WordAutomaton() : WordAutomaton(std::move(t), std::move(l));
                };
                std::shared_ptr<const PatternOracle> oracle;
                if (!pattern_start.is_none()) oracle = std::make_shared<PyPatternOracle>(pattern_start);
                new (self) TriggersHandle{std::make_shared<const Triggers>(
                    vocab_size, automaton(word_table, word_lengths), int32_lists(firing),
                    automaton(anchor_table, anchor_lengths), int32_lists(anchor_firing), int32_values(containing),
                    std::move(trigger_tokens),
                    std::move(preserved), has_patterns, patterns_exact, std::move(oracle))};
            },
            nb::arg("vocab_size"), nb::arg("word_table"), nb::arg("word_lengths"), nb::arg("firing"),
            nb::arg("anchor_table"), nb::arg("anchor_lengths"), nb::arg("anchor_firing"), nb::arg("containing"), nb::arg("trigger_tokens"),
            nb::arg("preserved"), nb::arg("has_patterns"), nb::arg("patterns_exact"),
            nb::arg("pattern_start").none())
        .def_prop_ro("memory_bytes", [](TriggersHandle& t) { return t.triggers->memory_bytes(); });

    nb::class_<AwaitingHandle>(m, "AwaitingMasks")
        .def("__init__", [](AwaitingHandle* self) { new (self) AwaitingHandle{std::make_shared<AwaitingMasks>()}; })
        .def_prop_ro("memory_bytes", [](AwaitingHandle& a) { return a.masks->memory_bytes(); });
}

// The rules of transformers 4.57 for each attention implementation, read from its source:
// masking_utils.py (_preprocess_mask_arguments, find_packed_sequence_indices, sdpa_mask, eager_mask,
// flash_attention_mask, flex_attention_mask) and modeling_flash_attention_utils.py
// (_flash_attention_forward, _is_packed_sequence, prepare_fa_kwargs_from_position_ids, _upad_input).
#include "core/mask/EffectiveAttention.h"
#include "core/util/Error.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace maskscope {

const char* attnImplementationName(AttnImplementation impl) {
  switch (impl) {
  case AttnImplementation::Eager:
    return "eager";
  case AttnImplementation::Sdpa:
    return "sdpa";
  case AttnImplementation::FlashAttention2:
    return "flash_attention_2";
  case AttnImplementation::FlexAttention:
    return "flex_attention";
  }
  return "?";
}

std::optional<AttnImplementation> attnImplementationFromName(std::string_view name) {
  for (AttnImplementation a : kAttnImplementations)
    if (name == attnImplementationName(a)) return a;
  return std::nullopt;
}

std::string attnImplementationList() {
  std::string out;
  for (AttnImplementation a : kAttnImplementations)
    out += std::string(out.empty() ? "" : ", ") + attnImplementationName(a);
  return out;
}

namespace {

// Boundaries the dump states itself (cu_seq_lens of its one flattened row), as segmentsOfRow reads them.
const std::vector<Segment>* statedCuSeqLens(const Batch& b) {
  if (!b.cuSeqLensGiven || b.batchSize() != 1 || b.segments.empty() || b.segments[0].size() < 2) return nullptr;
  return &b.segments[0];
}

bool maskAbsent(const Batch& b) {
  return b.attentionMask4d.empty() && (!b.attentionMaskGiven || (b.framework && b.framework->paddingFree));
}

// An empty row (T = 0: every token lost to a hostile tokenizer) has no positions to read.
bool havePositions(const Batch& b) {
  return b.positionIds.sameShape(b.inputIds) && b.inputIds.rows > 0 && b.inputIds.cols > 0;
}

bool anyMaskValue(const Batch& b, bool (*pred)(int64_t)) {
  return std::any_of(b.attentionMask.values.begin(), b.attentionMask.values.end(), pred);
}

std::string listOf(const std::vector<int64_t>& at) {
  std::string out;
  const size_t shown = std::min<size_t>(at.size(), 6);
  for (size_t i = 0; i < shown; ++i)
    out += (i == 0 ? "" : (i + 1 == shown && shown == at.size() ? " and " : ", ")) + std::to_string(at[i]);
  if (shown < at.size()) out += ", ... (" + std::to_string(at.size()) + " in all)";
  return out;
}

std::vector<int64_t> startsOf(const std::vector<int64_t>& seg) {
  std::vector<int64_t> out;
  for (size_t t = 1; t < seg.size(); ++t)
    if (seg[t] != 0 && seg[t] != seg[t - 1] && seg[t - 1] != 0) out.push_back(int64_t(t));
  return out;
}

// "row 0 splits at 3 and 5 -> 3 sequences" for the first row that splits; empty when none does.
std::string splitsText(const std::vector<std::vector<int64_t>>& segs, const char* verb) {
  for (size_t r = 0; r < segs.size(); ++r) {
    const std::vector<int64_t> starts = startsOf(segs[r]);
    if (starts.empty()) continue;
    std::string out = (segs.size() > 1 ? "row " + std::to_string(r) + " " : std::string()) + verb + " at " +
                      listOf(starts) + " \u2192 " + std::to_string(starts.size() + 1) + " sequences";
    return out;
  }
  return {};
}

// Left padding: positions transformers uses there do not start at 0 at the first real token.
std::string leftPaddingNote(const Batch& b) {
  if (b.attentionMask4d.size() || maskAbsent(b)) return {};
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    int64_t first = 0;
    while (first < b.length() && b.attentionMask.at(r, first) == 0) ++first;
    if (first == 0 || first == b.length()) continue;
    const int64_t pos = havePositions(b) ? b.positionIds.at(r, first) : first;
    if (pos == 0) continue;
    return std::string("; left padding: ") +
           (havePositions(b) ? "the given position_ids are not derived from attention_mask"
                             : "no position_ids, so transformers counts 0..T-1 across the pads") +
           ", so row " + std::to_string(r) + "'s first real token has position " + std::to_string(pos) +
           ", not 0 (every position of the row is shifted)";
  }
  return {};
}

void sdpaFamily(const Batch& b, EffectiveMask& m) {
  const int64_t B = b.batchSize(), T = b.length();
  const std::string cuNote = statedCuSeqLens(b) ? "; it does not read the dump's cu_seq_lens" : "";
  if (!maskAbsent(b)) {
    for (int64_t r = 0; r < B; ++r)
      for (int64_t t = 0; t < T; ++t) m.segments[size_t(r)][size_t(t)] = b.attentionMask.at(r, t);
    if (anyMaskValue(b, [](int64_t v) { return v > 1; }))
      m.rule = "attention_mask holds segment ids (values above 1): read as the block-diagonal mask they stand for "
               "(LLaMA-Factory's 4-D mask, axolotl's multipack patch); stock transformers casts a 2-D mask to bool "
               "and would let the examples attend to each other";
    else if (anyMaskValue(b, [](int64_t v) { return v == 0; }))
      m.rule = "attention_mask is given, so transformers hides its 0 keys (padding_mask_function) and does not look "
               "for packed sequences in position_ids: causal within each whole row";
    else
      m.rule = "attention_mask is all ones, so transformers applies plain causal attention over each whole row: a "
               "given mask turns off its packed-sequence detection (find_packed_sequence_indices runs only when "
               "attention_mask is None)";
    m.rule += cuNote;
    return;
  }
  if (!havePositions(b)) {
    m.rule = "no attention_mask and no position_ids: causal over each whole row" + cuNote;
    return;
  }
  // find_packed_sequence_indices: a new sequence wherever position_ids do not step by exactly 1.
  for (int64_t r = 0; r < B; ++r) {
    int64_t id = 1;
    for (int64_t t = 0; t < T; ++t) {
      if (t > 0 && b.positionIds.at(r, t) - b.positionIds.at(r, t - 1) != 1) ++id;
      m.segments[size_t(r)][size_t(t)] = id;
    }
  }
  const std::string splits = splitsText(m.segments, "splits");
  m.rule = splits.empty() ? "no attention_mask and position_ids step by 1 throughout: causal over each whole row"
                          : "no attention_mask, so transformers (>= 4.53) splits the row where position_ids do not "
                            "step by 1 (find_packed_sequence_indices): " +
                                splits;
  m.rule += cuNote;
}

// _is_packed_sequence: a batch of one row whose position_ids are not arange(T) + min.
bool packedPositions(const Batch& b, int64_t r) {
  int64_t lo = b.positionIds.at(r, 0);
  for (int64_t t = 0; t < b.length(); ++t) lo = std::min(lo, b.positionIds.at(r, t));
  for (int64_t t = 0; t < b.length(); ++t)
    if (b.positionIds.at(r, t) != lo + t) return true;
  return false;
}

void flashNoMask(const Batch& b, EffectiveMask& m, const std::string& why) {
  const int64_t B = b.batchSize(), T = b.length();
  if (const std::vector<Segment>* cu = statedCuSeqLens(b)) {
    std::vector<int64_t> offsets{0};
    for (size_t i = 0; i < cu->size(); ++i) {
      offsets.push_back((*cu)[i].end);
      for (int64_t t = (*cu)[i].begin; t < (*cu)[i].end && t < T; ++t) m.segments[0][size_t(t)] = int64_t(i) + 1;
    }
    for (int64_t t = cu->back().end; t < T; ++t) m.segments[0][size_t(t)] = 0; // outside every sequence
    std::string cuText;
    for (int64_t o : offsets) cuText += (cuText.empty() ? "" : ", ") + std::to_string(o);
    m.rule =
        why + "; the dump's cu_seq_lens [" + cuText + "] \u2192 " + std::to_string(cu->size()) + " sequences (varlen)";
    return;
  }
  bool restarts = false;
  for (int64_t r = 0; r < B && havePositions(b); ++r) restarts = restarts || packedPositions(b, r);
  if (restarts && B == 1) {
    int64_t id = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (t == 0 || b.positionIds.at(0, t) == 0) ++id; // prepare_fa_kwargs_from_position_ids: cu at position 0
      m.segments[0][size_t(t)] = id;
    }
    m.rule = why + "; position_ids " + splitsText(m.segments, "restart at 0") + " (varlen, _is_packed_sequence)";
  } else if (restarts) {
    m.rule = why +
             "; position_ids restart within rows, but transformers reads them only for a batch of one row "
             "(_is_packed_sequence: batch_size == 1), so FlashAttention runs dense: causal over each whole row "
             "of the " +
             std::to_string(B) + "-row batch";
  } else {
    m.rule = why + ": causal over each whole row";
  }
}

void flash(const Batch& b, EffectiveMask& m) {
  const int64_t B = b.batchSize(), T = b.length();
  if (!b.attentionMask4d.empty())
    throw Error("flash_attention_2 cannot apply a 4-D attention_mask: transformers passes a 4-D mask on unchanged "
                "and FlashAttention only unpads by a 2-D padding mask (choose eager, sdpa or flex_attention)",
                {b.origin, -1, -1, -1, "attention_mask"});
  const bool absent = maskAbsent(b);
  if (!absent && anyMaskValue(b, [](int64_t v) { return v > 1; })) {
    for (int64_t r = 0; r < B; ++r) {
      int64_t id = 0;
      for (int64_t t = 0; t < T; ++t) {
        const int64_t v = b.attentionMask.at(r, t);
        if (v != 0 && (t == 0 || v != b.attentionMask.at(r, t - 1))) ++id;
        m.segments[size_t(r)][size_t(t)] = v == 0 ? 0 : id;
      }
    }
    m.rule = "attention_mask holds segment ids: each id is one sequence (varlen, axolotl's patched get_unpad_data; "
             "stock transformers casts them to 1)";
    return;
  }
  if (!absent && anyMaskValue(b, [](int64_t v) { return v == 0; })) {
    for (int64_t r = 0; r < B; ++r)
      for (int64_t t = 0; t < T; ++t) m.segments[size_t(r)][size_t(t)] = b.attentionMask.at(r, t) != 0 ? 1 : 0;
    m.rule = "attention_mask has padding, so transformers unpads by it (_upad_input): each row's non-padding tokens "
             "form one sequence (varlen); position_ids and cu_seq_lens are not read for masking";
    return;
  }
  flashNoMask(b, m,
              absent ? std::string("no attention_mask")
                     : std::string("attention_mask is all ones, so transformers drops it (flash_attention_mask)"));
}

// Every non-zero id of ids occupies one run of positions (ids only grow after a change, zeros aside).
bool contiguousRuns(const std::vector<int64_t>& ids) {
  int64_t highest = 0;
  for (size_t t = 0; t < ids.size(); ++t) {
    const int64_t v = ids[t];
    if (v == 0 || (t > 0 && v == ids[t - 1])) continue;
    if (v <= highest) return false;
    highest = v;
  }
  return true;
}

} // namespace

AttnChoice impliedAttnImplementation(const Batch& b) {
  const FrameworkFacts* f = b.framework.get();
  if (f && (!f->attnImplementationAssumed || f->paddingFree)) {
    const bool flashFamily = f->attnImplementation.starts_with("flash_attention");
    const auto named = attnImplementationFromName(f->attnImplementation);
    AttnChoice c{named         ? *named
                 : flashFamily ? AttnImplementation::FlashAttention2
                               : AttnImplementation::Sdpa,
                 true, ""};
    c.why = f->attnImplementationAssumed ? "what " + f->framework + " requires for this batch"
                                         : "the framework spec's attn_implementation \"" + f->attnImplementation + "\"";
    if (!named) c.why += flashFamily ? ", masked as flash_attention_2" : ", masked as sdpa";
    return c;
  }
  if (!b.attentionMask4d.empty())
    return {AttnImplementation::Sdpa, true, "transformers' default; the 4-D mask is used"};
  if (maskAbsent(b) || statedCuSeqLens(b))
    return {AttnImplementation::FlashAttention2, true,
            "the dump is padding-free (no attention_mask, or cu_seq_lens), as TRL padding_free and "
            "DataCollatorWithFlattening build it for flash_attention_2"};
  return {AttnImplementation::Sdpa, true, "transformers' default attn_implementation"};
}

AttnChoice chooseAttnImplementation(const Batch& b, const std::string& name) {
  if (name.empty()) return impliedAttnImplementation(b);
  const auto impl = attnImplementationFromName(name);
  if (!impl)
    throw Error("--attn-implementation: \"" + name + "\" is not one of " + attnImplementationList(),
                {"--attn-implementation"});
  return {*impl, false, "chosen"};
}

EffectiveMask effectiveAttention(const Batch& b, AttnImplementation impl) {
  if (b.attentionMask4d.empty() && !b.attentionMask.sameShape(b.inputIds)) { // a batch built without a mask
    Batch ones = b;
    ones.attentionMask = IntGrid(b.inputIds.rows, b.inputIds.cols, 1);
    return effectiveAttention(ones, impl);
  }
  EffectiveMask m;
  m.implementation = impl;
  m.segments.assign(size_t(std::max<int64_t>(b.batchSize(), 0)), std::vector<int64_t>(size_t(b.length()), 1));
  if (impl == AttnImplementation::FlashAttention2) {
    flash(b, m);
  } else if (!b.attentionMask4d.empty()) {
    m.cells = b.attentionMask4d;
    for (int64_t r = 0; r < b.batchSize(); ++r)
      for (int64_t t = 0; t < b.length(); ++t) m.segments[size_t(r)][size_t(t)] = b.attentionMask.at(r, t);
    m.rule = "a 4-D attention_mask is used as given (_preprocess_mask_arguments returns a 4-D mask unchanged)";
  } else {
    sdpaFamily(b, m);
  }
  const char* lead = impl == AttnImplementation::FlexAttention
                         ? "flex_attention (a BlockMask from the same mask functions as sdpa): "
                     : impl == AttnImplementation::Eager ? "eager: "
                     : impl == AttnImplementation::Sdpa  ? "sdpa: "
                                                         : "flash_attention_2: ";
  m.rule = lead + m.rule + leftPaddingNote(b);
  return m;
}

CellState EffectiveMask::state(int64_t row, int64_t q, int64_t k, int64_t window) const {
  static const std::vector<uint8_t> none;
  if (bidirectional) return bidirectionalCellState(segments.at(size_t(row)), k);
  return cellStateOf(segments.at(size_t(row)), cells.empty() ? none : cells[size_t(row)], q, k, window);
}

AttentionGrid EffectiveMask::grid(int64_t row, int64_t window) const {
  AttentionGrid g;
  g.size = int64_t(segments.at(size_t(row)).size());
  g.cells.resize(size_t(g.size * g.size));
  for (int64_t q = 0; q < g.size; ++q)
    for (int64_t k = 0; k < g.size; ++k) g.cells[size_t(q * g.size + k)] = state(row, q, k, window);
  return g;
}

int64_t EffectiveMask::crossExampleCells(int64_t row, const std::vector<Segment>& examples) const {
  const std::vector<int64_t>& seg = segments.at(size_t(row));
  const int64_t T = int64_t(seg.size());
  std::vector<int64_t> example(size_t(T), 0);
  for (size_t i = 0; i < examples.size(); ++i)
    for (int64_t t = std::max<int64_t>(0, examples[i].begin); t < examples[i].end && t < T; ++t)
      example[size_t(t)] = int64_t(i) + 1;
  if (!cells.empty()) { // a 4-D mask decides cell by cell: its [T, T] input is walked once
    int64_t n = 0;
    for (int64_t q = 0; q < T; ++q)
      for (int64_t k = 0; k < q && example[size_t(q)] != 0; ++k)
        n += example[size_t(k)] != 0 && example[size_t(q)] != example[size_t(k)] &&
             state(row, q, k) == CellState::Allowed;
    return n;
  }
  // Segments alone (cellStateOf without a window): key k < q is allowed iff its segment is not 0 and
  // the query's is 0 (a padding query) or the same. So count, in one pass over q, the earlier keys of
  // each (segment, example) pair: O(T), never the [T, T] grid (128k tokens = 16G cells). Where every
  // segment and every example is one run of positions (packing, padding at the ends) the counts of the
  // current runs suffice; otherwise (padding inside a row, ids that recur) they are hashed.
  if (contiguousRuns(seg) && contiguousRuns(example)) {
    int64_t n = 0, keys = 0, inSegment = 0, inBoth = 0, inExample = 0;
    for (int64_t q = 0; q < T; ++q) {
      const int64_t sq = seg[size_t(q)], eq = example[size_t(q)];
      if (q > 0 && sq != seg[size_t(q - 1)]) inSegment = inBoth = 0;
      if (q > 0 && eq != example[size_t(q - 1)]) inBoth = inExample = 0;
      if (eq != 0) n += sq == 0 ? keys - inExample : inSegment - inBoth;
      if (sq != 0 && eq != 0) { // q is a key for every later query
        ++keys;
        ++inSegment;
        ++inBoth;
        ++inExample;
      }
    }
    return n;
  }
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<uint64_t>()(uint64_t(p.first) * 1000003u + uint64_t(p.second)); // unsigned: wraps, never UB
    }
  };
  std::unordered_map<int64_t, int64_t> keysOfSegment, keysOfExample; // keys with an example, per segment / example
  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, PairHash> keysOfBoth;
  int64_t keys = 0; // keys with a segment and an example
  int64_t n = 0;
  for (int64_t q = 0; q < T; ++q) {
    const int64_t sq = seg[size_t(q)], eq = example[size_t(q)];
    if (eq != 0) {
      if (sq == 0) {
        auto it = keysOfExample.find(eq);
        n += keys - (it == keysOfExample.end() ? 0 : it->second);
      } else {
        auto s = keysOfSegment.find(sq);
        auto b = keysOfBoth.find({sq, eq});
        n += (s == keysOfSegment.end() ? 0 : s->second) - (b == keysOfBoth.end() ? 0 : b->second);
      }
    }
    if (sq != 0 && eq != 0) { // q is a key for every later query
      ++keys;
      ++keysOfSegment[sq];
      ++keysOfExample[eq];
      ++keysOfBoth[{sq, eq}];
    }
  }
  return n;
}

IntGrid EffectiveMask::segmentIdMask() const {
  const int64_t B = int64_t(segments.size()), T = B ? int64_t(segments[0].size()) : 0;
  if (bidirectional) throw Error("the bidirectional (BERT) mask is no causal model's: the loss engine cannot run it");
  IntGrid g(B, T);
  for (int64_t r = 0; r < B; ++r) {
    for (int64_t t = 0; t < T; ++t) g.at(r, t) = segments[size_t(r)][size_t(t)];
    if (cells.empty()) continue;
    // A 4-D mask runs in the engine only when it is what segment ids express: causal, same block.
    std::vector<int64_t> seg(size_t(T), 0);
    int64_t id = 0;
    for (int64_t q = 0; q < T; ++q) {
      const bool self = cells[size_t(r)][size_t(q * T + q)] != 0;
      const bool seesPrevious = q > 0 && cells[size_t(r)][size_t(q * T + q - 1)] != 0 && seg[size_t(q - 1)] != 0;
      seg[size_t(q)] = !self ? 0 : seesPrevious ? seg[size_t(q - 1)] : ++id;
    }
    for (int64_t q = 0; q < T; ++q)
      for (int64_t k = 0; k < T && seg[size_t(q)] != 0; ++k) // a padding query's output is never read
        if ((cellStateOf(seg, q, k) == CellState::Allowed) != (cells[size_t(r)][size_t(q * T + k)] != 0))
          throw Error("row " + std::to_string(r) + "'s 4-D attention_mask is not block-diagonal causal (cell [" +
                      std::to_string(q) + ", " + std::to_string(k) +
                      "]): the loss engine takes segment ids, so it cannot run this mask");
    for (int64_t t = 0; t < T; ++t) g.at(r, t) = seg[size_t(t)];
  }
  return g;
}

} // namespace maskscope

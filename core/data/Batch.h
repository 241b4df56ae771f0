// A collated batch, as a training step sees it: four [B, T] integer grids plus what the
// collator knows about each row (its packed segments and the role of every position).
#pragma once
#include "core/data/FrameworkFacts.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

inline constexpr int64_t kIgnoreIndex = -100; // labels value PyTorch's cross-entropy skips

// Row-major [rows, cols] grid of int64 (the dtype transformers uses for ids and masks).
struct IntGrid {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<int64_t> values;

  IntGrid() = default;
  IntGrid(int64_t r, int64_t c, int64_t fill = 0) : rows(r), cols(c), values(size_t(r * c), fill) {}
  int64_t& at(int64_t r, int64_t c) { return values[size_t(r * cols + c)]; }
  int64_t at(int64_t r, int64_t c) const { return values[size_t(r * cols + c)]; }
  bool empty() const { return values.empty(); }
  bool sameShape(const IntGrid& o) const { return rows == o.rows && cols == o.cols; }
  friend bool operator==(const IntGrid&, const IntGrid&) = default;
};

// What a position is, for display and for role-aware lint rules. Think: the reasoning span
// (<think>...</think>) inside an assistant reply, so it can be shown, graded or masked on its own.
// Tool: what a tool returned (a "tool"/"ipython" message); ToolCall: a call the assistant makes.
// Image: an image block the processor expanded (markers and image tokens; core/media), never graded
// by a correct collator.
// New kinds are appended: the numbering is in dumps and reports.
enum class PositionKind : uint8_t {
  Unknown,
  System,
  User,
  Assistant,
  Tool,
  Template,
  Padding,
  Separator,
  Think,
  ToolCall,
  Image
};
const char* positionKindName(PositionKind k);

// One packed example inside a row: positions [begin, end).
struct Segment {
  int64_t begin = 0;
  int64_t end = 0;
  long sourceRow = -1; // dataset row the example came from, -1 when unknown
};

struct PositionMeta {
  PositionKind kind = PositionKind::Unknown;
  int32_t messageIndex = -1;
  int32_t turn = -1;
  bool special = false;
  bool scaffolding = false;    // template text (headers, footers), not message content
  bool reply = false;          // part of an assistant reply as the template marks it (graded when correct)
  bool closesReply = false;    // the end-of-turn / EOS token that closes an assistant reply
  bool replyTruncated = false; // position belongs to a reply whose closing token was cut off
  // ToolCall / Tool positions: the function called or answering (core/data/ToolNames.h's number;
  // toolNameOf gives the text; a Mistral call list names its calls comma-separated); 0 = none.
  uint16_t toolName = 0;
};

struct Batch {
  IntGrid inputIds;      // [B, T]
  IntGrid attentionMask; // [B, T]: 0/1, or segment ids 1, 2, 3, ... (0 = padding) when packed
  IntGrid labels;        // [B, T]: token id to predict at this position's *input* (HF convention:
                         //          the model shifts), or -100 = ignored
  IntGrid positionIds;   // [B, T]; empty grid = not given (the model derives 0..T-1)
  // False when the dump or framework gave no attention_mask (attentionMask is then all ones): transformers
  // treats a missing mask differently from an all-ones one (core/mask/EffectiveAttention.h).
  bool attentionMaskGiven = true;
  // A 4-D attention_mask [B, 1, T, T] as given (per row [T * T], q * T + k, 1 = may attend); empty when the
  // dump's mask is 2-D. attentionMask then holds its diagonal (1 = the position attends to itself).
  std::vector<std::vector<uint8_t>> attentionMask4d;
  bool cuSeqLensGiven = false; // segments[0] holds the dump's own cu_seq_lens (FlashAttention varlen reads them)
  std::vector<std::vector<Segment>> segments;  // per row; empty when the row holds one example
  std::vector<std::vector<PositionMeta>> meta; // per row per position; empty for raw dumps
  std::optional<int64_t> padTokenId;
  std::optional<int64_t> eosTokenId;
  std::optional<int64_t> bosTokenId;
  std::vector<long> sourceRows; // dataset row of each batch row (first example when packed)
  // A dump read with its tokenizer and template (core/lint/RoleRecovery.h): meta was recovered from
  // the ids rather than written by a collator, so padding and examples still come from the grids.
  bool rolesRecovered = false;
  // Per row: positions where the template's start-of-conversation signs show a new conversation
  // (a BOS, a system turn after later turns, a turn after a reply only a final reply can have);
  // core/mask/PackingSeparators.h counts them as example boundaries. Empty when not read so.
  std::vector<std::vector<int64_t>> conversationStarts;
  // Token id pairs the template itself writes between the turns of one conversation (Llama 2's
  // "</s><s>"): never a packing separator. Empty when the template is unknown.
  std::vector<std::pair<int64_t, int64_t>> turnJoins;
  std::string origin; // "collated by <preset>" or the dump's path
  // Set when a framework (core/frameworks) built the batch: which one, and what it did to the rows.
  std::shared_ptr<const FrameworkFacts> framework;

  int64_t batchSize() const { return inputIds.rows; }
  int64_t length() const { return inputIds.cols; }
};

} // namespace maskscope

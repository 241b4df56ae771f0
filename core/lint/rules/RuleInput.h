// What a lint rule's check function reads: the batch and one of its rows (row rules), the whole
// batch (batch rules), the template and tokenizer (once per run) or one encoded conversation.
// Findings point at the batch row/position for dumps and at the dataset row and the position in
// its example for collated datasets; RowInput::at() does that mapping for every row rule.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/collate/ConversationEncoder.h"
#include "core/collate/PreferencePairs.h"
#include "core/lint/BatchRules.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/RowLayout.h"
#include "core/mask/RowFacts.h"

#include <optional>
#include <string>
#include <vector>

namespace maskscope {

std::string num(int64_t v);

// Where a finding points.
struct Where {
  int64_t row;
  std::optional<int64_t> position;
};

struct BatchInput {
  const Batch& batch;
  const BatchRuleOptions& options;
  FindingCollector& out;
  int64_t gradedLabels = 0; // graded positions (gradedAt) over the whole batch (counted before afterRows checks)
};

// One row of a batch whose grids have matching shapes (shape-mismatch ran first).
struct RowInput {
  const Batch& b;
  int64_t r = 0, B = 0, T = 0;
  const RowLayout& L;
  const BatchRuleOptions& o;
  FindingCollector& out;
  const std::vector<PositionMeta>* meta = nullptr; // roles of the row's positions, when known
  bool haveMask = false, havePos = false;          // attention_mask / position_ids given
  std::optional<int64_t> padId;
  int64_t maxInput = -1;            // the batch's largest input id (bounds labels without a tokenizer)
  long* fullSequenceRows = nullptr; // rows that grade the prompt deliberately (full-sequence-labels)

  bool graded(int64_t t) const { return gradedAt(b, r, t); } // reaches the loss (core/mask/RowFacts.h)
  Where at(int64_t t) const;                                 // the dataset row and example position, or (r, t)
  int64_t rowSource() const;                                 // the dataset row of this batch row, or r
  std::string label(int64_t t) const;                        // "row N" as findings start
  void emit(const char* rule, int64_t t, std::string message, std::optional<Severity> severity = std::nullopt) const;
};

// Once per lint run, when a template and tokenizer are known.
struct TemplateInput {
  const ConversationEncoder& encoder;
  const RenderOptions& render;
  const RoleMarkers& markers;
  const CollatorSpec* collator; // null when unknown
  FindingCollector& out;
};

// Each dataset conversation, on its own encoding (positions are positions in that encoding).
struct ConversationInput {
  const TokenizedConversation& encoded;
  long row; // the dataset row
  FindingCollector& out;
  const Conversation* conversation = nullptr; // the row as read (its messages before the template), when known
};

// Each preference pair (prompt/chosen/rejected), both sides encoded as the trainer builds them.
struct PreferenceInput {
  const EncodedPreference& pair;
  FindingCollector& out;
};

} // namespace maskscope

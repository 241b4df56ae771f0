// What a lint rule's check function reads: the batch and one of its rows (row rules), the whole
// batch (batch rules), the template and tokenizer (once per run), one dataset row as read (content
// rules) or one encoded conversation. Findings point at the batch row/position for dumps and at the
// dataset row, its file line and the position in its example for collated datasets; RowInput::at()
// does that mapping for every row rule, label() writes the location findings start with.
#pragma once
#include "core/collate/CollatorSpec.h"
#include "core/collate/ConversationEncoder.h"
#include "core/collate/PreferencePairs.h"
#include "core/lint/BatchRules.h"
#include "core/lint/RoleRecovery.h"
#include "core/lint/RowLayout.h"
#include "core/lint/RowLocation.h"
#include "core/mask/RowFacts.h"
#include "core/template/ChatTemplate.h"

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
  // One packed example's (or the whole row's) real positions and how many of them are graded.
  std::pair<int64_t, int64_t> gradedAndReal(const ExampleRange& ex) const;
  Where at(int64_t t) const;          // the dataset row and example position, or (r, t)
  int64_t rowSource() const;          // the dataset row of this batch row, or r
  std::string label(int64_t t) const; // "line L" (a dataset row) or "row N" (a dump), as findings start
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
  RowLocation location = {};                  // its place in the file, when known

  std::string label() const { return locationLabel(row, location); }
  void emit(const char* rule, std::optional<int64_t> position, std::string message,
            std::optional<Severity> severity = std::nullopt) const;
};

// What the content rules know about the run (from the template and tokenizer, once).
struct DatasetFacts {
  bool thinkTags = false; // the template or the tokenizer uses <think> ... </think>
  const ChatTemplate* chatTemplate =
      nullptr; // the template rows are rendered with (its source names the roles it renders)
};

// Each dataset row as read (messages before the template), with its encoding when the template
// took it (null when it refused the row: the rules that need the render skip it).
struct RowContentInput {
  const Conversation& conversation;
  const TokenizedConversation* encoded;
  RowLocation location;
  const DatasetFacts& facts;
  FindingCollector& out;

  std::string label() const { return locationLabel(conversation.rowIndex, location); }
  void emit(const char* rule, std::string message, std::optional<int64_t> position = std::nullopt,
            std::optional<Severity> severity = std::nullopt) const;
};

// Each preference pair (prompt/chosen/rejected), both sides encoded as the trainer builds them.
struct PreferenceInput {
  const EncodedPreference& pair;
  FindingCollector& out;
};

} // namespace maskscope

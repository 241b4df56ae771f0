// The per-position table of one batch row, as a teacher reads it out: position, token (whitespace
// made visible), id, label or -100, attention-mask bit, position id, role and the tool a tool call
// or tool output belongs to. Filters hide the
// system turn and whitespace-only tokens; the table renders as Markdown, CSV, HTML or JSON.
#pragma once
#include "core/data/Batch.h"
#include "core/mask/GradedPositions.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace maskscope {

class Tokenizer;

struct PositionTableRow {
  int64_t position = 0;   // index in the batch row (0-based, as in the tensors)
  std::string token;      // readable piece, whitespace made visible (space -> ␣, \n -> ↵)
  int64_t id = 0;         // input id
  int64_t label = 0;      // label at this position (HF convention: the model shifts), -100 = ignored
  int64_t attention = 0;  // attention_mask value (0 / 1, or a segment id when packed)
  int64_t positionId = 0; // the position id the model sees (0..T-1 when the batch gives none)
  std::string role;       // system / user / assistant / tool / tool_call / template / pad / unknown
  std::string tool;       // tool_call and tool positions: the function's name (PositionMeta::toolName); else empty
  bool padding = false;   // padding by the one rule of core/mask (detectPaddingOfRow)
  bool whitespace = false;
  // The label reaches the loss (core/mask/RowFacts.h's gradedAt): not -100, and not position 0.
  bool graded() const { return gradedLabel(position, label); }
};

struct PositionTableFilter {
  bool hideSystem = false;     // drop positions of the system turn
  bool hideWhitespace = false; // drop tokens whose text is only whitespace
  bool hidePadding = false;    // drop padding positions
};

// Parses a --hide list ("system,whitespace,padding"); throws Error naming the unknown word.
PositionTableFilter parseTableFilter(const std::string& list);

// The rows of batch row `row` that pass the filter. tokenizer may be null (ids shown as tokens).
std::vector<PositionTableRow> buildPositionTable(const Batch& batch, int64_t row, const Tokenizer* tokenizer,
                                                 const PositionTableFilter& filter = {});

struct PositionTableCounts {
  int64_t rows = 0, graded = 0, ignored = 0; // ignored: shown positions that are not graded
};
PositionTableCounts countTable(const std::vector<PositionTableRow>& rows);

enum class TableFormat { Text, Markdown, Csv, Html };
// Parses "text", "markdown"/"md", "csv" or "html"; throws Error otherwise.
TableFormat parseTableFormat(const std::string& name);

// Writes the table; the first column is the 1-based row number a teacher reads out ("row 8").
void writePositionTable(std::ostream& out, const std::vector<PositionTableRow>& rows, TableFormat format);
// One JSON object per table: {"row", "graded", "ignored", "graded_text", "rows": [{...}]} (keys as
// docs/cli.md); graded_text is the whole row's (gradedTextOfRow), whatever the filter hides.
void writePositionTableJson(std::ostream& out, int64_t batchRow, const std::vector<PositionTableRow>& rows,
                            const std::string& gradedText);

} // namespace maskscope

// The terminal report of `maskscope lint` (without --json): the findings, a token view of the first
// offending rows like a trainer's debug print, and the summary. ANSI colour when asked for.
#pragma once
#include "core/data/Batch.h"
#include "core/lint/LintReport.h"
#include "core/tokenizer/Tokenizer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace maskscope {

// One row to draw token by token: batch row `row` of `batch`, with the tokenizer that reads its ids
// (null: ids are shown as #id).
struct RowView {
  std::shared_ptr<const Batch> batch;
  int64_t row = 0;
  const Tokenizer* tokenizer = nullptr;
};

struct TextReportOptions {
  std::string source;  // INPUT as given (the title line)
  std::string shard;   // "K/N" of a shard run, else ""
  bool colour = false; // ANSI colours and inverse video for the flagged position
  size_t maxListed = 50;
  int showRows = 3; // offending rows drawn as tokens
  // The batch holding a finding's row (a dump's own row, or the dataset row collated alone);
  // nullopt when it cannot be drawn. Throws to say why (the report prints the reason).
  std::function<std::optional<RowView>(int64_t row)> rowView;
};

void writeTextReport(std::ostream& os, const LintReport& report, const TextReportOptions& options);

// The rows the text report draws: the first `limit` distinct rows of error and warning findings, in
// report order (lint --json lists the same rows with what each grades, "flagged_rows").
std::vector<int64_t> offendingRows(const LintReport& report, int limit);

} // namespace maskscope

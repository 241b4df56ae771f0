// "Graded" beyond one position: the test gradedAt (RowFacts.h) applies, for labels held outside a
// Batch, summed over a batch, and the runs of graded positions a person reads back as text ("verify
// one batch"). Every count maskscope prints goes through here or gradedAt; tools/checks/graded-count.py
// refuses a label tested against -100 anywhere else outside core/mask and engine/.
#pragma once
#include "core/data/Batch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

// The one test: `label` at position t of its row reaches the loss (labels[t] != -100 and t >= 1: the
// model shifts, so a label at position 0 is never scored). gradedAt is this on a Batch.
inline bool gradedLabel(int64_t t, int64_t label) { return t >= 1 && label != kIgnoreIndex; }
int64_t gradedInLabels(const std::vector<int64_t>& labels); // graded positions of one row's labels [T]
int64_t gradedInBatch(const Batch& batch);                  // gradedInRow summed over every row

// "Verify one batch": what row r's loss grades, as text. The graded targets are labels[t] for every
// graded t (gradedAt); each run of consecutive graded positions is decoded as one piece and the pieces
// are joined by "…" ("Blue.<|im_end|>", "Hi<|im_end|>…Bye<|im_end|>"). `decode` gets one run's label
// ids (core/table's gradedTextOfRow decodes them with a tokenizer); empty when nothing is graded.
struct GradedRun {
  int64_t begin = 0, end = 0; // positions [begin, end)
};
std::vector<GradedRun> gradedRuns(const Batch& batch, int64_t row);
inline constexpr const char* kGradedRunGap = "\u2026"; // "…" between runs
template <class Decode> std::string gradedText(const Batch& batch, int64_t row, Decode&& decode) {
  std::string out;
  for (const GradedRun& run : gradedRuns(batch, row)) {
    std::vector<int64_t> ids;
    for (int64_t t = run.begin; t < run.end; ++t) ids.push_back(batch.labels.at(row, t));
    if (!out.empty()) out += kGradedRunGap;
    out += decode(ids);
  }
  return out;
}

} // namespace maskscope

// The checks that compare a dataset row with the rows before it: duplicate-row (a 64-bit hash of
// each row's normalised conversation, never its text) and mixed-row-shapes (a shape other than the
// file's first row's). Run on the reading thread in file order, over every readable row, by every
// shard, so each shard knows the first copy of a row and a merged report equals the unsharded one.
#pragma once
#include "core/data/Conversation.h"
#include "core/lint/LintReport.h"
#include "core/lint/RowLocation.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace maskscope {

// The hash duplicate-row compares: roles, message texts with every run of whitespace made one space
// and the ends trimmed, message fields such as tool_calls, the row's tools and the prompt/completion
// split. Fields outside the conversation (ids, sources, categories) are left out.
uint64_t normalisedRowHash(const Conversation& c);

class DatasetRowChecks {
public:
  // Rows remembered for duplicate-row: 16 bytes each in a table at most half full (128 MB at the
  // cap); later rows are still compared with them but not remembered (an info says so).
  static constexpr size_t kMaxRemembered = size_t(1) << 22;

  // Checks row c (the next readable row of the file) and remembers it. report: whether findings
  // about this row belong to this run (its shard and --rows range); they are appended to out.
  void check(const Conversation& c, bool report, std::vector<Finding>& out);

private:
  struct Slot {
    uint64_t hash = 0; // 0: empty
    uint32_t line = 0; // the first copy's line (0: past 4 294 967 295, not kept)
    int32_t item = -1; // its index in a JSON list (-1: none or past 2 147 483 647)
  };
  const Slot* findOrInsert(uint64_t hash, const RowLocation& at);
  void grow();

  std::optional<RowShape> firstShape_;
  RowLocation firstShapeAt_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
  bool capReported_ = false;
};

} // namespace maskscope

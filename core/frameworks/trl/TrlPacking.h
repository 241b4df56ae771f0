// trl.data_utils.pack_dataset: "bfd" (best-fit decreasing, sequences truncated to seq_length),
// "bfd_split" (long sequences split into seq_length fragments first) and "wrapped" (everything
// concatenated and cut every seq_length tokens), on prepared rows whose columns all have one
// value per token. bfd/bfd_split add TRL's "seq_lengths" column.
#pragma once
#include "core/frameworks/PreparedRows.h"

#include <string>
#include <vector>

namespace maskscope::trl {

// columns: the columns packed (TRL packs only these, after select_columns), in order; every row
// must have them with equal lengths. Meta and source rows travel with the tokens.
std::vector<PreparedRow> packRows(const std::vector<PreparedRow>& rows, const std::vector<std::string>& columns,
                                  int64_t seqLength, const std::string& strategy);

} // namespace maskscope::trl

// The rows after a framework's dataset preparation (`collate --stage prepared`): each row a list of
// columns named as the framework names them (input_ids, labels, seq_lengths, completion_mask, ...),
// each a list of integers (or one integer), plus what maskscope knows about each token (its role,
// for lint and the app) and the dataset rows it came from.
#pragma once
#include "core/data/Batch.h"
#include "core/frameworks/FrameworkInfo.h"

#include <cstdint>
#include <string>
#include <vector>

namespace maskscope {

struct PreparedColumn {
  std::string name;
  std::vector<int64_t> values;
  bool scalar = false;  // one integer, written as a plain int
  bool boolean = false; // written as true/false
};

struct PreparedRow {
  std::vector<PreparedColumn> columns; // in the framework's column order
  // Per position of the row's main id column (input_ids, tokens): role and reply facts, when the row
  // was rendered here; empty for pre-tokenized rows. Packing concatenates it along with the ids.
  std::vector<PositionMeta> meta;
  std::vector<long> sourceRows; // dataset rows in this row (several when packed)
  std::vector<long> sourceLines;

  bool has(const std::string& name) const;
  const std::vector<int64_t>* find(const std::string& name) const;
  const std::vector<int64_t>& at(const std::string& name) const; // Error when absent
  // Sets a column (replacing it in place, or appending it at the end).
  void set(const std::string& name, std::vector<int64_t> values, bool scalar = false, bool boolean = false);
  void erase(const std::string& name);
  OrderedJson toJson() const; // {column: [ints] or int}, in column order
};

// One JSON object per line, in row order (escaping U+2028/2029 as the other streamed outputs do).
std::string preparedRowsToJsonl(const std::vector<PreparedRow>& rows);

} // namespace maskscope

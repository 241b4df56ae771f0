// The session's framework mode (core/frameworks): the framework a spec names, prepared once on the
// dataset's raw rows (text rows or pre-tokenized rows with its columns) for a tokenizer and template,
// and the batch a trainer's data loader hands its collator for a row: the prepared rows in groups of
// the batch size, in order (no shuffling), collated by the framework.
#pragma once
#include "core/frameworks/PreparedFramework.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace maskscope {

class FrameworkSource {
public:
  // collatorSpec: an inline JSON object, a spec file or a framework's config file (Error naming the
  // file and key when unusable).
  explicit FrameworkSource(const std::string& collatorSpec);

  const FrameworkSpec& spec() const { return spec_; }

  // The framework's dataset preparation of rows, kept until the next call (tokenizer and template
  // may be null for pre-tokenized rows). On Error (naming the file, row and key) nothing is kept
  // and error() holds the message.
  void prepare(const std::vector<InputRow>& rows, std::shared_ptr<const Tokenizer> tokenizer,
               std::shared_ptr<const ChatTemplate> chatTemplate,
               const std::vector<std::pair<std::string, std::string>>& vars);
  const PreparedFramework* prepared() const { return prepared_.get(); }
  const std::string& error() const { return error_; }
  int preparedRowCount() const { return prepared_ ? int(prepared_->rows().size()) : 0; }

  // The prepared row that holds dataset row `row` (the first such row), -1 when none does.
  int preparedRowOf(long row) const;
  // Why dataset row `row` is in no prepared row: the framework's reason for dropping it.
  std::string missingReason(long row) const;
  // The batch of prepared row p: the prepared rows [p - p % size, + size) collated; *batchRow: p's
  // row in it (0 when the collator flattens the rows into one). Throws Error.
  FrameworkRun batchOf(int p, int size, int* batchRow) const;

private:
  FrameworkSpec spec_;
  std::unique_ptr<PreparedFramework> prepared_;
  std::string error_;
};

// One line for the list of prepared rows: its columns with their lengths (scalars with their value),
// the dataset rows it holds, and its graded count when it has labels.
std::string preparedRowTitle(const PreparedRow& row, int index);

} // namespace maskscope

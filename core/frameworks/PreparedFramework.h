// A framework set up for rows already read: its parsed spec and implementation, the tokenizer and
// template, and, once prepare() ran, the prepared rows with what the preparation recorded. Any range
// of the prepared rows can then be collated, as the trainer's data loader hands the collator one
// batch after another; runFramework (one batch of every row) and the app (a batch per group of rows,
// preparation kept while the row changes) both run through it.
#pragma once
#include "core/data/DatasetReader.h"
#include "core/frameworks/Framework.h"

#include <memory>
#include <utility>
#include <vector>

namespace maskscope {

// One collation: the framework's batch and what maskscope makes of it.
struct FrameworkRun {
  FrameworkSpec spec;
  std::vector<PreparedRow> prepared; // the prepared rows (those collated, after a collation)
  FrameworkBatch batch;
  Batch view; // the batch as maskscope's Batch, with view.framework = facts
  std::shared_ptr<FrameworkFacts> facts;
  std::shared_ptr<const Tokenizer> tokenizer; // null without --tokenizer
  std::vector<RowError> skipped;              // rows the reader skipped
};

// The render options a framework's chat template sees: the --var values, then the template's own
// defaults (tokenizer_config.json), then the tokenizer's special-token texts (as the collators').
RenderOptions frameworkRenderOptions(const std::vector<std::pair<std::string, std::string>>& vars,
                                     const ChatTemplate* chatTemplate, const Tokenizer* tokenizer);

class PreparedFramework {
public:
  // tokenizer and chatTemplate may be null (pre-tokenized rows; text rows then name --tokenizer).
  PreparedFramework(FrameworkSpec spec, std::shared_ptr<const Tokenizer> tokenizer,
                    std::shared_ptr<const ChatTemplate> chatTemplate, RenderOptions render, bool lenient);
  PreparedFramework(const PreparedFramework&) = delete;
  PreparedFramework& operator=(const PreparedFramework&) = delete;

  // The framework's dataset preparation of rows (replacing an earlier one). Throws Error naming the
  // file, row and key (exit 2 on the command line).
  void prepare(const std::vector<InputRow>& rows);

  const FrameworkSpec& spec() const { return spec_; }
  const std::shared_ptr<const Tokenizer>& tokenizer() const { return tokenizer_; }
  const std::vector<PreparedRow>& rows() const { return prepared_; }
  // What the preparation recorded: rows in and kept, dropped rows, warnings.
  const FrameworkFacts& facts() const { return *facts_; }

  // The collator on prepared rows [begin, end) (clamped to the rows): the framework's batch, that
  // batch as maskscope's Batch, and the facts of the preparation plus what the collator recorded.
  // Throws Error when the range holds no row.
  FrameworkRun collate(size_t begin, size_t end) const;

private:
  FrameworkSpec spec_;
  std::unique_ptr<FrameworkImpl> impl_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::shared_ptr<const ChatTemplate> template_;
  RenderOptions render_;
  bool lenient_ = false;
  std::vector<PreparedRow> prepared_;
  std::shared_ptr<FrameworkFacts> facts_;
  OrderedJson resolved_ = OrderedJson::object(); // what preparation resolved for the collator
};

} // namespace maskscope

// Framework mode of the session: preparation once per pipeline, a batch per group of prepared rows.
#include "ui/shell/FrameworkSource.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/mask/GradedPositions.h"
#include "core/util/Error.h"

#include <algorithm>

namespace maskscope {

FrameworkSource::FrameworkSource(const std::string& collatorSpec) : spec_(parseFrameworkSpec(collatorSpec)) {}

void FrameworkSource::prepare(const std::vector<InputRow>& rows, std::shared_ptr<const Tokenizer> tokenizer,
                              std::shared_ptr<const ChatTemplate> chatTemplate,
                              const std::vector<std::pair<std::string, std::string>>& vars) {
  prepared_.reset();
  error_.clear();
  try {
    RenderOptions render = frameworkRenderOptions(vars, chatTemplate.get(), tokenizer.get());
    // lenient: what the framework itself would stop on (TRL's RuntimeError on a template without
    // {% generation %}) is recorded for lint and the summary, as `lint` does, and the rows still show.
    auto p = std::make_unique<PreparedFramework>(spec_, std::move(tokenizer), std::move(chatTemplate),
                                                 std::move(render), true);
    p->prepare(rows);
    if (p->rows().empty())
      throw Error("no rows left after " + spec_.framework + "'s dataset preparation (" +
                  std::to_string(p->facts().dropped.size()) + " dropped)");
    prepared_ = std::move(p);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

int FrameworkSource::preparedRowOf(long row) const {
  if (!prepared_) return -1;
  const auto& rows = prepared_->rows();
  for (size_t p = 0; p < rows.size(); ++p)
    if (std::find(rows[p].sourceRows.begin(), rows[p].sourceRows.end(), row) != rows[p].sourceRows.end()) return int(p);
  return -1;
}

std::string FrameworkSource::missingReason(long row) const {
  if (!prepared_) return error_;
  const FrameworkFacts& f = prepared_->facts();
  for (const FrameworkRowNote& d : f.dropped)
    if (d.row == row)
      return f.framework + " " + f.version + " drops dataset row " + std::to_string(row) + ": " + d.reason;
  return "dataset row " + std::to_string(row) + " is in none of " + f.framework + "'s prepared rows";
}

FrameworkRun FrameworkSource::batchOf(int p, int size, int* batchRow) const {
  if (!prepared_) throw Error(error_.empty() ? std::string("the framework has no prepared rows") : error_);
  const int n = preparedRowCount();
  if (p < 0 || p >= n)
    throw Error("prepared row " + std::to_string(p) + " is outside the " + std::to_string(n) + " rows");
  size = std::max(1, size);
  const int begin = p - p % size;
  FrameworkRun run = prepared_->collate(size_t(begin), size_t(std::min(n, begin + size)));
  // One batch row per prepared row, unless the collator flattens them (padding_free) into one.
  const int rowsIn = std::min(n, begin + size) - begin;
  *batchRow = run.view.batchSize() == rowsIn ? p - begin : 0;
  return run;
}

std::string preparedRowTitle(const PreparedRow& row, int index) {
  std::string out = std::to_string(index) + " ";
  for (const PreparedColumn& c : row.columns) {
    out += " " + c.name;
    out += c.scalar && !c.values.empty() ? "=" + std::to_string(c.values.front())
                                         : "[" + std::to_string(c.values.size()) + "]";
  }
  if (const auto* labels = row.find("labels")) {
    const int64_t graded = gradedInLabels(*labels); // as every count (core/mask/GradedPositions.h)
    out += "  (" + std::to_string(graded) + " graded)";
  }
  if (!row.sourceRows.empty()) {
    std::string from;
    for (size_t i = 0; i < row.sourceRows.size() && i < 6; ++i)
      from += (i ? ", " : "") + std::to_string(row.sourceRows[i]);
    if (row.sourceRows.size() > 6) from += ", \u2026";
    out += (row.sourceRows.size() > 1 ? "  \u2190 rows " : "  \u2190 row ") + from;
  }
  return out;
}

} // namespace maskscope

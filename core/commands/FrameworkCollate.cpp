// `collate` with a framework spec (--collator SPEC.json, an inline object or a framework config
// file): stdout is exactly the framework's returned dict (--stage batch) or its prepared rows, one
// JSON object per line (--stage prepared); the text form names the framework, version and options.
#include "core/commands/BatchInputs.h"
#include "core/commands/CollateCommand.h"
#include "core/frameworks/FrameworkPipeline.h"
#include "core/mask/RowFacts.h"
#include "core/table/GradedText.h"
#include "core/table/PositionTable.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <ostream>

namespace maskscope {

void reportFrameworkNotes(const FrameworkRun& run, CommandIO& io) {
  for (const auto& e : run.skipped) io.err << "maskscope: skipped " << e.toString() << "\n";
  for (const auto& w : run.facts->warnings) io.err << "maskscope: " << run.spec.framework << ": " << w << "\n";
  for (const auto& d : run.facts->truncated)
    io.err << "maskscope: " << run.spec.framework << " shortens dataset row " << d.row
           << (d.line >= 0 ? " (line " + std::to_string(d.line) + ")" : std::string()) << ": " << d.reason << "\n";
  for (const auto& d : run.facts->dropped)
    io.err << "maskscope: " << run.spec.framework << " drops dataset row " << d.row
           << (d.line >= 0 ? " (line " + std::to_string(d.line) + ")" : std::string()) << ": " << d.reason << "\n";
}

namespace {

void printFrameworkText(const FrameworkRun& run, CommandIO& io) {
  const Batch& b = run.view;
  io.out << describeFrameworkRun(run);
  io.out << "  returned: ";
  bool first = true;
  for (const auto& e : run.batch.entries()) {
    io.out << (first ? "" : ", ") << e.key;
    if (e.kind == FrameworkEntry::Kind::Tensor) {
      io.out << " [";
      for (size_t d = 0; d < e.tensor.shape.size(); ++d) io.out << (d ? ", " : "") << e.tensor.shape[d];
      io.out << "] " << tensorDTypeName(e.tensor.dtype);
    } else if (e.kind == FrameworkEntry::Kind::Int) {
      io.out << " = " << e.scalar;
    }
    first = false;
  }
  io.out << "\n  as maskscope sees it: " << b.batchSize() << " rows x " << b.length() << " positions\n";
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    int64_t real = 0;
    for (int64_t t = 0; t < b.length(); ++t) real += b.attentionMask.at(r, t) != 0;
    const int64_t graded = gradedInRow(b, r); // reaches the loss (core/mask/RowFacts.h), as every count
    io.out << "  row " << r << ": " << real << " attended, " << graded << " graded, " << b.length() - graded
           << " not graded";
    if (r < int64_t(b.segments.size()) && b.segments[size_t(r)].size() > 1)
      io.out << ", " << b.segments[size_t(r)].size() << " packed examples";
    io.out << "; graded text: " << quotedGradedText(gradedTextOfRow(b, r, run.tokenizer.get())) << "\n";
  }
}

} // namespace

int runFrameworkCollate(const BatchInputs& inputs, CommandIO& io, const CollateTableOptions& table) {
  if (inputs.dataSpec.empty()) throw Error("collate needs --data");
  if (!table.side.empty()) throw Error("--side applies to preference data collated without a framework spec");
  const std::string stage = table.stage.empty() ? "batch" : table.stage;
  if (stage != "batch" && stage != "prepared")
    throw Error("--stage: expected batch or prepared, got \"" + stage + "\"");
  const FrameworkInputs fi = frameworkInputsOf(inputs, false);
  if (stage == "prepared") {
    const FrameworkRun run = prepareFramework(fi);
    reportFrameworkNotes(run, io);
    if (!io.json) io.out << describeFrameworkRun(run);
    io.out << preparedRowsToJsonl(run.prepared);
    return 0;
  }
  const FrameworkRun run = runFramework(fi);
  reportFrameworkNotes(run, io);
  if (table.enabled) {
    const PositionTableFilter filter = parseTableFilter(table.hide);
    const TableFormat format = parseTableFormat(table.format);
    for (int64_t r = 0; r < run.view.batchSize(); ++r) {
      const auto rows = buildPositionTable(run.view, r, run.tokenizer.get(), filter);
      if (io.json)
        writePositionTableJson(io.out, r, rows, gradedTextOfRow(run.view, r, run.tokenizer.get()));
      else
        writePositionTable(io.out, rows, format);
    }
    return 0;
  }
  if (io.json) {
    io.out << escapeLineSeparators(run.batch.toJson().dump()) << "\n";
    return 0;
  }
  printFrameworkText(run, io);
  return 0;
}

} // namespace maskscope

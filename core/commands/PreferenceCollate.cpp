// `collate` on preference data: both sequences of each pair (or one side), as the batch JSON, the
// per-position table or a count per row, each marked with its side.
#include "core/commands/PreferenceCollate.h"
#include "core/batchio/BatchJson.h"
#include "core/collate/PreferencePairs.h"
#include "core/mask/RowFacts.h"
#include "core/table/GradedText.h"
#include "core/table/PositionTable.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <ostream>
#include <sstream>

namespace maskscope {

namespace {

struct SideBatch {
  const char* name;
  const Batch* batch;
};

std::vector<SideBatch> selectedSides(const std::string& side, const PreferenceBatches& b) {
  if (side.empty() || side == "both") return {{"chosen", &b.chosen}, {"rejected", &b.rejected}};
  if (side == "chosen") return {{"chosen", &b.chosen}};
  if (side == "rejected") return {{"rejected", &b.rejected}};
  throw Error("--side must be chosen, rejected or both, not \"" + side + "\"");
}

void printPreferenceTables(const std::vector<SideBatch>& sides, const Tokenizer& tok,
                           const CollateTableOptions& options, CommandIO& io) {
  const PositionTableFilter filter = parseTableFilter(options.hide);
  const TableFormat format = parseTableFormat(options.format);
  const int64_t rows = sides.front().batch->batchSize();
  for (int64_t r = 0; r < rows; ++r)
    for (const SideBatch& s : sides) {
      const auto table = buildPositionTable(*s.batch, r, &tok, filter);
      if (io.json) { // one JSON object per line, as for SFT data, with the side first
        std::ostringstream line;
        writePositionTableJson(line, r, table, gradedTextOfRow(*s.batch, r, &tok));
        io.out << "{\"side\":\"" << s.name << "\"," << line.str().substr(1);
        continue;
      }
      const PositionTableCounts counts = countTable(table);
      if (format == TableFormat::Text)
        io.out << "row " << r << " (" << s.name << "): " << counts.rows << " positions shown, " << counts.ignored
               << " not graded, " << counts.graded
               << " graded; graded text: " << quotedGradedText(gradedTextOfRow(*s.batch, r, &tok)) << "\n";
      writePositionTable(io.out, table, format);
    }
}

void printPreferenceCounts(const std::vector<SideBatch>& sides, const std::vector<EncodedPreference>& pairs,
                           CommandIO& io) {
  for (size_t i = 0; i < pairs.size(); ++i)
    for (const SideBatch& s : sides) {
      const Batch& b = *s.batch;
      const auto r = int64_t(i);
      int64_t real = 0;
      for (int64_t t = 0; t < b.length(); ++t) real += b.attentionMask.at(r, t) != 0;
      const int64_t graded = gradedInRow(b, r); // reaches the loss (core/mask/RowFacts.h)
      const PreferenceSide& side = std::string(s.name) == "chosen" ? pairs[i].chosen : pairs[i].rejected;
      io.out << "  row " << r << " (" << s.name << "): " << real << " attended, " << side.encoded.completionStart
             << " prompt, " << graded << " graded, " << b.length() - graded << " not graded\n";
    }
}

} // namespace

int runPreferenceCollate(const BatchInputs& in, CommandIO& io, const CollateTableOptions& options) {
  PipelineSpec ps;
  ps.tokenizerSpec = in.tokenizerSpec.empty() ? "builtin:demo" : in.tokenizerSpec;
  ps.templateSpec = in.templateSpec;
  ps.collatorSpec = in.collatorSpec;
  DatasetPipeline pipeline(ps);
  std::vector<RowError> skipped;
  const std::vector<PreferenceRow> rows = readPreferenceDataset(in.dataSpec, &skipped, in.rowBegin, in.rowEnd);
  for (const auto& e : skipped) io.err << "maskscope: skipped " << e.toString() << "\n";
  std::vector<EncodedPreference> pairs;
  for (const PreferenceRow& row : rows) {
    try {
      pairs.push_back(encodePreference(pipeline, row));
    } catch (const Error& e) {
      io.err << "maskscope: skipped " << in.dataSpec << ":" << row.sourceLine
             << ": the template or tokenizer refused it: " << e.message() << "\n";
    }
  }
  if (pairs.empty())
    throw Error("no preference rows selected (" + std::to_string(skipped.size()) + " skipped)", {in.dataSpec});
  const PreferenceBatches batches = collatePreference(pipeline, pairs);
  const std::vector<SideBatch> sides = selectedSides(options.side, batches);
  if (options.enabled) {
    printPreferenceTables(sides, pipeline.tokenizer(), options, io);
    return 0;
  }
  if (io.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["preference"] = true;
    for (const SideBatch& s : sides) j[s.name] = batchToJson(*s.batch);
    io.out << escapeLineSeparators(j.dump()) << "\n";
    return 0;
  }
  io.out << in.dataSpec << ": " << pairs.size() << " preference pairs; chosen " << batches.chosen.length()
         << " positions, rejected " << batches.rejected.length() << " positions\n"
         << "  collator: " << pipeline.collator().spec().describe() << "\n";
  printPreferenceCounts(sides, pairs, io);
  return 0;
}

} // namespace maskscope

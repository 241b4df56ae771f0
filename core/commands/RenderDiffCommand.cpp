// `maskscope render-diff`: reads the rows, diffs each assistant turn's training and serving tokens
// (diffTrainServe) and prints one JSON object per row, or a readable report. A row that cannot be
// read or rendered is named (file and line) and skipped; the others still run.
#include "core/commands/RenderDiffCommand.h"

#include "core/collate/TrainServeDiff.h"
#include "core/data/DatasetReader.h"
#include "core/data/PreferenceRow.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

namespace maskscope {

namespace {

using ojson = nlohmann::ordered_json;

// Differences the text report lists per turn (--json lists every one).
constexpr size_t kTextDifferences = 40;
// Rows named on stderr (unreadable or refused by the template); the rest are counted.
constexpr long kNamedBadRows = 10;

ojson idOrNull(const std::optional<int32_t>& id) { return id ? ojson(*id) : ojson(nullptr); }

ojson rowJson(long row, const std::vector<TurnDiff>& turns) {
  ojson j;
  j["row"] = row;
  j["turns"] = ojson::array();
  for (const TurnDiff& t : turns) {
    ojson turn;
    turn["message"] = t.message;
    turn["verdict"] = trainServeVerdictName(t.verdict);
    turn["differences"] = ojson::array();
    for (const TokenDifference& d : t.differences)
      turn["differences"].push_back(
          {{"position", d.trainPosition}, {"train", idOrNull(d.train)}, {"serve", idOrNull(d.serve)}});
    j["turns"].push_back(std::move(turn));
  }
  return j;
}

std::string piece(const Tokenizer& tok, const std::optional<int32_t>& id) {
  return id ? "\"" + utf8::visibleWhitespace(tok.displayText(*id)) + "\"" : "-";
}

void printRow(const Conversation& c, const std::vector<TurnDiff>& turns, const Tokenizer& tok, std::ostream& out) {
  out << "row " << c.rowIndex << " (" << c.sourceFile << ":" << c.sourceLine << ")\n";
  if (turns.empty()) out << "  no assistant turn\n";
  for (const TurnDiff& t : turns) {
    out << "  message " << t.message << ": " << trainServeVerdictName(t.verdict) << " (train " << t.train.size()
        << " tokens, reply from " << t.trainReplyStart << "; serve " << t.serve.size() << " tokens, reply from "
        << t.serveReplyStart << ")\n";
    for (size_t i = 0; i < t.differences.size() && i < kTextDifferences; ++i) {
      const TokenDifference& d = t.differences[i];
      out << "    " << (d.inReply ? "reply  " : "context") << " train " << d.trainPosition << " " << piece(tok, d.train)
          << "  serve " << d.servePosition << " " << piece(tok, d.serve) << "\n";
    }
    if (t.differences.size() > kTextDifferences)
      out << "    ... " << t.differences.size() - kTextDifferences << " more (--json lists every one)\n";
  }
}

} // namespace

int runRenderDiff(const RenderDiffArgs& args, CommandIO& io) {
  if (args.tokenizerSpec.empty()) throw Error("render-diff needs --tokenizer");
  if (args.dataSpec.empty()) throw Error("render-diff needs --data");
  refusePreferenceData(args.dataSpec, "render-diff");
  PipelineSpec ps;
  ps.tokenizerSpec = args.tokenizerSpec;
  ps.templateSpec = args.templateSpec;
  ps.collatorSpec = args.collatorSpec;
  for (const auto& [k, v] : args.vars) ps.render.variables[k] = v;
  const DatasetPipeline pipeline(ps);
  DatasetReader reader(args.dataSpec);
  bool differs = false, found = false;
  long refused = 0;
  Conversation c;
  while (reader.next(c)) {
    if (args.row >= 0 && c.rowIndex != args.row) continue;
    found = true;
    std::vector<TurnDiff> turns;
    try {
      turns = diffTrainServe(pipeline, c);
    } catch (const Error& e) {
      if (refused++ < kNamedBadRows)
        io.err << "maskscope: error: " << c.sourceFile << ":" << c.sourceLine << ": " << e.what() << "\n";
      continue;
    }
    for (const TurnDiff& t : turns) differs = differs || t.verdict != TrainServeVerdict::Identical;
    if (io.json)
      io.out << escapeLineSeparators(rowJson(c.rowIndex, turns).dump(-1, ' ', false, ojson::error_handler_t::replace))
             << "\n";
    else
      printRow(c, turns, pipeline.tokenizer(), io.out);
    if (args.row >= 0) break;
  }
  if (!found && args.row < 0)
    throw Error("no readable rows (" + std::to_string(reader.rowsSkipped()) + " skipped" +
                    (reader.errors().empty() ? "" : "; first: " + reader.errors().front().toString()) + ")",
                {args.dataSpec});
  long named = 0;
  for (const RowError& e : reader.errors())
    if (named++ < kNamedBadRows) io.err << "maskscope: skipped " << e.toString() << "\n";
  const long unnamed = std::max(0L, reader.rowsSkipped() - kNamedBadRows) + std::max(0L, refused - kNamedBadRows);
  if (unnamed > 0) io.err << "maskscope: " << unnamed << " more rows skipped or refused\n";
  if (args.row >= 0 && !found)
    throw Error("--row " + std::to_string(args.row) + ": the dataset has " + std::to_string(reader.rowsRead()) +
                    " readable rows",
                {args.dataSpec});
  // With --row, rows before it that could not be read are named but do not decide the status.
  if (refused > 0 || (args.row < 0 && reader.rowsSkipped() > 0)) return 2;
  return args.failOnDiff && differs ? 1 : 0;
}

} // namespace maskscope

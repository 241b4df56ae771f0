// Collate command: the batch as JSON (docs/cli.md), or a readable table per row; the preset list.
#include "core/commands/CollateCommand.h"
#include "core/batchio/BatchJson.h"
#include "core/collate/CollatorSpec.h"
#include "core/commands/MaskedLmCollate.h"
#include "core/commands/PreferenceCollate.h"
#include "core/data/PreferenceRow.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/mask/RowFacts.h"
#include "core/table/GradedText.h"
#include "core/table/PositionTable.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"

#include <charconv>
#include <ostream>

namespace maskscope {

void parseRowRange(const std::string& text, long& begin, long& end) {
  auto num = [&](std::string_view s, long& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || p != s.data() + s.size() || out < 0) throw Error("--rows: \"" + text + "\" is not A:B");
  };
  auto colon = text.find(':');
  if (colon == std::string::npos) {
    num(text, begin);
    end = begin + 1;
    return;
  }
  std::string_view a(text.data(), colon), b(text.data() + colon + 1, text.size() - colon - 1);
  begin = 0;
  end = -1;
  if (!a.empty()) num(a, begin);
  if (!b.empty()) num(b, end);
  if (end >= 0 && end <= begin) throw Error("--rows: \"" + text + "\" selects no rows");
}

int listCollatorPresets(CommandIO& io) {
  if (io.json)
    io.out << escapeLineSeparators(collatorPresetsJson().dump()) << "\n";
  else
    io.out << collatorPresetsText();
  return 0;
}

namespace {

int printTables(const Batch& b, const Tokenizer* tokenizer, const CollateTableOptions& options, CommandIO& io) {
  const PositionTableFilter filter = parseTableFilter(options.hide);
  const TableFormat format = parseTableFormat(options.format);
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const auto rows = buildPositionTable(b, r, tokenizer, filter);
    if (io.json) {
      writePositionTableJson(io.out, r, rows, gradedTextOfRow(b, r, tokenizer));
      continue;
    }
    const PositionTableCounts counts = countTable(rows);
    if (format == TableFormat::Text)
      io.out << "row " << r << ": " << counts.rows << " positions shown, " << counts.ignored << " not graded, "
             << counts.graded << " graded; graded text: " << quotedGradedText(gradedTextOfRow(b, r, tokenizer)) << "\n";
    writePositionTable(io.out, rows, format);
  }
  return 0;
}

} // namespace

int runCollate(const BatchInputs& inputs, CommandIO& io, const CollateTableOptions& table) {
  if (table.mlm && (table.enabled || isFrameworkSpec(inputs.collatorSpec) ||
                    (!inputs.dataSpec.empty() && isPreferenceDataset(inputs.dataSpec))))
    throw Error("--mlm applies to a preset or collator's batch, without --table, a framework spec or preference data");
  if (isFrameworkSpec(inputs.collatorSpec)) return runFrameworkCollate(inputs, io, table);
  if (!table.stage.empty()) throw Error("--stage applies to framework specs (--collator SPEC.json with \"framework\")");
  if (inputs.tokenizerSpec.empty()) throw Error("collate needs --tokenizer (or --list-presets)");
  if (inputs.dataSpec.empty()) throw Error("collate needs --data (or --list-presets)");
  if (isPreferenceDataset(inputs.dataSpec)) return runPreferenceCollate(inputs, io, table);
  if (!table.side.empty())
    throw Error("--side applies to preference data (rows with \"chosen\" and \"rejected\"); " + inputs.dataSpec +
                " is not");
  std::vector<RowError> skipped;
  std::shared_ptr<const Tokenizer> tokenizer;
  Batch b = buildBatch(inputs, &skipped, &tokenizer);
  for (const auto& e : skipped) io.err << "maskscope: skipped " << e.toString() << "\n";
  if (table.enabled) return printTables(b, tokenizer.get(), table, io);
  if (table.mlm) return printMaskedLm(b, tokenizer.get(), table.seed, io); // the BERT aside
  // Where the reply spans came from: the template's {% generation %} blocks, or (stock templates)
  // recovered from the message roles as content + closing token, the same way in every turn.
  const bool fromData = inputs.batchFile.empty();
  const bool markers = fromData && loadChatTemplate(inputs.templateSpec, inputs.tokenizerSpec)->hasGenerationMarkers();
  if (io.json) {
    // stdout keeps the contract's four keys; where the replies came from goes to stderr.
    if (fromData && !markers)
      io.err << "maskscope: note: replies recovered from the message roles (each reply's content and closing "
                "token, in every turn); the template has no {% generation %}\n";
    nlohmann::ordered_json j = batchToJson(b);
    nlohmann::ordered_json text = nlohmann::ordered_json::array(); // "verify one batch": what each row grades
    for (int64_t r = 0; r < b.batchSize(); ++r) text.push_back(gradedTextOfRow(b, r, tokenizer.get()));
    j["graded_text"] = std::move(text);
    io.out << escapeLineSeparators(j.dump()) << "\n";
    return 0;
  }
  io.out << b.origin << ": " << b.batchSize() << " rows x " << b.length() << " positions\n";
  if (b.inputIds.rows > 0 && !inputs.collatorSpec.empty() && fromData)
    io.out << "  collator: " << parseCollatorSpec(inputs.collatorSpec).describe() << "\n";
  if (fromData)
    io.out << (markers ? "  replies: the template's {% generation %} spans\n"
                       : "  replies: recovered from the message roles (each reply's content and closing token, in "
                         "every turn); the template has no {% generation %}, so TRL's assistant_only_loss would "
                         "find no reply tokens\n");
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    int64_t real = 0;
    for (int64_t t = 0; t < b.length(); ++t) real += b.attentionMask.at(r, t) != 0;
    const int64_t graded = gradedInRow(b, r); // reaches the loss (core/mask/RowFacts.h)
    io.out << "  row " << r << ": " << real << " attended, " << graded << " graded, " << b.length() - graded
           << " not graded; graded text: " << quotedGradedText(gradedTextOfRow(b, r, tokenizer.get())) << "\n";
  }
  return 0;
}

} // namespace maskscope

// Lint command: input detection, the runs (dataset, dump, merge of shard reports), the output
// (JSON from core/lint/ReportJson.h, the terminal report from core/lint/TextReport.h) and --explain.
#include "core/commands/LintCommand.h"
#include "core/batchio/BatchLoader.h"
#include "core/capture/CaptureManifest.h"
#include "core/collate/TemplateVariables.h"
#include "core/commands/AttentionReport.h"
#include "core/commands/BatchInputs.h"
#include "core/data/PreferenceRow.h"
#include "core/frameworks/FrameworkPipeline.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/TrainerBatches.h"
#include "core/lint/AuditReport.h"
#include "core/lint/BatchRunLinter.h"
#include "core/lint/FindingsTable.h"
#include "core/lint/Lint.h"
#include "core/lint/ReportMerge.h"
#include "core/lint/TextReport.h"
#include "core/lint/TokenizerFit.h"
#include "core/mask/RowFacts.h"
#include "core/table/GradedText.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonString.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <ostream>
#include <unistd.h>

namespace maskscope {

namespace {

const char* kReset = "\x1b[0m";
const char* kBold = "\x1b[1m";

std::string wrap(std::string_view text, size_t width, const std::string& indent) {
  std::string out, line;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    std::string_view word = text.substr(i, j - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    i = j + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

int explain(const LintArgs& a, CommandIO& io) {
  std::vector<const RuleInfo*> rules;
  if (a.explain == "all" || a.listRules) {
    for (const RuleInfo& r : allRules()) rules.push_back(&r);
  } else {
    const RuleInfo* r = findRule(a.explain);
    if (!r) {
      std::string names;
      for (const RuleInfo& x : allRules()) names += (names.empty() ? "" : ", ") + std::string(x.name);
      throw Error("unknown lint rule \"" + a.explain + "\" (rules: " + names + ")");
    }
    rules.push_back(r);
  }
  if (io.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const RuleInfo* r : rules)
      j.push_back({{"rule", r->name},
                   {"severity", severityName(r->severity)},
                   {"title", r->title},
                   {"explanation", r->explanation},
                   {"needs", r->needs}});
    io.out << escapeLineSeparators((rules.size() == 1 && !a.listRules && a.explain != "all" ? j[0] : j).dump()) << "\n";
    return 0;
  }
  for (const RuleInfo* r : rules) {
    if (a.listRules && a.explain.empty()) {
      io.out << r->name << std::string(r->name.size() < 32 ? 32 - r->name.size() : 1, ' ') << severityName(r->severity)
             << "  " << r->title << "\n";
      continue;
    }
    io.out << (io.colour ? kBold : "") << r->name << (io.colour ? kReset : "") << " (" << severityName(r->severity)
           << "): " << r->title << "\n\n"
           << wrap(r->explanation, 96, "  ") << "\n  Needs: " << r->needs << "\n\n";
  }
  return 0;
}

void parseShard(const std::string& s, int& k, int& n) {
  auto slash = s.find('/');
  auto bad = [&] { return Error("--shard: expected K/N with 0 <= K < N, got \"" + s + "\""); };
  if (slash == std::string::npos) throw bad();
  auto p1 = std::from_chars(s.data(), s.data() + slash, k);
  auto p2 = std::from_chars(s.data() + slash + 1, s.data() + s.size(), n);
  if (p1.ec != std::errc() || p1.ptr != s.data() + slash || p2.ec != std::errc() || p2.ptr != s.data() + s.size() ||
      n < 1 || k < 0 || k >= n)
    throw bad();
}

bool isDump(const std::string& input) {
  if (input.starts_with("builtin:")) return false;
  return input.ends_with(".safetensors") || input.ends_with(".pt") || looksLikeBatchDump(input);
}

// What the text report needs besides the report: the dump and its tokenizer, or the pipeline
// that re-collates an offending dataset row to draw it.
struct LintedInput {
  LintReport report;
  bool dump = false;
  std::shared_ptr<Batch> dumpBatch;
  std::shared_ptr<const Tokenizer> tok;
  std::unique_ptr<DatasetPipeline> viewPipeline;
  std::optional<AttentionReport> attention;        // dumps and framework batches: the implementation judged
  nlohmann::json settings;                         // datasets: what shard reports of one run must share
  std::function<void(const Finding&)> findingSink; // --findings-out: every finding as it comes
  std::unique_ptr<AuditCollector> audit;           // --report: the audit report's bounded state
};

void lintDumpInput(const LintArgs& a, const std::string& tokenizerSpec, CommandIO& io, LintedInput& in) {
  in.dump = true;
  in.dumpBatch = std::make_shared<Batch>(loadBatchDump(a.input));
  Batch& dump = *in.dumpBatch;
  if (a.padId) {
    if (dump.padTokenId && *dump.padTokenId != *a.padId)
      io.err << "maskscope: note: --pad-id " << *a.padId << " replaces the dump's pad_token_id " << *dump.padTokenId
             << "\n";
    dump.padTokenId = *a.padId;
  }
  LintContext ctx;
  for (const auto& [k, v] : a.vars) ctx.render.variables[k] = v;
  ctx.generation = a.generation;
  ctx.maxFindings = a.maxFindings >= 0 ? a.maxFindings : 1000;
  if (!tokenizerSpec.empty()) {
    in.tok = loadTokenizer(tokenizerSpec);
    ctx.tokenizer = in.tok;
    try {
      ctx.chatTemplate = loadChatTemplate(a.templateSpec, tokenizerSpec);
    } catch (const Error& e) {
      if (!a.templateSpec.empty()) throw;
      io.err << "maskscope: note: no chat template for " << tokenizerSpec << " (" << e.message()
             << "); role-aware rules will not run\n";
    }
    // The variables and special tokens collate would use (core/collate/TemplateVariables.h).
    ctx.render = templateVariables(ctx.render, ctx.chatTemplate.get(), in.tok.get());
    // The app asks for another tokenizer here (core/lint/TokenizerFit.h); lint names the misfit and the
    // cached tokenizers that fit, and lints with the one given (its findings say what it reads).
    const TokenizerFit fit = tokenizerFit(dump, *in.tok, ctx.render);
    if (!fit.fits) {
      RenderOptions given;
      for (const auto& [k, v] : a.vars) given.variables[k] = v;
      io.err << "maskscope: note: "
             << tokenizerFitNote(a.input, tokenizerSpec, &fit,
                                 rankTokenizers(dump, defaultTokenizerCandidates(), given))
             << "\n";
    }
  } else if (!a.templateSpec.empty()) {
    throw Error("--template needs --tokenizer (the one that produced the dump) to match role headers in the ids");
  }
  if (!a.collatorSpec.empty()) ctx.collator = parseCollatorSpec(a.collatorSpec);
  ctx.findingSink = in.findingSink;
  ctx.attnImplementation = a.attnImplementation;
  in.attention = attentionReport(dump, a.attnImplementation);
  in.report = lintBatch(dump, ctx);
  in.report.summary.input = "batch";
}

// A dataset collated by a framework spec (core/frameworks): the framework's own batches are linted one
// after another, as the trainer's data loader hands them to the collator (per_device_train_batch_size
// rows each, core/frameworks/TrainerBatches.h), never the whole dataset as one batch; the framework
// rules read what the preparation and every collation recorded.
void lintFrameworkInput(const LintArgs& a, const std::string& tokenizerSpec, CommandIO& io, LintedInput& in) {
  if (!a.shard.empty()) throw Error("--shard splits datasets collated by presets; a framework spec is linted whole");
  FrameworkInputs fi;
  fi.dataSpec = a.input;
  fi.collatorSpec = a.collatorSpec;
  fi.tokenizerSpec = tokenizerSpec;
  fi.templateSpec = a.templateSpec;
  fi.rowBegin = a.rowBegin;
  fi.rowEnd = a.rowEnd;
  fi.vars = a.vars;
  fi.minPixels = a.minPixels;
  fi.maxPixels = a.maxPixels;
  fi.lenient = true; // name what the framework would stop on, as a finding
  FrameworkRun prepared;
  const std::unique_ptr<PreparedFramework> framework = prepareFrameworkInputs(fi, prepared);
  const size_t n = framework->rows().size();
  if (n == 0)
    throw Error("no rows left after " + prepared.spec.framework + "'s dataset preparation (" +
                    std::to_string(framework->facts().dropped.size()) + " dropped)",
                {a.input});
  const TrainerBatchSize size = trainerBatchSize(prepared.spec);
  const size_t step = std::min(size.rows, n);
  std::shared_ptr<const Tokenizer> tok = prepared.tokenizer;
  in.dump = true;
  in.tok = tok;
  for (const auto& e : prepared.skipped) io.err << "maskscope: skipped " << e.toString() << "\n";
  LintContext ctx;
  for (const auto& [k, v] : a.vars) ctx.render.variables[k] = v;
  ctx.generation = a.generation;
  ctx.maxFindings = a.maxFindings >= 0 ? a.maxFindings : 1000;
  auto facts = std::make_shared<FrameworkFacts>(framework->facts()); // grows with every collation
  if (tok) {
    ctx.tokenizer = tok;
    // The template the framework rendered with (Axolotl's chat_template), not always the tokenizer's.
    ctx.chatTemplate = templateJudged(*facts, loadChatTemplate(a.templateSpec, tokenizerSpec));
    ctx.render = templateVariables(ctx.render, ctx.chatTemplate.get(), tok.get());
  }
  ctx.findingSink = in.findingSink;
  ctx.attnImplementation = a.attnImplementation;
  size_t begin = 0;
  const NextBatch next = [&](Batch& b) {
    if (begin >= n) return false;
    FrameworkRun run = framework->collate(begin, begin + step);
    addCollatorFacts(*facts, framework->facts(), *run.facts);
    b = std::move(run.view);
    b.framework = facts;
    // The text report draws offending rows of the first batch, and the attention report judges it.
    if (begin == 0) {
      in.dumpBatch = std::make_shared<Batch>(b);
      in.attention = attentionReport(b, a.attnImplementation);
    }
    begin += step;
    return true;
  };
  in.report = lintBatchRun(next, ctx, int(std::min<size_t>(step, size_t(INT32_MAX))));
  for (const auto& w : facts->warnings) io.err << "maskscope: " << facts->framework << ": " << w << "\n";
  in.report.summary.input = "dataset";
  in.report.summary.rowsRead = facts->rowsIn;
  in.report.summary.rowsSkipped = long(prepared.skipped.size());
}

void lintDatasetInput(const LintArgs& a, const std::string& tokenizerSpec, int shardK, int shardN, CommandIO& io,
                      LintedInput& in) {
  const bool progress = a.progress || (&io.err == &std::cerr && isatty(STDERR_FILENO));
  DatasetLintOptions o;
  o.pipeline.tokenizerSpec = tokenizerSpec.empty() ? "builtin:demo" : tokenizerSpec;
  o.pipeline.templateSpec = a.templateSpec;
  o.pipeline.collatorSpec = a.collatorSpec.empty() ? "default" : a.collatorSpec;
  for (const auto& [k, v] : a.vars) o.pipeline.render.variables[k] = v;
  o.pipeline.render.minPixels = a.minPixels; // the image expansion collate gives (core/media)
  o.pipeline.render.maxPixels = a.maxPixels;
  o.microBatchSize = a.microBatch;
  o.threads = a.threads;
  o.generation = a.generation;
  o.attnImplementation = a.attnImplementation;
  o.maxFindings = a.maxFindings >= 0 ? a.maxFindings : 1000;
  o.shardIndex = shardK;
  o.shardCount = shardN;
  o.rowBegin = a.rowBegin;
  o.rowEnd = a.rowEnd;
  o.findingSink = in.findingSink;
  o.audit = in.audit.get();
  if (progress)
    o.progress = [&io, start = std::chrono::steady_clock::now()](double f, long rows) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      char buf[128];
      std::snprintf(buf, sizeof buf, "\rmaskscope lint: %5.1f%% of the bytes  %ld rows  %.0f rows/s", 100.0 * f, rows,
                    s > 0 ? double(rows) / s : 0.0);
      io.err << buf << std::flush;
    };
  const bool preference = isPreferenceDataset(a.input); // prompt/chosen/rejected: both sequences of each pair
  if (preference && !a.shard.empty()) throw Error("--shard splits SFT datasets; preference data is linted whole");
  in.report = preference ? lintPreferenceDataset(a.input, o) : lintDataset(a.input, o);
  if (progress) io.err << "\n";
  in.settings = {{"source", a.input},
                 {"tokenizer", o.pipeline.tokenizerSpec},
                 {"template", o.pipeline.templateSpec},
                 {"collator", o.pipeline.collatorSpec},
                 {"vars", o.pipeline.render.variables},
                 {"generation", o.generation},
                 {"attn_implementation", o.attnImplementation},
                 {"micro_batch", o.microBatchSize},
                 {"max_findings", o.maxFindings},
                 {"prefix_check_rows", o.prefixCheckRows}};
  if (o.rowBegin > 0 || o.rowEnd >= 0) // shards of different --rows must not merge
    in.settings["rows"] = std::to_string(o.rowBegin) + ":" + (o.rowEnd >= 0 ? std::to_string(o.rowEnd) : "");
  if (a.minPixels > 0) in.settings["min_pixels"] = a.minPixels; // shards of other image bounds must not merge
  if (a.maxPixels > 0) in.settings["max_pixels"] = a.maxPixels;
  if (!preference) in.viewPipeline = std::make_unique<DatasetPipeline>(o.pipeline);
}

// The batch holding a finding's row: the dump's (or framework batch's) own row, or the dataset row
// collated alone (packing neighbours are not shown).
std::function<std::optional<RowView>(int64_t)> rowViews(const LintArgs& a, const LintedInput& in) {
  return [&a, &in](int64_t row) -> std::optional<RowView> {
    if (in.dump) {
      const Batch& b = *in.dumpBatch;
      if (row >= b.batchSize() || !b.labels.sameShape(b.inputIds)) return std::nullopt;
      return RowView{in.dumpBatch, row, in.tok.get()};
    }
    if (!in.viewPipeline) return std::nullopt;
    auto one =
        std::make_shared<const Batch>(in.viewPipeline->collateConversations({readDatasetRow(a.input, long(row))}));
    return RowView{one, 0, &in.viewPipeline->tokenizer()};
  };
}

void printTextReport(const LintArgs& a, const LintedInput& in, CommandIO& io) {
  TextReportOptions o;
  o.source = a.input;
  o.shard = a.shard;
  o.colour = io.colour;
  o.maxListed = a.maxFindings >= 0 ? size_t(a.maxFindings) : 50;
  o.showRows = a.showRows;
  o.rowView = rowViews(a, in);
  writeTextReport(io.out, in.report, o);
}

// --json: "verify one batch" for the rows the text report draws (--show-rows): what each one's loss
// grades, decoded (core/table's gradedTextOfRow). A row that cannot be shown is left out.
nlohmann::json flaggedRowsJson(const LintArgs& a, const LintedInput& in) {
  nlohmann::json rows = nlohmann::json::array();
  const auto view = rowViews(a, in);
  for (int64_t row : offendingRows(in.report, a.showRows)) {
    try {
      if (const std::optional<RowView> v = view(row))
        rows.push_back({{"row", row}, {"graded_text", gradedTextOfRow(*v->batch, v->row, v->tokenizer)}});
    } catch (const std::exception&) { // a row the reader or template refuses: its finding says why
    }
  }
  return rows;
}

// A dataset of which no row could be linted is unusable input (exit 2): say why, with the first
// skipped row's reason (a row the reader could not read, or one the template refused).
bool reportNothingLinted(const std::string& source, const LintReport& report, CommandIO& io) {
  const LintSummary& s = report.summary;
  if (s.input != "dataset" || s.rows > 0) return false;
  std::string first;
  for (const Finding& f : report.findings)
    if (f.rule == "row-skipped") {
      first = "; first: " + f.message;
      break;
    }
  if (s.rowsRead == 0)
    io.err << "maskscope: error: " << source << ": no readable rows (" << s.rowsSkipped << " skipped" << first << ")\n";
  else
    io.err << "maskscope: error: " << source << ": no row could be linted (" << s.rowsRead << " read, every one refused"
           << first << ")\n";
  return true;
}

// `--findings-out FILE`: the table every finding is streamed to (nothing when no file is asked for).
class FindingsFile {
public:
  explicit FindingsFile(const std::string& path) : path_(path) {
    if (path.empty()) return;
    const FindingsFormat format = findingsFormatOf(path);
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) throw Error("--findings-out: cannot write the file", {path});
    writer_.emplace(out_, format);
  }
  std::function<void(const Finding&)> sink() {
    if (!writer_) return {};
    return [this](const Finding& f) { writer_->write(f); };
  }
  void finish(CommandIO& io) {
    if (!writer_) return;
    out_.flush();
    if (!out_) throw Error("--findings-out: writing the file failed (disk full?)", {path_});
    io.err << "maskscope: " << writer_->written() << " finding(s) written to " << path_ << "\n";
  }

private:
  std::string path_;
  std::ofstream out_;
  std::optional<FindingsTableWriter> writer_;
};

// `lint --merge SHARD.json...`: the report of the unsharded run, from its shard reports.
int runMerge(const LintArgs& a, CommandIO& io) {
  if (!a.input.empty() || !a.shard.empty() || !a.tokenizerSpec.empty() || !a.templateSpec.empty() ||
      !a.collatorSpec.empty() || !a.modelSpec.empty() || a.generation || !a.vars.empty())
    throw Error("lint --merge takes the dataset and its settings from the shard reports; drop INPUT, --shard, "
                "--tokenizer, --template, --collator, --model, --var and --generation");
  std::vector<ShardFile> files;
  for (const std::string& path : a.merge) files.push_back(readShardFile(path));
  MergedReport m = mergeShardReports(files);
  if (a.maxFindings >= 0 && a.maxFindings != m.settings.value("max_findings", -1L))
    throw Error("lint --merge: --max-findings " + std::to_string(a.maxFindings) + " differs from the shards' " +
                m.settings.value("max_findings", nlohmann::json()).dump() + " (lint the shards with it)");
  if (!a.findingsOut.empty()) {
    if (m.report.summary.findingsOmitted > 0)
      throw Error("lint --merge --findings-out: the shard reports list " +
                  std::to_string(m.report.summary.findingsShown) + " of " +
                  std::to_string(m.report.summary.findingsShown + m.report.summary.findingsOmitted) +
                  " findings; lint the shards with a --max-findings large enough to list every finding, or give each "
                  "shard its own --findings-out");
    FindingsFile table(a.findingsOut);
    const auto sink = table.sink();
    for (const Finding& f : m.report.findings) sink(f);
    table.finish(io);
  }
  const std::string source = m.settings.value("source", std::string());
  LintArgs shown = a;
  shown.input = source;
  shown.maxFindings = m.settings.value("max_findings", -1L);
  LintedInput in;
  in.report = std::move(m.report);
  const LintSummary& s = in.report.summary;
  try { // the token view (and flagged_rows) re-collates offending rows: only where the dataset and tokenizer are
    PipelineSpec p;
    p.tokenizerSpec = m.settings.value("tokenizer", std::string());
    p.templateSpec = m.settings.value("template", std::string());
    p.collatorSpec = m.settings.value("collator", std::string());
    p.render.variables = m.settings.value("vars", std::map<std::string, std::string>());
    p.render.minPixels = m.settings.value("min_pixels", int64_t(0));
    p.render.maxPixels = m.settings.value("max_pixels", int64_t(0));
    in.viewPipeline = std::make_unique<DatasetPipeline>(p);
  } catch (const std::exception& e) {
    io.err << "maskscope: note: no token view of offending rows (" << e.what() << ")\n";
  }
  if (io.json) {
    in.report.summary.source = source;
    nlohmann::json j = reportToJson(in.report);
    j["flagged_rows"] = flaggedRowsJson(shown, in);
    io.out << escapeLineSeparators(j.dump()) << "\n";
  } else {
    printTextReport(shown, in, io);
    return reportNothingLinted(source, in.report, io) ? 2 : in.report.summary.errors > 0 ? 1 : 0;
  }
  if (reportNothingLinted(source, in.report, io)) return 2;
  return s.errors > 0 ? 1 : 0;
}

// --report audits one dataset linted whole through a preset collator; the other inputs are refused
// before any work, naming what to do instead.
void checkReportRequest(const LintArgs& a, bool dump, bool framework) {
  if (!a.reportPath.ends_with(".html") && !a.reportPath.ends_with(".htm"))
    throw Error("--report writes an HTML page: give a file name ending in .html", {a.reportPath});
  if (dump)
    throw Error("--report audits a dataset; a batch dump (" + a.input +
                ") has no dataset rows to audit: use the text "
                "report or --json");
  if (framework)
    throw Error("--report audits a dataset collated by a preset; a framework spec (" + a.collatorSpec +
                ") is linted through the framework's own batches, not a preset's: use the text report or --json");
  if (!a.shard.empty())
    throw Error("--report needs the whole dataset in one run: a --shard run sees part of it; lint without --shard");
  if (isPreferenceDataset(a.input))
    throw Error("--report audits SFT datasets; preference data (" + a.input +
                ") is linted with the text report or --json");
}

void writeAuditFile(const LintArgs& a, const LintedInput& in, CommandIO& io) {
  AuditSettings st;
  st.source = a.input;
  st.tokenizer = in.settings.value("tokenizer", std::string());
  st.templateSpec = a.templateSpec;
  st.collator = in.settings.value("collator", std::string());
  st.vars = a.vars;
  st.minPixels = a.minPixels;
  st.maxPixels = a.maxPixels;
  st.microBatch = a.microBatch;
  st.generation = a.generation;
  st.failOn = a.failOn;
  st.rows = in.settings.value("rows", std::string());
  st.commandLine = auditReproduceCommand(st, a.reportPath);
  std::ofstream out(a.reportPath, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("--report: cannot write the file", {a.reportPath});
  writeAuditReport(out, in.report, *in.audit, st);
  out.flush();
  if (!out) throw Error("--report: writing the file failed (disk full?)", {a.reportPath});
  io.err << "maskscope: audit report (" << auditVerdict(in.report.summary, a.failOn) << ") written to " << a.reportPath
         << "\n";
}

} // namespace

int runLint(const LintArgs& a, CommandIO& io) {
  if (!a.explain.empty() || (a.listRules && a.input.empty())) return explain(a, io);
  if (!a.merge.empty() && !a.reportPath.empty())
    throw Error("--report needs the whole dataset in one run: shard reports carry no token rows to draw; lint the "
                "dataset without --shard/--merge to write the audit report");
  if (!a.merge.empty()) return runMerge(a, io);
  if (a.input.empty()) throw Error("lint needs an INPUT (a dataset or a batch dump), or --explain RULE");
  if (isCaptureFolder(a.input)) return runLintCapture(a, io);
  int shardK = 0, shardN = 1;
  if (!a.shard.empty()) parseShard(a.shard, shardK, shardN);
  std::string tokenizerSpec = a.tokenizerSpec;
  if (tokenizerSpec.empty() && !a.modelSpec.empty() && isDirectory(a.modelSpec)) tokenizerSpec = a.modelSpec;

  if (a.failOn != "error" && a.failOn != "warning")
    throw Error("--fail-on must be 'error' or 'warning', not '" + a.failOn + "'");
  if (a.padId && !isDump(a.input))
    throw Error("--pad-id applies to batch dumps; a dataset's pad id comes from its tokenizer and collator");

  LintedInput in;
  FindingsFile findingsFile(a.findingsOut);
  in.findingSink = findingsFile.sink();
  // A framework spec reads --data rows (pre-tokenized rows mention "input_ids" too): never a dump.
  const bool framework = isFrameworkSpec(a.collatorSpec) && !a.input.ends_with(".safetensors") &&
                         !a.input.ends_with(".pt") && !a.input.ends_with(".pth");
  const bool dump = !framework && isDump(a.input);
  if (dump && (a.rowBegin > 0 || a.rowEnd >= 0))
    throw Error("--rows selects dataset rows; a batch dump (" + a.input + ") is linted whole");
  if (dump && !a.shard.empty()) throw Error("--shard splits a dataset; a batch dump (" + a.input + ") is linted whole");
  if (dump && (a.minPixels > 0 || a.maxPixels > 0))
    throw Error("--min-pixels / --max-pixels set how a dataset's image parts expand; a batch dump (" + a.input +
                ") already holds its image tokens");
  if (!a.reportPath.empty()) {
    checkReportRequest(a, dump, framework);
    in.audit = std::make_unique<AuditCollector>();
  }
  if (dump)
    lintDumpInput(a, tokenizerSpec, io, in);
  else if (framework)
    lintFrameworkInput(a, tokenizerSpec, io, in);
  else
    lintDatasetInput(a, tokenizerSpec, shardK, shardN, io, in);
  const LintReport& report = in.report;
  if (io.json) {
    in.report.summary.source = a.input;
    in.report.summary.shard = a.shard;
    nlohmann::json j = a.shard.empty() ? reportToJson(report) : shardReportJson(report, shardK, shardN, in.settings);
    if (in.attention) j["attention"] = attentionJson(*in.attention);
    if (a.shard.empty()) j["flagged_rows"] = flaggedRowsJson(a, in);
    io.out << escapeLineSeparators(j.dump()) << "\n";
  } else {
    if (in.attention) io.out << attentionText(*in.attention);
    printTextReport(a, in, io);
  }
  findingsFile.finish(io);
  if (in.audit) writeAuditFile(a, in, io);
  if (report.summary.input == "dataset" && report.summary.rowsRead == 0 && shardN == 1 &&
      (a.rowBegin > 0 || a.rowEnd >= 0)) {
    io.err << "maskscope: error: " << a.input << ": --rows selects no readable rows\n";
    return 2;
  }
  if (shardN == 1 && reportNothingLinted(a.input, report, io)) return 2;
  const long failing = report.summary.errors + (a.failOn == "warning" ? report.summary.warnings : 0);
  return failing > 0 ? 1 : 0;
}

} // namespace maskscope

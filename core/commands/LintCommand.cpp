// Lint command: input detection, the JSON (docs/cli.md), the terminal report (findings, a token
// view of the first offending rows like a trainer's debug print, the summary) and --explain.
#include "core/commands/LintCommand.h"
#include "core/batchio/BatchLoader.h"
#include "core/commands/BatchInputs.h"
#include "core/data/PreferenceRow.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/lint/Lint.h"
#include "core/lint/ReportMerge.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonString.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <ostream>
#include <unistd.h>

namespace maskscope {

namespace {

const char* kReset = "\x1b[0m";
const char* kRed = "\x1b[31m";
const char* kYellow = "\x1b[33m";
const char* kGreen = "\x1b[32m";
const char* kDim = "\x1b[2m";
const char* kBlue = "\x1b[34m";
const char* kInverse = "\x1b[7m";
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

const char* severityColour(Severity s) {
  return s == Severity::Error ? kRed : s == Severity::Warning ? kYellow : kBlue;
}

// One row drawn token by token: graded green, ignored plain, padding dim, the flagged position
// inverted. Without colour: [graded] tokens in brackets, pads as '·', flagged as >>token<<.
void drawRow(std::ostream& os, const Batch& b, int64_t r, int64_t flagged, const Tokenizer* tok, bool colour) {
  const int64_t T = b.length();
  int64_t lo = 0, hi = T;
  if (T > 96) {
    lo = std::max<int64_t>(0, (flagged >= 0 ? flagged : 0) - 48);
    hi = std::min<int64_t>(T, lo + 96);
  }
  std::string line = "    ";
  if (lo > 0) line += "… ";
  const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
  for (int64_t t = lo; t < hi; ++t) {
    const int64_t id = b.inputIds.at(r, t);
    std::string text =
        tok && id >= 0 && id < tok->vocabSize() ? tok->displayText(int32_t(id)) : "#" + std::to_string(id);
    std::string shown;
    for (char c : text) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
    const bool graded = b.labels.at(r, t) != kIgnoreIndex;
    const bool pad = haveMeta ? b.meta[size_t(r)][size_t(t)].kind == PositionKind::Padding
                              : (b.attentionMask.sameShape(b.inputIds) && b.attentionMask.at(r, t) == 0);
    if (colour) {
      std::string style = pad ? kDim : graded ? kGreen : "";
      if (t == flagged) style += kInverse;
      line += style + shown + (style.empty() ? "" : kReset);
    } else {
      std::string s = pad ? "·" : shown;
      if (graded) s = "[" + s + "]";
      if (t == flagged) s = ">>" + s + "<<";
      line += s;
    }
    line += colour ? "" : " ";
  }
  if (hi < T) line += " …";
  os << line << "\n";
}

void printSummary(std::ostream& os, const LintSummary& s, bool colour) {
  auto pct = [](int64_t a, int64_t b) {
    if (b <= 0) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * double(a) / double(b));
    return std::string(buf);
  };
  os << "\n" << (colour ? kBold : "") << "summary" << (colour ? kReset : "") << ": " << s.rows << " rows";
  if (s.input == "dataset") os << " linted (" << s.rowsRead << " read, " << s.rowsSkipped << " skipped)";
  os << "; " << s.errors << " errors, " << s.warnings << " warnings, " << s.infos << " infos";
  if (s.findingsOmitted > 0) os << " (" << s.findingsOmitted << " findings not listed)";
  os << "\n  graded: " << s.graded << " positions, " << pct(s.graded - s.gradedPadding, s.realPositions)
     << " of the real tokens; of the graded: reply " << pct(s.gradedReply, s.graded) << ", prompt "
     << pct(s.gradedPrompt, s.graded) << ", padding " << pct(s.gradedPadding, s.graded);
  if (s.gradedUnknown > 0) os << ", role unknown " << pct(s.gradedUnknown, s.graded);
  os << "\n  rows with nothing graded: " << s.rowsNothingGraded << "; padding: " << pct(s.paddingPositions, s.positions)
     << " of positions\n";
  if (s.rows > 0)
    os << "  length: min " << std::max<int64_t>(0, s.lengthMin) << ", mean " << s.lengthSum / std::max<long>(1, s.rows)
       << ", max " << s.lengthMax << (s.maxLength > 0 ? ", max_length " + std::to_string(s.maxLength) : "")
       << (s.rowsOverMaxLength > 0 ? " (" + std::to_string(s.rowsOverMaxLength) + " rows longer)" : "") << "\n";
  nlohmann::json ga = s.gradAccum.toJson();
  if (!ga["max_token_weight_ratio"].is_null()) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "  gradient accumulation (micro-batch %d): averaging micro-batch means weights tokens %.2fx..%.2fx "
                  "of the token-weighted mean; %.1f%% of the weight is misplaced\n",
                  s.gradAccum.microBatchSize, ga["min_token_weight_ratio"].get<double>(),
                  ga["max_token_weight_ratio"].get<double>(), 100.0 * ga["weight_misallocation"].get<double>());
    os << buf;
  }
  if (!s.rulesNotRun.empty()) {
    os << "  rules not run:";
    for (const auto& r : s.rulesNotRun) os << " " << r;
    os << "\n";
  }
}

// What the text report needs besides the report: the dump and its tokenizer, or the pipeline
// that re-collates an offending dataset row to draw it.
struct LintedInput {
  LintReport report;
  bool dump = false;
  Batch dumpBatch;
  std::shared_ptr<const Tokenizer> tok;
  std::unique_ptr<DatasetPipeline> viewPipeline;
  nlohmann::json settings; // datasets: what shard reports of one run must share
};

// Template variables as the pipeline would set them (bos_token, eos_token from the tokenizer).
void adoptTemplateVariables(LintContext& ctx, const Tokenizer& tok) {
  for (const auto& [k, v] : ctx.chatTemplate->defaultVariables()) ctx.render.variables.try_emplace(k, v);
  SpecialTokenIds sp = tok.specialTokens();
  if (!sp.bosText.empty()) ctx.render.variables.try_emplace("bos_token", sp.bosText);
  if (!sp.eosText.empty()) ctx.render.variables.try_emplace("eos_token", sp.eosText);
}

void lintDumpInput(const LintArgs& a, const std::string& tokenizerSpec, CommandIO& io, LintedInput& in) {
  in.dump = true;
  in.dumpBatch = loadBatchDump(a.input);
  if (a.padId) {
    if (in.dumpBatch.padTokenId && *in.dumpBatch.padTokenId != *a.padId)
      io.err << "maskscope: note: --pad-id " << *a.padId << " replaces the dump's pad_token_id "
             << *in.dumpBatch.padTokenId << "\n";
    in.dumpBatch.padTokenId = *a.padId;
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
    if (ctx.chatTemplate) adoptTemplateVariables(ctx, *in.tok);
  } else if (!a.templateSpec.empty()) {
    throw Error("--template needs --tokenizer (the one that produced the dump) to match role headers in the ids");
  }
  if (!a.collatorSpec.empty()) ctx.collator = parseCollatorSpec(a.collatorSpec);
  in.report = lintBatch(in.dumpBatch, ctx);
  in.report.summary.input = "batch";
}

// A dataset collated by a framework spec (core/frameworks): the framework's own batch is linted, with
// the framework rules reading what its run recorded (rows dropped, markers not found, ...).
void lintFrameworkInput(const LintArgs& a, const std::string& tokenizerSpec, CommandIO& io, LintedInput& in) {
  if (!a.shard.empty()) throw Error("--shard splits datasets collated by presets; a framework spec is linted whole");
  BatchInputs bi;
  bi.dataSpec = a.input;
  bi.collatorSpec = a.collatorSpec;
  bi.tokenizerSpec = tokenizerSpec;
  bi.templateSpec = a.templateSpec;
  bi.rowBegin = a.rowBegin;
  bi.rowEnd = a.rowEnd;
  bi.vars = a.vars;
  bi.lenientFramework = true; // name what the framework would stop on, as a finding
  std::vector<RowError> skipped;
  std::shared_ptr<const Tokenizer> tok;
  in.dumpBatch = buildBatch(bi, &skipped, &tok);
  in.dump = true;
  in.tok = tok;
  for (const auto& e : skipped) io.err << "maskscope: skipped " << e.toString() << "\n";
  const FrameworkFacts& f = *in.dumpBatch.framework;
  for (const auto& w : f.warnings) io.err << "maskscope: " << f.framework << ": " << w << "\n";
  LintContext ctx;
  for (const auto& [k, v] : a.vars) ctx.render.variables[k] = v;
  ctx.generation = a.generation;
  ctx.maxFindings = a.maxFindings >= 0 ? a.maxFindings : 1000;
  if (tok) {
    ctx.tokenizer = tok;
    ctx.chatTemplate = loadChatTemplate(a.templateSpec, tokenizerSpec);
    adoptTemplateVariables(ctx, *tok);
  }
  in.report = lintBatch(in.dumpBatch, ctx);
  in.report.summary.input = "dataset";
  in.report.summary.rowsRead = f.rowsIn;
  in.report.summary.rowsSkipped = long(skipped.size());
}

void lintDatasetInput(const LintArgs& a, const std::string& tokenizerSpec, int shardK, int shardN, CommandIO& io,
                      LintedInput& in) {
  const bool progress = a.progress || (&io.err == &std::cerr && isatty(STDERR_FILENO));
  DatasetLintOptions o;
  o.pipeline.tokenizerSpec = tokenizerSpec.empty() ? "builtin:demo" : tokenizerSpec;
  o.pipeline.templateSpec = a.templateSpec;
  o.pipeline.collatorSpec = a.collatorSpec.empty() ? "default" : a.collatorSpec;
  for (const auto& [k, v] : a.vars) o.pipeline.render.variables[k] = v;
  o.microBatchSize = a.microBatch;
  o.threads = a.threads;
  o.generation = a.generation;
  o.maxFindings = a.maxFindings >= 0 ? a.maxFindings : 1000;
  o.shardIndex = shardK;
  o.shardCount = shardN;
  o.rowBegin = a.rowBegin;
  o.rowEnd = a.rowEnd;
  if (progress)
    o.progress = [&io](double f, long rows) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "\rmaskscope lint: %5.1f%%  %ld rows", 100.0 * f, rows);
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
                 {"micro_batch", o.microBatchSize},
                 {"max_findings", o.maxFindings},
                 {"prefix_check_rows", o.prefixCheckRows}};
  if (o.rowBegin > 0 || o.rowEnd >= 0) // shards of different --rows must not merge
    in.settings["rows"] = std::to_string(o.rowBegin) + ":" + (o.rowEnd >= 0 ? std::to_string(o.rowEnd) : "");
  if (!io.json && !preference) in.viewPipeline = std::make_unique<DatasetPipeline>(o.pipeline);
}

void printFindings(const LintArgs& a, const LintReport& report, CommandIO& io) {
  const bool c = io.colour;
  io.out << (c ? kBold : "") << "maskscope lint" << (c ? kReset : "") << " " << a.input << " (" << report.summary.input
         << (a.shard.empty() ? "" : ", shard " + a.shard) << ")\n";
  if (report.findings.empty()) io.out << "  no findings\n";
  const size_t listed = std::min<size_t>(report.findings.size(), a.maxFindings >= 0 ? size_t(a.maxFindings) : 50);
  for (size_t i = 0; i < listed; ++i) {
    const Finding& f = report.findings[i];
    std::string sev = severityName(f.severity);
    io.out << "  " << (c ? severityColour(f.severity) : "") << sev << (c ? kReset : "")
           << std::string(8 - sev.size(), ' ') << (c ? kBold : "") << f.rule << (c ? kReset : "")
           << std::string(f.rule.size() < 32 ? 32 - f.rule.size() : 1, ' ') << f.message << "\n";
  }
  if (report.findings.size() > listed)
    io.out << "  … " << report.findings.size() - listed << " more (--max-findings N, or --json)\n";
}

// Token view of the first offending rows (up to --show-rows), like a trainer's debug print.
void printOffendingRows(const LintArgs& a, const LintedInput& in, CommandIO& io) {
  const bool c = io.colour;
  std::map<int64_t, std::pair<int64_t, std::vector<std::string>>> rows; // row -> (flagged position, rules)
  for (const Finding& f : in.report.findings) {
    if (!f.row || f.severity == Severity::Info) continue;
    if (!rows.count(*f.row) && int(rows.size()) >= a.showRows) continue;
    auto& e = rows[*f.row];
    if (e.second.empty()) e.first = f.position ? *f.position : -1;
    if (std::find(e.second.begin(), e.second.end(), f.rule) == e.second.end()) e.second.push_back(f.rule);
  }
  if (!rows.empty())
    io.out << "\n"
           << (c ? std::string(kGreen) + "graded" + kReset + " / ignored / " + kDim + "padding" + kReset + " / " +
                       kInverse + "flagged" + kReset
                 : std::string("[graded] / ignored / · padding / >>flagged<<"))
           << "\n";
  for (const auto& [row, e] : rows) {
    std::string names;
    for (const auto& n : e.second) names += (names.empty() ? "" : ", ") + n;
    io.out << "  row " << row << " [" << names << "]\n";
    try {
      if (in.dump) {
        if (row < in.dumpBatch.batchSize() && in.dumpBatch.labels.sameShape(in.dumpBatch.inputIds))
          drawRow(io.out, in.dumpBatch, row, e.first, in.tok.get(), c);
      } else if (in.viewPipeline) {
        // The example collated alone (packing neighbours are not shown).
        Batch one = in.viewPipeline->collateConversations({readDatasetRow(a.input, long(row))});
        drawRow(io.out, one, 0, e.first, &in.viewPipeline->tokenizer(), c);
      }
    } catch (const std::exception& ex) {
      io.out << "    (cannot draw: " << ex.what() << ")\n";
    }
  }
}

void printTextReport(const LintArgs& a, const LintedInput& in, CommandIO& io) {
  printFindings(a, in.report, io);
  printOffendingRows(a, in, io);
  printSummary(io.out, in.report.summary, io.colour);
  if (!in.report.findings.empty())
    io.out << "\nrun `maskscope lint --explain RULE` for what a rule means and how to fix it\n";
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
  const std::string source = m.settings.value("source", std::string());
  const LintSummary& s = m.report.summary;
  if (io.json) {
    nlohmann::json j = m.report.toJson();
    j["summary"]["source"] = source;
    io.out << escapeLineSeparators(j.dump()) << "\n";
  } else {
    LintArgs shown = a;
    shown.input = source;
    shown.maxFindings = m.settings.value("max_findings", -1L);
    LintedInput in;
    in.report = std::move(m.report);
    try { // the token view re-collates offending rows: only where the dataset and tokenizer are here
      PipelineSpec p;
      p.tokenizerSpec = m.settings.value("tokenizer", std::string());
      p.templateSpec = m.settings.value("template", std::string());
      p.collatorSpec = m.settings.value("collator", std::string());
      p.render.variables = m.settings.value("vars", std::map<std::string, std::string>());
      in.viewPipeline = std::make_unique<DatasetPipeline>(p);
    } catch (const std::exception& e) {
      io.err << "maskscope: note: no token view of offending rows (" << e.what() << ")\n";
    }
    printTextReport(shown, in, io);
    return reportNothingLinted(source, in.report, io) ? 2 : in.report.summary.errors > 0 ? 1 : 0;
  }
  if (reportNothingLinted(source, m.report, io)) return 2;
  return s.errors > 0 ? 1 : 0;
}

} // namespace

int runLint(const LintArgs& a, CommandIO& io) {
  if (!a.explain.empty() || (a.listRules && a.input.empty())) return explain(a, io);
  if (!a.merge.empty()) return runMerge(a, io);
  if (a.input.empty()) throw Error("lint needs an INPUT (a dataset or a batch dump), or --explain RULE");
  int shardK = 0, shardN = 1;
  if (!a.shard.empty()) parseShard(a.shard, shardK, shardN);
  std::string tokenizerSpec = a.tokenizerSpec;
  if (tokenizerSpec.empty() && !a.modelSpec.empty() && isDirectory(a.modelSpec)) tokenizerSpec = a.modelSpec;

  if (a.failOn != "error" && a.failOn != "warning")
    throw Error("--fail-on must be 'error' or 'warning', not '" + a.failOn + "'");
  if (a.padId && !isDump(a.input))
    throw Error("--pad-id applies to batch dumps; a dataset's pad id comes from its tokenizer and collator");

  LintedInput in;
  // A framework spec reads --data rows (pre-tokenized rows mention "input_ids" too): never a dump.
  const bool framework = isFrameworkSpec(a.collatorSpec) && !a.input.ends_with(".safetensors") &&
                         !a.input.ends_with(".pt") && !a.input.ends_with(".pth");
  const bool dump = !framework && isDump(a.input);
  if (dump && (a.rowBegin > 0 || a.rowEnd >= 0))
    throw Error("--rows selects dataset rows; a batch dump (" + a.input + ") is linted whole");
  if (dump && !a.shard.empty()) throw Error("--shard splits a dataset; a batch dump (" + a.input + ") is linted whole");
  if (dump)
    lintDumpInput(a, tokenizerSpec, io, in);
  else if (framework)
    lintFrameworkInput(a, tokenizerSpec, io, in);
  else
    lintDatasetInput(a, tokenizerSpec, shardK, shardN, io, in);
  const LintReport& report = in.report;
  if (io.json) {
    nlohmann::json j = a.shard.empty() ? report.toJson() : shardReportJson(report, shardK, shardN, in.settings);
    j["summary"]["source"] = a.input;
    if (!a.shard.empty()) j["summary"]["shard"] = a.shard;
    io.out << escapeLineSeparators(j.dump()) << "\n";
  } else {
    printTextReport(a, in, io);
  }
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

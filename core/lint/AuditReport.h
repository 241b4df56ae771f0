// The dataset audit report (`lint --report FILE.html`, the app's File > Export audit report): what a
// lint run keeps for it while the dataset streams (bounded: counts by role, and per rule the first
// offending rows copied as drawn tokens) and the self-contained HTML page written from it.
#pragma once
#include "core/data/Batch.h"
#include "core/lint/LintReport.h"

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace maskscope {

class Tokenizer;

// One offending row copied when the linter met it: the example collated alone (as the text report
// draws it), one entry per position. Positions past kAuditMaxPositions are counted, not kept.
struct AuditRow {
  int64_t row = -1;
  std::optional<long> line, item;
  int64_t flagged = -1;          // the finding's position, -1 when it names none
  std::string message;           // the finding's message
  std::vector<std::string> text; // per position: the token as shown (whitespace made visible)
  std::vector<int64_t> ids, labels, mask;
  std::vector<uint8_t> kind;   // PositionKind per position
  std::vector<uint8_t> graded; // gradedAt per position
  int64_t positionsNotKept = 0;
};
constexpr int64_t kAuditMaxPositions = 4096;
constexpr int kAuditRowsPerRule = 3;
constexpr int kPositionKinds = 11; // PositionKind values

// Positions by what the template made of them (PositionKind): all, and graded (gradedAt).
struct AuditKindCounts {
  std::array<int64_t, kPositionKinds> total{}, graded{};
  void add(const AuditKindCounts& o);
};

// What one micro-batch contributes, computed on its worker thread.
struct AuditChunk {
  AuditKindCounts kinds;
  std::map<int64_t, AuditRow> rows; // dataset row -> drawn, for rows some rule still wants
};

// The bounded state a lint run fills for the report. Workers call observe() (thread-safe); the
// reduction calls reduce() in dataset order, so each rule keeps its first offending rows.
class AuditCollector {
public:
  // Worker side: the counts of the collated micro-batch, and the rows (dataset row -> example
  // collated alone) that findings name for rules still short of rows.
  bool wantsRows(const std::vector<Finding>& chunkFindings) const;
  bool wants(const std::string& rule) const;
  static void countKinds(const Batch& batch, AuditKindCounts& out);
  static AuditRow drawRow(const Batch& alone, const Tokenizer& tok);
  // Reduction side, in dataset order: counts add, rows go to the rules whose findings name them.
  void reduce(AuditChunk& chunk, const std::vector<Finding>& chunkFindings);

  const AuditKindCounts& kinds() const { return kinds_; }
  // rule -> its first offending rows (at most kAuditRowsPerRule), in dataset order.
  const std::map<std::string, std::vector<AuditRow>>& rows() const { return rows_; }

private:
  mutable std::mutex mu_;
  std::set<std::string> full_; // rules with kAuditRowsPerRule rows
  AuditKindCounts kinds_;
  std::map<std::string, std::vector<AuditRow>> rows_;
};

// The settings the footer prints so the report can be reproduced.
struct AuditSettings {
  std::string source, tokenizer, templateSpec, collator, failOn = "error", commandLine;
  std::vector<std::pair<std::string, std::string>> vars;
  int64_t minPixels = 0, maxPixels = 0; // --min-pixels / --max-pixels (0: the processor's)
  int microBatch = 8;
  bool generation = false;
  std::string rows; // --rows A:B, "" = all
};

// The verdict by the severity logic of lint's exit status: reject when the exit status is not 0
// (an error, or a warning with --fail-on warning, or nothing linted), review when warnings remain,
// else accept.
std::string auditVerdict(const LintSummary& s, const std::string& failOn);

// The command that reproduces the page: the settings the run used, spelled as lint options and
// quoted for a POSIX shell, ending in --report reportPath (the CLI's and the app's alike).
std::string auditReproduceCommand(const AuditSettings& settings, const std::string& reportPath);

// Writes the page: verdict and counts, tokens by role, the three row sections, histograms (SVG),
// each rule with findings (explanation, fix, first rows drawn), the settings and version.
void writeAuditReport(std::ostream& os, const LintReport& report, const AuditCollector& audit,
                      const AuditSettings& settings);

} // namespace maskscope

// The audit report's bounded state: counts of positions by kind, and per rule the first offending
// rows copied (token texts, labels, mask, kinds) when the linter meets them, nothing else.
#include "core/lint/AuditReport.h"
#include "core/mask/RowFacts.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Utf8.h"

#include <algorithm>

namespace maskscope {

void AuditKindCounts::add(const AuditKindCounts& o) {
  for (size_t k = 0; k < total.size(); ++k) {
    total[k] += o.total[k];
    graded[k] += o.graded[k];
  }
}

bool AuditCollector::wants(const std::string& rule) const {
  std::lock_guard lk(mu_);
  return !full_.count(rule);
}

bool AuditCollector::wantsRows(const std::vector<Finding>& findings) const {
  std::lock_guard lk(mu_);
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.row && !full_.count(f.rule); });
}

// Kinds as the summary counts them: the collator's metadata, else padding where the attention mask
// is 0 and unknown elsewhere; graded as gradedAt (the summary's graded total is their sum).
void AuditCollector::countKinds(const Batch& b, AuditKindCounts& out) {
  const int64_t T = b.length();
  for (int64_t r = 0; r < b.batchSize(); ++r) {
    const std::vector<PositionRole> roles = rolesOfRow(b, r);
    const bool haveMeta = size_t(r) < b.meta.size() && int64_t(b.meta[size_t(r)].size()) == T;
    for (int64_t t = 0; t < T; ++t) {
      PositionKind k = haveMeta ? b.meta[size_t(r)][size_t(t)].kind : PositionKind::Unknown;
      if (roles[size_t(t)] == RolePad) k = PositionKind::Padding;
      const size_t i = std::min<size_t>(size_t(k), kPositionKinds - 1);
      ++out.total[i];
      out.graded[i] += gradedAt(b, r, t);
    }
  }
}

AuditRow AuditCollector::drawRow(const Batch& b, const Tokenizer& tok) {
  AuditRow row;
  const int64_t T = b.length();
  const int64_t kept = std::min(T, kAuditMaxPositions);
  row.positionsNotKept = T - kept;
  const bool haveMeta = !b.meta.empty() && int64_t(b.meta[0].size()) == T;
  const bool haveLabels = b.labels.sameShape(b.inputIds);
  const bool haveMask = b.attentionMask.sameShape(b.inputIds);
  const std::vector<PositionRole> roles = rolesOfRow(b, 0);
  for (int64_t t = 0; t < kept; ++t) {
    const int64_t id = b.inputIds.at(0, t);
    row.ids.push_back(id);
    row.text.push_back(id >= 0 && id < tok.vocabSize() ? utf8::visibleWhitespace(tok.displayText(int32_t(id)))
                                                       : "#" + std::to_string(id));
    row.labels.push_back(haveLabels ? b.labels.at(0, t) : kIgnoreIndex);
    row.mask.push_back(haveMask ? b.attentionMask.at(0, t) : 1);
    PositionKind k = haveMeta ? b.meta[0][size_t(t)].kind : PositionKind::Unknown;
    if (roles[size_t(t)] == RolePad) k = PositionKind::Padding;
    row.kind.push_back(uint8_t(k));
    row.graded.push_back(gradedAt(b, 0, t) ? 1 : 0);
  }
  return row;
}

void AuditCollector::reduce(AuditChunk& chunk, const std::vector<Finding>& findings) {
  kinds_.add(chunk.kinds);
  std::lock_guard lk(mu_);
  for (const Finding& f : findings) {
    if (full_.count(f.rule) || (!f.row && !f.line)) continue;
    std::vector<AuditRow>& kept = rows_[f.rule];
    const bool seen = std::any_of(kept.begin(), kept.end(), [&](const AuditRow& r) {
      return f.row ? r.row == *f.row : (r.row < 0 && r.line == f.line);
    });
    if (seen) continue;
    AuditRow row;
    if (f.row) {
      auto it = chunk.rows.find(*f.row);
      if (it != chunk.rows.end()) row = it->second; // a copy: one row may serve several rules
      row.row = *f.row;
    }
    row.line = f.line;
    row.item = f.item;
    row.flagged = f.position ? *f.position : -1;
    row.message = f.message;
    kept.push_back(std::move(row));
    if (int(kept.size()) >= kAuditRowsPerRule) full_.insert(f.rule);
  }
}

} // namespace maskscope

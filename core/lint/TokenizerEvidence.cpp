// Tokenizer evidence: each row's first real token and every real position against the candidate's
// special tokens; candidates loaded one by one, load errors kept as reasons.
#include "core/lint/TokenizerEvidence.h"
#include "core/collate/TemplateVariables.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace maskscope {

std::string TokenizerEvidence::describe() const {
  if (rowsJudged == 0) return "no real token to judge";
  const std::string rows = rowsStartingSpecial > 0
                               ? std::to_string(rowsStartingSpecial) + " of " + std::to_string(rowsJudged) +
                                     " rows start with its special token " + firstSpecial
                               : "no row starts with one of its special tokens";
  return rows + ", " + std::to_string(specialPositions) + " positions hold its special tokens";
}

TokenizerEvidence tokenizerEvidence(const Batch& dump, const Tokenizer& tok) {
  TokenizerEvidence e;
  const IntGrid& ids = dump.inputIds;
  const bool haveMask = dump.attentionMask.sameShape(ids);
  auto real = [&](int64_t r, int64_t t) {
    if (haveMask) return dump.attentionMask.at(r, t) != 0;
    return !dump.padTokenId || ids.at(r, t) != *dump.padTokenId;
  };
  auto special = [&](int64_t id) { return id >= 0 && id < tok.vocabSize() && tok.isSpecial(int32_t(id)); };
  std::map<int64_t, int64_t> starts; // special id -> rows it opens
  for (int64_t r = 0; r < ids.rows; ++r) {
    bool first = true;
    for (int64_t t = 0; t < ids.cols; ++t) {
      if (!real(r, t)) continue;
      const int64_t id = ids.at(r, t);
      if (first) {
        ++e.rowsJudged;
        if (special(id)) {
          ++e.rowsStartingSpecial;
          ++starts[id];
        }
        first = false;
      }
      e.specialPositions += special(id) ? 1 : 0;
    }
  }
  int64_t most = 0;
  for (const auto& [id, n] : starts)
    if (n > most) {
      most = n;
      e.firstSpecial = tok.idToToken(int32_t(id));
    }
  return e;
}

std::vector<RankedTokenizer> rankTokenizersByEvidence(const Batch& dump, std::vector<TokenizerCandidate> candidates,
                                                      const RenderOptions& given,
                                                      const std::function<bool()>& cancelled) {
  std::vector<RankedTokenizer> out;
  std::set<std::string> seen;
  for (TokenizerCandidate& c : candidates) {
    if (cancelled && cancelled()) break;
    if (!seen.insert(c.spec).second) continue;
    TokenizerEvidence evidence;
    try {
      const std::shared_ptr<Tokenizer> tok = loadTokenizer(c.spec);
      c.fit = tokenizerFit(dump, *tok, templateVariables(given, nullptr, tok.get()));
      evidence = tokenizerEvidence(dump, *tok);
    } catch (const std::exception& e) {
      c.loadError = e.what();
      c.fit = TokenizerFit();
      c.fit.fits = false;
      c.fit.problems = {"could not be loaded: " + c.loadError};
    }
    out.push_back({std::move(c), std::move(evidence)});
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedTokenizer& a, const RankedTokenizer& b) {
    if (a.candidate.fit.fits != b.candidate.fit.fits) return a.candidate.fit.fits;
    if (!a.candidate.fit.fits) return false;
    const auto key = [](const RankedTokenizer& r) {
      return std::tuple(r.evidence.rowsStartingSpecial, r.candidate.fit.exactSpecials, r.evidence.specialPositions);
    };
    return key(a) > key(b);
  });
  return out;
}

} // namespace maskscope

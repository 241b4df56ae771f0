// Tokenizer fit: the dump's largest input id against the vocabulary, its special ids against the
// tokenizer's special tokens; candidates loaded one by one, errors kept as reasons.
#include "core/lint/TokenizerFit.h"
#include "core/collate/TemplateVariables.h"
#include "core/lint/TokenizerEvidence.h"
#include "core/tokenizer/TokenizerCache.h"

#include <algorithm>
#include <optional>
#include <set>

namespace maskscope {

namespace {

std::string quoted(const Tokenizer& tok, int64_t id) {
  std::string s = tok.idToToken(int32_t(id));
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return "\"" + s + "\"";
}

// The dump's pad/EOS/BOS id against the tokenizer: inside the vocabulary and a special token (or
// the token the variables name for it).
void judgeSpecial(const char* field, const std::optional<int64_t>& dumpId, const std::optional<int32_t>& own,
                  const Tokenizer& tok, const SpecialTokenIds& sp, TokenizerFit& fit) {
  if (!dumpId || *dumpId < 0) return;
  const std::string name = std::string(field) + " " + std::to_string(*dumpId);
  if (*dumpId >= tok.vocabSize()) {
    fit.problems.push_back(name + " is not in its vocabulary of " + std::to_string(tok.vocabSize()) + " tokens");
    return;
  }
  const int32_t id = int32_t(*dumpId);
  const bool named =
      (sp.pad && *sp.pad == id) || (sp.eos && *sp.eos == id) || (sp.bos && *sp.bos == id) || (sp.unk && *sp.unk == id);
  if (!named && !tok.isSpecial(id)) {
    fit.problems.push_back(name + " is " + quoted(tok, id) + " there, not a special token");
    return;
  }
  if (own && *own == id) ++fit.exactSpecials;
  fit.matches.push_back(name + " = " + tok.idToToken(id));
}

} // namespace

std::string TokenizerFit::describe() const {
  std::string out;
  const std::vector<std::string>& parts = fits ? matches : problems;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  if (fits) return "fits (ids up to " + std::to_string(maxId) + ")" + (out.empty() ? "" : ": " + out);
  return out;
}

TokenizerFit tokenizerFit(const Batch& dump, const Tokenizer& tok, const RenderOptions& variables) {
  TokenizerFit fit;
  fit.vocabSize = tok.vocabSize();
  const IntGrid& ids = dump.inputIds;
  for (int64_t r = 0; r < ids.rows; ++r)
    for (int64_t t = 0; t < ids.cols; ++t)
      if (ids.at(r, t) > fit.maxId) {
        fit.maxId = ids.at(r, t);
        fit.maxIdRow = r;
        fit.maxIdPosition = t;
      }
  if (fit.maxId >= fit.vocabSize) {
    int64_t outside = 0;
    for (int64_t v : ids.values) outside += v >= fit.vocabSize ? 1 : 0;
    fit.problems.push_back("id " + std::to_string(fit.maxId) + " (row " + std::to_string(fit.maxIdRow) + ", position " +
                           std::to_string(fit.maxIdPosition) + ") is past its vocabulary of " +
                           std::to_string(fit.vocabSize) + " tokens (" + std::to_string(outside) + " input ids are)");
  }
  const SpecialTokenIds sp = specialTokenIds(tok, variables);
  judgeSpecial("pad_token_id", dump.padTokenId, sp.pad, tok, sp, fit);
  judgeSpecial("eos_token_id", dump.eosTokenId, sp.eos, tok, sp, fit);
  judgeSpecial("bos_token_id", dump.bosTokenId, sp.bos, tok, sp, fit);
  fit.fits = fit.problems.empty();
  return fit;
}

std::vector<TokenizerCandidate> rankTokenizers(const Batch& dump, std::vector<TokenizerCandidate> candidates,
                                               const RenderOptions& given, const std::function<bool()>& cancelled) {
  // Ranked by evidence (core/lint/TokenizerEvidence.h): a vocabulary large enough for the ids alone
  // says nothing about which tokenizer made them.
  std::vector<TokenizerCandidate> out;
  for (RankedTokenizer& r : rankTokenizersByEvidence(dump, std::move(candidates), given, cancelled))
    out.push_back(std::move(r.candidate));
  return out;
}

std::vector<TokenizerCandidate> defaultTokenizerCandidates() {
  std::vector<TokenizerCandidate> out{{"builtin:demo", "builtin:demo", "built in", {}, {}}};
  for (const CachedTokenizer& c : defaultCachedTokenizers()) out.push_back({c.path, c.label, "cached", {}, {}});
  return out;
}

std::string tokenizerFitNote(const std::string& dumpPath, const std::string& tokenizerSpec, const TokenizerFit* fit,
                             const std::vector<TokenizerCandidate>& ranked) {
  if (fit && fit->fits) return {};
  std::string note = fit ? tokenizerSpec + " does not fit " + dumpPath + ": " + fit->describe() +
                               ", so its ids are decoded as the wrong tokens"
                         : dumpPath + " was read without a tokenizer";
  std::string fitting;
  for (const TokenizerCandidate& c : ranked)
    if (c.fit.fits && c.spec != tokenizerSpec)
      fitting += (fitting.empty() ? "" : ", ") + c.label + (c.label == c.spec ? "" : " (" + c.spec + ")");
  note += fitting.empty() ? "; no cached tokenizer fits it" : "; tokenizers that fit: " + fitting;
  return note;
}

} // namespace maskscope

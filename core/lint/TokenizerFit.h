// Can this tokenizer be the one that made this batch dump? Every input id must lie inside its
// vocabulary, and the dump's own pad/EOS/BOS ids (where it names them) must be special tokens of it.
// The app asks for a tokenizer when the one in use does not fit a dump it opens, and `lint` / `loss
// --batch` print the same verdict, so no view decodes ids with a tokenizer that cannot have made them.
#pragma once
#include "core/data/Batch.h"
#include "core/template/ChatTemplate.h"
#include "core/tokenizer/Tokenizer.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace maskscope {

struct TokenizerFit {
  bool fits = true;
  int64_t maxId = -1; // the largest input id of the dump (-1: no ids); its first row and position
  int64_t maxIdRow = -1, maxIdPosition = -1;
  int32_t vocabSize = 0;
  int exactSpecials = 0;             // dump ids equal to the tokenizer's own pad / EOS / BOS (ranks candidates)
  std::vector<std::string> problems; // why it does not fit, one sentence each ("id 151644 (row 0, position 0) ...")
  std::vector<std::string> matches;  // the dump's special ids as this tokenizer reads them ("pad_token_id 0 = <pad>")
  // "fits: ..." or the problems, joined with "; ".
  std::string describe() const;
};

// The verdict for one tokenizer. variables: the template variables it would run with (templateVariables),
// which may name its special tokens (ChatML's eos_token <|im_end|>).
TokenizerFit tokenizerFit(const Batch& dump, const Tokenizer& tokenizer, const RenderOptions& variables = {});

// One tokenizer that could be offered for a dump: where it comes from, and whether it fits.
struct TokenizerCandidate {
  std::string spec;   // what --tokenizer takes
  std::string label;  // "qwen3", "Qwen/Qwen3-0.6B"
  std::string origin; // "recently used", "cached", "built in"
  TokenizerFit fit;
  std::string loadError; // non-empty when the tokenizer could not be loaded (fit.fits is false then)
};

// Loads each spec (errors kept, never thrown), judges it, and orders the list: fitting tokenizers
// first, those whose own special ids equal the dump's first among them, otherwise in the given
// order. Duplicate specs are dropped. cancelled, when given, is asked between tokenizers.
std::vector<TokenizerCandidate> rankTokenizers(const Batch& dump, std::vector<TokenizerCandidate> candidates,
                                               const RenderOptions& given = {},
                                               const std::function<bool()>& cancelled = {});

// builtin:demo, then the cached tokenizers (core/tokenizer/TokenizerCache.h), each with its origin:
// the list `lint` and `loss` judge when a dump's tokenizer does not fit (the app adds its recent ones).
std::vector<TokenizerCandidate> defaultTokenizerCandidates();

// The sentence `lint` and `loss --batch` print on stderr about a dump's tokenizer: empty when the
// given one fits; else why it does not, and the candidates that fit (by label and spec).
std::string tokenizerFitNote(const std::string& dumpPath, const std::string& tokenizerSpec, const TokenizerFit* fit,
                             const std::vector<TokenizerCandidate>& ranked);

} // namespace maskscope

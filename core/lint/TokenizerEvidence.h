// Which tokenizer made a batch dump, by evidence rather than by size: a vocabulary large enough for
// the dump's ids (Gemma 3's 262144 holds every Qwen3 id) fits any dump. The evidence is read from the
// candidate's own vocabulary, no table of known ids: the rows whose first real token is one of its
// special tokens (a BOS or a chat turn's opening: <|im_start|> 151644 for Qwen, <|begin_of_text|>
// 128000 for Llama 3, <bos> and <start_of_turn> for Gemma), and the real positions holding one.
#pragma once
#include "core/lint/TokenizerFit.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace maskscope {

struct TokenizerEvidence {
  int64_t rowsJudged = 0;          // rows with a real token
  int64_t rowsStartingSpecial = 0; // of them, rows whose first real token is one of its special tokens
  int64_t specialPositions = 0;    // real positions holding one of its special tokens
  std::string firstSpecial;        // the special token the most rows start with ("<|im_start|>"), "" when none
  // "3 of 3 rows start with its special token <|im_start|>, 12 positions hold its special tokens".
  std::string describe() const;
};

// The evidence for one tokenizer; a real position is one the attention mask keeps (else one that is not
// the dump's pad id).
TokenizerEvidence tokenizerEvidence(const Batch& dump, const Tokenizer& tokenizer);

struct RankedTokenizer {
  TokenizerCandidate candidate;
  TokenizerEvidence evidence;
  // It fits, and its special tokens open the dump's rows: a tokenizer the app may pre-select.
  bool supported() const { return candidate.fit.fits && evidence.rowsStartingSpecial > 0; }
};

// Loads each spec (errors kept, never thrown), judges its fit and evidence, and orders the list:
// fitting tokenizers first; among them by rows opened by their special tokens, then special ids equal
// to the dump's (TokenizerFit::exactSpecials), then positions holding their special tokens; otherwise
// in the given order. Duplicate specs are dropped; cancelled, when given, is asked between tokenizers.
std::vector<RankedTokenizer> rankTokenizersByEvidence(const Batch& dump, std::vector<TokenizerCandidate> candidates,
                                                      const RenderOptions& given = {},
                                                      const std::function<bool()>& cancelled = {});

} // namespace maskscope

// "Export training template": a chat template without {% generation %} markers made into one that
// TRL's assistant-only masking (return_assistant_tokens_mask) can use, verified before it is given
// out: the result renders byte-identical text on probe conversations and its generation spans are
// exactly the recovered replies (each assistant content through its closing token).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace maskscope {

struct TrainingTemplateResult {
  bool ok = false;
  std::string source;               // the patched template (when ok)
  std::string closingToken;         // the token that ends each reply
  std::vector<std::string> wrapped; // what went inside generation blocks, "line L: expression"
  int probesChecked = 0;            // probe renders compared (conversation x options)
  std::string error;                // why nothing can be given out (when !ok)
};

// variables: the template's special-token variables (bos_token, eos_token, ...); specialTokens: the
// tokenizer's special tokens (may be empty: eos_token and the common closing tokens are tried).
// Never throws; a template that cannot be patched or verified gives ok == false and an error.
TrainingTemplateResult makeTrainingTemplate(const std::string& source,
                                            const std::map<std::string, std::string>& variables,
                                            const std::vector<std::string>& specialTokens = {});

} // namespace maskscope

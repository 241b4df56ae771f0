// The marker step of the training template (TrainingTemplate.h): {% generation %} markers placed
// around each assistant reply (from the output operand that prints the message content) through its
// closing token. Works on the source text guided by the parse tree; TrainingTemplate verifies it.
#pragma once
#include "core/template/jinja/Template.h"

#include <string>
#include <vector>

namespace maskscope {

struct MarkedSource {
  std::string source;               // the normalized template with the markers inserted
  std::vector<std::string> wrapped; // "line L: <expression now inside a generation block>"
};

// closingToken: the text that ends an assistant reply (<|im_end|>, <|eot_id|>, ...); eosToken: the
// eos_token variable's value (an output of `eos_token` counts as the closing token when equal).
// Throws Error saying where and why when it cannot place the markers.
MarkedSource insertGenerationMarkers(const jinja::Template& compiled, const std::string& closingToken,
                                     const std::string& eosToken);

} // namespace maskscope

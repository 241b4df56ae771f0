// tokenizer.json decoders: ByteLevel, ByteFallback, Metaspace, Replace, Fuse, Strip, Sequence.
// They turn token strings back into text, as the Rust library's decode_chain.
#pragma once
#include "core/tokenizer/hf/HfJson.h"

#include <memory>
#include <string>
#include <vector>

namespace maskscope::hf {

class Decoder {
public:
  virtual ~Decoder() = default;
  // atStart: the tokens begin the text (Strip and Metaspace drop a leading space there only).
  virtual void decodeChain(std::vector<std::string>& tokens, bool atStart) const = 0;
};

std::unique_ptr<Decoder> parseDecoder(const Json& v, const JsonPath& at);

} // namespace maskscope::hf

// Reads tokenizer.json in one SAX pass: model.vocab and model.merges (most of the file: 150k-500k
// entries) stream straight into flat vectors; everything else becomes an ordinary nlohmann DOM
// (where model.vocab and model.merges are left empty). About 3x faster than a full DOM.
#pragma once
#include "core/tokenizer/hf/HfJson.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace maskscope::hf {

struct RawMerge {
  std::string a, b; // the pair, or the whole "a b" line in a (isLine)
  bool isLine = false;
  bool invalid = false; // neither a string nor a list of two strings
};

struct RawModel {
  bool haveVocab = false, haveMerges = false;
  std::vector<std::pair<std::string, int64_t>> vocab; // token -> id; id -1: not an integer
  std::vector<RawMerge> merges;
};

struct TokenizerJson {
  Json json;
  RawModel model;
};

// Throws Error with file, line, column and byte offset on syntax errors.
TokenizerJson readTokenizerJson(const std::string& text, const std::string& path);
// Plain DOM parse with the same error reporting (tokenizer_config.json).
Json parseJsonText(const std::string& text, const std::string& path);

} // namespace maskscope::hf

// Tokenize command: one load of the tokenizer, any number of texts.
#include "core/commands/TokenizeCommand.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/Utf8.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

namespace maskscope {

namespace {

// Keys in the documented order (docs/cli.md): ids, tokens, offsets.
nlohmann::ordered_json encodingJson(const Encoding& e) {
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& o : e.offsets) offsets.push_back({o.begin, o.end});
  nlohmann::json tokens = nlohmann::json::array();
  for (const auto& t : e.tokens) tokens.push_back(utf8::sanitize(t));
  nlohmann::ordered_json out;
  out["ids"] = e.ids;
  out["tokens"] = tokens;
  out["offsets"] = offsets;
  return out;
}

void printHuman(const Tokenizer& tok, const Encoding& e, std::ostream& out) {
  out << e.size() << " tokens\n";
  for (size_t i = 0; i < e.size(); ++i) {
    out << "  " << i << "\t" << e.ids[i] << "\t[" << e.offsets[i].begin << ", " << e.offsets[i].end << ")\t"
        << utf8::visibleWhitespace(tok.displayText(e.ids[i])) << (e.special[i] ? "\t(special)" : "") << "\n";
  }
}

} // namespace

int runTokenize(const TokenizeArgs& a, CommandIO& io) {
  int sources = int(a.haveText) + int(!a.textFile.empty()) + int(!a.jsonlFile.empty());
  if (sources != 1) throw Error("give exactly one of --text, --text-file, --jsonl");
  auto tok = loadTokenizer(a.tokenizerSpec);
  EncodeOptions opts{a.addSpecialTokens, a.splitSpecialTokens};
  auto emit = [&](const std::string& text) {
    Encoding e = tok->encode(text, opts);
    if (io.json)
      io.out << encodingJson(e).dump() << "\n";
    else
      printHuman(*tok, e, io.out);
  };
  if (a.haveText) {
    emit(a.text);
    return 0;
  }
  if (!a.textFile.empty()) {
    emit(readFileCapped(a.textFile, int64_t(256) << 20));
    return 0;
  }
  std::ifstream in(a.jsonlFile, std::ios::binary);
  if (!in) throw Error("cannot open", {a.jsonlFile});
  std::string line;
  long lineNo = 0;
  int failures = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    std::string text;
    if (j.is_string())
      text = j.get<std::string>();
    else if (j.is_object() && j.contains("text") && j["text"].is_string())
      text = j["text"].get<std::string>();
    else {
      // Keep the output aligned with the input: a null result, and the reason on stderr.
      io.err << a.jsonlFile << ":" << lineNo << ": not a JSON string or an object with \"text\"\n";
      if (io.json) io.out << "null\n";
      ++failures;
      continue;
    }
    emit(text);
  }
  return failures ? 2 : 0;
}

} // namespace maskscope

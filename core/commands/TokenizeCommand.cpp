// Tokenize command: one load of the tokenizer, any number of texts.
#include "core/commands/TokenizeCommand.h"
#include "core/data/DatasetReader.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"
#include "core/util/JsonString.h"
#include "core/util/Utf8.h"

#include <fstream>
#include <new>
#include <nlohmann/json.hpp>
#include <ostream>

namespace maskscope {

namespace {

// Streams {"ids": [...], "tokens": [...], "offsets": [[b, e], ...]} (keys in docs/cli.md's order)
// in 64 KiB pieces, so memory stays that of the encoding whatever the output's size.
void writeEncodingJson(const Tokenizer& tok, const Encoding& e, std::ostream& out) {
  std::string buf;
  buf.reserve(size_t(1) << 17);
  auto flushIfFull = [&] {
    if (buf.size() < (size_t(1) << 16)) return;
    out << buf;
    buf.clear();
  };
  buf += "{\"ids\":[";
  for (size_t i = 0; i < e.size(); ++i) {
    if (i) buf += ',';
    buf += std::to_string(e.ids[i]);
    flushIfFull();
  }
  buf += "],\"tokens\":[";
  for (size_t i = 0; i < e.size(); ++i) {
    if (i) buf += ',';
    // invalid UTF-8 (byte pieces) becomes U+FFFD
    appendJsonString(buf, e.hasTokenStrings() ? e.tokens[i] : tok.idToToken(e.ids[i]));
    flushIfFull();
  }
  buf += "],\"offsets\":[";
  for (size_t i = 0; i < e.size(); ++i) {
    if (i) buf += ',';
    buf += '[' + std::to_string(e.offsets[i].begin) + ',' + std::to_string(e.offsets[i].end) + ']';
    flushIfFull();
  }
  buf += "]}\n";
  out << buf;
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
  opts.tokenStrings = false; // the JSON writer looks them up: ~32 bytes a token less on big texts
  auto emit = [&](const std::string& text) {
    Encoding e = tok->encode(text, opts);
    if (io.json)
      writeEncodingJson(*tok, e, io.out);
    else
      printHuman(*tok, e, io.out);
  };
  if (a.haveText) {
    emit(a.text);
    return 0;
  }
  if (!a.textFile.empty()) {
    try {
      emit(readFileCapped(a.textFile, int64_t(256) << 20));
    } catch (const std::bad_alloc&) { // name the file: "out of memory" alone does not say what to split
      throw Error("out of memory tokenizing the whole file as one text; split it, or give one text per line with "
                  "--jsonl",
                  {a.textFile});
    }
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
    if (line.size() > DatasetReader::kMaxRowBytes) { // as for dataset rows: refused before parsing
      io.err << a.jsonlFile << ":" << lineNo << ": line is longer than " << (DatasetReader::kMaxRowBytes >> 20)
             << " MiB\n";
      if (io.json) io.out << "null\n";
      ++failures;
      continue;
    }
    std::string parseError;
    auto j = parseJsonOrExplain(line, &parseError);
    std::string text;
    if (j.is_discarded()) {
      io.err << a.jsonlFile << ":" << lineNo << ": invalid JSON: " << parseError << "\n";
      if (io.json) io.out << "null\n";
      ++failures;
      continue;
    }
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

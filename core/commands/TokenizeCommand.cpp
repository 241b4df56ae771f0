// Tokenize command: one load of the tokenizer, any number of texts.
#include "core/commands/TokenizeCommand.h"
#include "core/data/DatasetReader.h"
#include "core/tokenizer/Tokenizer.h"
#include "core/util/Error.h"
#include "core/util/FileReading.h"
#include "core/util/JsonParse.h"
#include "core/util/JsonString.h"
#include "core/util/Utf8.h"

#include <charconv>
#include <fstream>
#include <new>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace maskscope {

namespace {

// Streams {"ids": [...], "tokens": [...], "offsets": [[b, e], ...]} (keys in docs/cli.md's order)
// in 1 MiB pieces, so memory stays that of the encoding whatever the output's size. This is most of
// `tokenize --json`'s time on a large text (bench/tokenizer/json-output.sh), so numbers go straight
// into the buffer (std::to_chars) and each vocabulary entry's JSON literal is escaped once per run,
// the first time its id occurs, then copied.
class EncodingJsonWriter {
public:
  EncodingJsonWriter(const Tokenizer& tok, std::ostream& out) : tok_(tok), out_(out) { buf_.reserve(kPiece + 4096); }

  void write(const Encoding& e) {
    buf_ += "{\"ids\":[";
    for (size_t i = 0; i < e.size(); ++i) {
      if (i) buf_ += ',';
      number(e.ids[i]);
      flushIfFull();
    }
    buf_ += "],\"tokens\":[";
    for (size_t i = 0; i < e.size(); ++i) {
      if (i) buf_ += ',';
      if (e.hasTokenStrings())
        appendJsonString(buf_, e.tokens[i]); // invalid UTF-8 (byte pieces) becomes U+FFFD
      else
        buf_ += literal(e.ids[i]);
      flushIfFull();
    }
    buf_ += "],\"offsets\":[";
    for (size_t i = 0; i < e.size(); ++i) {
      if (i) buf_ += ',';
      buf_ += '[';
      number(e.offsets[i].begin);
      buf_ += ',';
      number(e.offsets[i].end);
      buf_ += ']';
      flushIfFull();
    }
    buf_ += "]}\n";
    out_.write(buf_.data(), std::streamsize(buf_.size()));
    buf_.clear();
  }

private:
  static constexpr size_t kPiece = size_t(1) << 20;

  template <typename Int> void number(Int v) {
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof digits, v);
    buf_.append(digits, size_t(r.ptr - digits));
  }
  void flushIfFull() {
    if (buf_.size() < kPiece) return;
    out_.write(buf_.data(), std::streamsize(buf_.size()));
    buf_.clear();
  }
  // The quoted, escaped token string of id (out-of-vocabulary ids are not cached).
  std::string_view literal(int32_t id) {
    if (id < 0 || id >= tok_.vocabSize()) {
      scratch_.clear();
      appendJsonString(scratch_, tok_.idToToken(id));
      return scratch_;
    }
    if (cache_.empty()) cache_.resize(size_t(tok_.vocabSize()));
    std::string& s = cache_[size_t(id)];
    if (s.empty()) appendJsonString(s, tok_.idToToken(id)); // never empty once made: at least ""
    return s;
  }

  const Tokenizer& tok_;
  std::ostream& out_;
  std::string buf_, scratch_;
  std::vector<std::string> cache_; // [vocabSize] JSON literals, filled as ids occur
};

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
  EncodingJsonWriter json(*tok, io.out);
  auto emit = [&](const std::string& text) {
    Encoding e = tok->encode(text, opts);
    if (io.json)
      json.write(e);
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

// A reviewer's lint of a submitted-style dataset: about 3000 lines of Qwen3 chat rows (clean rows
// built from tests/data/lint/review/clean-pieces.json, a few blank lines, and the problems of
// planted.jsonl at known lines; tools/lint-fixtures/make_review_pieces.py writes both), linted with
// the Qwen3 tokenizer and template under trl-assistant-only (max_length 1024, keep_start). Every
// planted line is reported at its file line with its rule, no clean line is, --findings-out holds
// every finding, and the merge of three shard reports equals the unsharded report.
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/util/FileReading.h"
#include "tests/TokenizerCacheRequired.h"

#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

using namespace maskscope;
using json = nlohmann::ordered_json;

namespace {

const std::string kPieces = MASKSCOPE_TEST_DATA_DIR "/lint/review/";
const std::string kQwen3 = std::string(MASKSCOPE_TOKENIZER_CACHE) + "/qwen3";

constexpr long kLines = 3000;
constexpr long kFirstPlanted = 60, kPlantedEvery = 105; // planted row k at line 60 + 105 k
const std::set<long> kBlankLines = {10, 700, 1900};     // skipped by the reader: rows drift from lines

struct Planted {
  long line = 0;
  std::vector<std::string> rules;
  std::string note;
  long firstCopy = -1; // duplicate-row: the line of the first copy
};

// A clean row: question i of the pieces, sometimes with a system prompt, a second exchange, a reply
// that starts with a newline (the template strips it), reasoning in the last reply, a trailing newline.
json cleanRow(const json& p, long i) {
  auto pick = [&](const char* key, long k) { return p[key][size_t(k) % p[key].size()].get<std::string>(); };
  json msgs = json::array();
  if (i % 4 == 0) msgs.push_back({{"role", "system"}, {"content", pick("systems", i)}});
  msgs.push_back({{"role", "user"}, {"content", pick("questions", i) + " (question " + std::to_string(i) + ")"}});
  std::string answer = pick("answers", i * 3);
  if (i % 5 == 2) {
    msgs.push_back({{"role", "assistant"}, {"content", answer}});
    msgs.push_back({{"role", "user"}, {"content", pick("followups", i)}});
    answer = pick("followup_answers", i);
  }
  if (i % 11 == 5) answer = "\n" + answer;
  if (i % 13 == 7) answer = "<think>\n" + p["reasoning"].get<std::string>() + "\n</think>\n\n" + answer;
  if (i % 17 == 3) answer += "\n";
  msgs.push_back({{"role", "assistant"}, {"content", answer}});
  return {{"messages", msgs}, {"id", i}, {"category", "general"}};
}

std::string words(long n) {
  static const char* kWords[] = {"the", "river", "ran",    "past", "old",   "mills",
                                 "and", "quiet", "fields", "of",   "barley"};
  std::string s;
  for (long k = 0; k < n; ++k) s += std::string(k ? " " : "") + kWords[k % 11];
  return s + ".";
}

// A copy of a row with every space doubled and a line break after each message's text.
std::string respaced(const std::string& line) {
  json row = json::parse(line);
  for (json& m : row["messages"]) {
    std::string c = m["content"].get<std::string>(), out;
    for (char ch : c) out += ch == ' ' ? std::string("  ") : std::string(1, ch);
    m["content"] = out + " \n";
  }
  return row.dump();
}

std::string plantedLine(const json& e, long line, const std::vector<std::string>& written, Planted& p) {
  if (e.contains("raw")) return e["raw"].get<std::string>();
  if (e.contains("row")) return e["row"].dump();
  if (e.contains("duplicate")) {
    p.firstCopy = line - e["duplicate"]["back"].get<long>();
    const std::string& first = written[size_t(p.firstCopy - 1)];
    return e["duplicate"]["respace"].get<bool>() ? respaced(first) : first;
  }
  const json& l = e["long"];
  const std::string tag = " (line " + std::to_string(line) + ")";
  if (l.contains("reply_words"))
    return json{{"messages",
                 {{{"role", "user"}, {"content", "Tell me a long story." + tag}},
                  {{"role", "assistant"}, {"content", words(l["reply_words"].get<long>())}}}}}
        .dump();
  return json{{"messages",
               {{{"role", "user"}, {"content", "Summarise this:" + tag + " " + words(l["prompt_words"].get<long>())}},
                {{"role", "assistant"}, {"content", "A river, mills and fields."}}}}}
      .dump();
}

// Writes the dataset; returns the planted rows (by line) and the clean lines.
std::vector<Planted> writeDataset(const std::string& path, std::set<long>& cleanLines) {
  const json pieces = json::parse(readFileCapped(kPieces + "clean-pieces.json"));
  std::vector<json> planted;
  std::istringstream in(readFileCapped(kPieces + "planted.jsonl"));
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) planted.push_back(json::parse(l));
  std::vector<Planted> out;
  std::vector<std::string> lines;
  for (long line = 1; line <= kLines; ++line) {
    const long k = (line - kFirstPlanted) / kPlantedEvery;
    if (line >= kFirstPlanted && (line - kFirstPlanted) % kPlantedEvery == 0 && size_t(k) < planted.size()) {
      Planted p;
      p.line = line;
      p.note = planted[size_t(k)]["note"].get<std::string>();
      for (const auto& r : planted[size_t(k)]["rules"]) p.rules.push_back(r.get<std::string>());
      lines.push_back(plantedLine(planted[size_t(k)], line, lines, p));
      out.push_back(p);
    } else if (kBlankLines.count(line)) {
      lines.emplace_back();
    } else {
      lines.push_back(cleanRow(pieces, line).dump());
      cleanLines.insert(line);
    }
  }
  std::ofstream f(path, std::ios::binary);
  for (const std::string& l : lines) f << l << "\n";
  return out;
}

int runLintCapture(const LintArgs& a, std::string& out, std::string& err) {
  std::ostringstream o, e;
  CommandIO io{o, e, true, false};
  const int rc = runCommand(io, [&] { return runLint(a, io); });
  out = o.str();
  err = e.str();
  return rc;
}

LintArgs reviewArgs(const std::string& data) {
  LintArgs a;
  a.input = data;
  a.tokenizerSpec = kQwen3;
  a.collatorSpec = "trl-assistant-only";
  a.threads = 2;
  a.maxFindings = 100000;
  return a;
}

} // namespace

class TestLintReview : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void plantedLinesReported();
  void shardsMergeToTheSameReport();

private:
  QTemporaryDir dir_;
  std::string data_;
  std::vector<Planted> planted_;
  std::set<long> clean_;
};

void TestLintReview::initTestCase() {
  REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(kQwen3 + "/tokenizer_config.json"));
  QVERIFY(dir_.isValid());
  data_ = dir_.path().toStdString() + "/submitted.jsonl";
  planted_ = writeDataset(data_, clean_);
  QCOMPARE(planted_.size(), size_t(28));
  QVERIFY(clean_.size() > 2900);
}

void TestLintReview::plantedLinesReported() {
  LintArgs a = reviewArgs(data_);
  a.findingsOut = dir_.path().toStdString() + "/findings.jsonl";
  std::string out, err;
  const int rc = runLintCapture(a, out, err);
  QVERIFY2(rc == 1, err.c_str()); // data errors
  const nlohmann::json report = nlohmann::json::parse(out);
  QVERIFY(report["summary"]["scopes"]["data"]["errors"].get<long>() > 0);
  // Every finding, from the findings file: line -> rules (and messages).
  std::map<long, std::set<std::string>> rulesAt;
  std::map<long, std::string> messagesAt;
  long findings = 0;
  std::istringstream table(readFileCapped(a.findingsOut));
  for (std::string l; std::getline(table, l); ++findings) {
    const nlohmann::json f = nlohmann::json::parse(l);
    QVERIFY2(!f["fix"].get<std::string>().empty(), l.c_str());
    if (f["line"].is_null()) continue;
    rulesAt[f["line"].get<long>()].insert(f["rule"].get<std::string>());
    messagesAt[f["line"].get<long>()] += f["message"].get<std::string>() + "\n";
  }
  const nlohmann::json& sum = report["summary"];
  QCOMPARE(findings, sum["errors"].get<long>() + sum["warnings"].get<long>() + sum["infos"].get<long>());
  // Planted: its rule at its line. The detection table goes to the log (the closing note).
  std::map<std::string, std::pair<int, int>> table2; // rule -> (planted, found)
  for (const Planted& p : planted_)
    for (const std::string& rule : p.rules) {
      const bool found = rulesAt[p.line].count(rule) > 0;
      ++table2[rule].first;
      table2[rule].second += found;
      QVERIFY2(found,
               ("line " + std::to_string(p.line) + " (" + p.note + "): no " + rule + "; found: " + messagesAt[p.line])
                   .c_str());
      if (p.firstCopy > 0)
        QVERIFY2(messagesAt[p.line].find("line " + std::to_string(p.firstCopy)) != std::string::npos,
                 messagesAt[p.line].c_str());
    }
  for (const auto& [rule, n] : table2) qInfo("%-28s planted %d, found %d", rule.c_str(), n.first, n.second);
  // Clean lines: nothing (a reply starting with a newline is not a boundary-merge, reasoning in the
  // last reply is not think-history-stripped, ...).
  // train-serve-mismatch is the Qwen3 template's own (the empty think block only the last trained turn
  // gets), reported on the rows within its budget whatever they hold; no other rule may name a clean line.
  for (long line : clean_) {
    rulesAt[line].erase("train-serve-mismatch");
    QVERIFY2(rulesAt[line].empty(), ("clean line " + std::to_string(line) + " reported: " + messagesAt[line]).c_str());
  }
}

void TestLintReview::shardsMergeToTheSameReport() {
  std::string whole, err;
  QCOMPARE(runLintCapture(reviewArgs(data_), whole, err), 1);
  LintArgs merge;
  for (int k = 0; k < 3; ++k) {
    LintArgs a = reviewArgs(data_);
    a.shard = std::to_string(k) + "/3";
    std::string out;
    QVERIFY2(runLintCapture(a, out, err) != 2, err.c_str());
    const std::string path = dir_.path().toStdString() + "/shard-" + std::to_string(k) + ".json";
    std::ofstream(path, std::ios::binary) << out;
    merge.merge.push_back(path);
  }
  std::string merged;
  QCOMPARE(runLintCapture(merge, merged, err), 1);
  QCOMPARE(merged, whole); // duplicate-row and mixed-row-shapes see every row in every shard
}

QTEST_GUILESS_MAIN(TestLintReview)
#include "tst_lint_review.moc"

// `maskscope render-diff`: the verdicts and differences of every golden case (real Qwen3, Llama-3
// and Gemma-3 tokenizers and templates, expected values from tools/renderdiff/make_goldens.py), the
// alignment on hand-worked sequences, and the exit statuses (--fail-on-diff, bad rows named).
#include "core/collate/TrainServeDiff.h"
#include "core/commands/RenderDiffCommand.h"
#include "core/lint/DatasetLinter.h"
#include "tests/TokenizerCacheRequired.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;
using nlohmann::json;

namespace {

std::string dataPath(const std::string& name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/renderdiff/" + name; }
std::string cachePath(const std::string& name) { return std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + name; }

json readJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

struct Run {
  int status;
  std::string out, err;
};

Run renderDiff(const RenderDiffArgs& a, bool jsonOut = true) {
  std::ostringstream out, err;
  CommandIO io{out, err, jsonOut, false};
  const int st = runCommand(io, [&] { return runRenderDiff(a, io); });
  return {st, out.str(), err.str()};
}

std::vector<json> lines(const std::string& out) {
  std::vector<json> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  return rows;
}

} // namespace

class TestRenderDiff : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void goldens_data();
  void goldens();
  void lintCountsTurns_data();
  void lintCountsTurns();
  void alignment_data();
  void alignment();
  void exitStatus_data();
  void exitStatus();

private:
  QTemporaryDir scratch_;
  std::string llama3AddsBos_; // the cached Llama-3 tokenizer.json with the BOS Meta's tokenizer adds
};

void TestRenderDiff::initTestCase() {
  REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(cachePath("qwen3/tokenizer.json")) &&
                          std::filesystem::exists(cachePath("llama3/tokenizer.json")) &&
                          std::filesystem::exists(cachePath("gemma3/tokenizer.json")));
  QVERIFY(scratch_.isValid());
  llama3AddsBos_ = scratch_.filePath(QStringLiteral("llama3-adds-bos")).toStdString();
  std::filesystem::create_directories(llama3AddsBos_);
  std::filesystem::copy_file(cachePath("llama3/tokenizer.json"), llama3AddsBos_ + "/tokenizer.json");
  std::filesystem::copy_file(dataPath("llama3-adds-bos/tokenizer_config.json"),
                             llama3AddsBos_ + "/tokenizer_config.json");
}

void TestRenderDiff::goldens_data() {
  QTest::addColumn<QByteArray>("caseJson");
  for (const json& c : readJson(dataPath("cases.json")))
    QTest::newRow(c["name"].get<std::string>().c_str()) << QByteArray::fromStdString(c.dump());
}

// Each case exactly as the generator wrote it: every row's verdicts, positions and ids.
void TestRenderDiff::goldens() {
  QFETCH(QByteArray, caseJson);
  const json c = json::parse(caseJson.toStdString());
  RenderDiffArgs a;
  const std::string tok = c["tokenizer"].get<std::string>();
  a.tokenizerSpec = tok == "llama3-adds-bos" ? llama3AddsBos_ : cachePath(tok);
  a.templateSpec = cachePath(c["template"].get<std::string>());
  a.dataSpec = dataPath(c["data"].get<std::string>());
  a.collatorSpec = c["collator"].get<std::string>();
  for (const json& v : c["vars"]) {
    const std::string kv = v.get<std::string>();
    a.vars.emplace_back(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
  }
  const Run r = renderDiff(a);
  QCOMPARE(r.status, 0);
  const std::vector<json> got = lines(r.out);
  const json& expected = c["expected"];
  QCOMPARE(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) QCOMPARE(got[i].dump(), expected[i].dump());
}

void TestRenderDiff::lintCountsTurns_data() { goldens_data(); }

// lint's train-serve-mismatch names each turn the golden says differs (the rows are within its budget).
void TestRenderDiff::lintCountsTurns() {
  QFETCH(QByteArray, caseJson);
  const json c = json::parse(caseJson.toStdString());
  DatasetLintOptions o;
  const std::string tok = c["tokenizer"].get<std::string>();
  o.pipeline.tokenizerSpec = tok == "llama3-adds-bos" ? llama3AddsBos_ : cachePath(tok);
  o.pipeline.templateSpec = cachePath(c["template"].get<std::string>());
  o.pipeline.collatorSpec = c["collator"].get<std::string>();
  for (const json& v : c["vars"]) {
    const std::string kv = v.get<std::string>();
    o.pipeline.render.variables[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  }
  long differing = 0;
  for (const json& row : c["expected"])
    for (const json& turn : row["turns"]) differing += turn["verdict"] != "identical";
  const LintReport r = lintDataset(dataPath(c["data"].get<std::string>()), o);
  const auto it = r.summary.findingsByRule.find("train-serve-mismatch");
  QCOMPARE(it == r.summary.findingsByRule.end() ? 0L : long(it->second), differing);
}

void TestRenderDiff::alignment_data() {
  QTest::addColumn<QByteArray>("caseJson");
  const json file = readJson(dataPath("alignment.json"));
  for (const json& c : file["cases"])
    QTest::newRow(c["name"].get<std::string>().c_str()) << QByteArray::fromStdString(c.dump());
}

// compareTurn on hand-worked sequences: an inserted token is one difference, not a shift of every
// later position; a one-sided block is reported where it starts; the verdict's precedence.
void TestRenderDiff::alignment() {
  QFETCH(QByteArray, caseJson);
  const json c = json::parse(caseJson.toStdString());
  TurnDiff d;
  d.train = c["train"].get<std::vector<int32_t>>();
  d.serve = c["serve"].get<std::vector<int32_t>>();
  const auto special = c["special"].get<std::vector<int32_t>>();
  auto flags = [&](const std::vector<int32_t>& ids) {
    std::vector<uint8_t> f;
    for (int32_t id : ids) f.push_back(std::find(special.begin(), special.end(), id) != special.end());
    return f;
  };
  d.trainSpecial = flags(d.train);
  d.serveSpecial = flags(d.serve);
  d.trainReplyStart = c["train_reply"].get<int64_t>();
  d.serveReplyStart = c["serve_reply"].get<int64_t>();
  compareTurn(d);
  QCOMPARE(std::string(trainServeVerdictName(d.verdict)), c["verdict"].get<std::string>());
  json got = json::array();
  for (const TokenDifference& x : d.differences)
    got.push_back({x.trainPosition, x.servePosition, x.train ? json(*x.train) : json(nullptr),
                   x.serve ? json(*x.serve) : json(nullptr), x.inReply});
  QCOMPARE(got.dump(), c["differences"].dump());
}

void TestRenderDiff::exitStatus_data() {
  QTest::addColumn<QString>("data");
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<bool>("failOnDiff");
  QTest::addColumn<int>("row");
  QTest::addColumn<int>("status");
  QTest::addColumn<int>("rowsPrinted");
  QTest::addColumn<QString>("stderrHas");
  QTest::newRow("differs-without-flag") << QStringLiteral("qwen3-chat.jsonl") << QStringLiteral("qwen3") << false << -1
                                        << 0 << 3 << QStringLiteral("");
  QTest::newRow("differs-fail-on-diff") << QStringLiteral("qwen3-chat.jsonl") << QStringLiteral("qwen3") << true << -1
                                        << 1 << 3 << QStringLiteral("");
  QTest::newRow("identical-fail-on-diff")
      << QStringLiteral("llama3-chat.jsonl") << QStringLiteral("llama3") << true << -1 << 0 << 1 << QStringLiteral("");
  QTest::newRow("one-row-identical") << QStringLiteral("gemma3-chat.jsonl") << QStringLiteral("gemma3") << true << 0
                                     << 0 << 1 << QStringLiteral("");
  QTest::newRow("one-row-differs") << QStringLiteral("gemma3-chat.jsonl") << QStringLiteral("gemma3") << true << 1 << 1
                                   << 1 << QStringLiteral("");
  QTest::newRow("row-out-of-range") << QStringLiteral("gemma3-chat.jsonl") << QStringLiteral("gemma3") << false << 7
                                    << 2 << 0 << QStringLiteral("--row 7: the dataset has 2 readable rows");
  // Row 2 (line 3) makes the template raise, line 2 is not JSON: both named, rows 0 and 3 still run.
  QTest::newRow("bad-rows-named") << QStringLiteral("bad-rows.jsonl") << QStringLiteral("gemma3") << true << -1 << 2
                                  << 2 << QStringLiteral("bad-rows.jsonl:3: ");
  // --row: the rows before it that cannot be read are named, the row's own verdict decides.
  QTest::newRow("row-after-bad-rows") << QStringLiteral("bad-rows.jsonl") << QStringLiteral("gemma3") << true << 2 << 0
                                      << 1 << QStringLiteral("bad-rows.jsonl:2: invalid JSON");
  QTest::newRow("invalid-json-named") << QStringLiteral("bad-rows.jsonl") << QStringLiteral("gemma3") << false << -1
                                      << 2 << 2
                                      << QString::fromStdString("skipped " + dataPath("bad-rows.jsonl") +
                                                                ":2: invalid JSON");
}

void TestRenderDiff::exitStatus() {
  QFETCH(QString, data);
  QFETCH(QString, tokenizer);
  QFETCH(bool, failOnDiff);
  QFETCH(int, row);
  QFETCH(int, status);
  QFETCH(int, rowsPrinted);
  QFETCH(QString, stderrHas);
  RenderDiffArgs a;
  a.tokenizerSpec = cachePath(tokenizer.toStdString());
  a.dataSpec = dataPath(data.toStdString());
  a.failOnDiff = failOnDiff;
  a.row = row;
  const Run r = renderDiff(a);
  QCOMPARE(r.status, status);
  QCOMPARE(int(lines(r.out).size()), rowsPrinted);
  QVERIFY2(r.err.find(stderrHas.toStdString()) != std::string::npos, r.err.c_str());
}

QTEST_GUILESS_MAIN(TestRenderDiff)
#include "tst_render_diff.moc"

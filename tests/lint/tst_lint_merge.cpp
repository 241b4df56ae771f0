// `lint --shard K/N` + `lint --merge`: the merge of the shard reports equals the unsharded report
// byte for byte (JSON and text) over the demo and a generated dataset with bad rows, for several
// collators (one buggy), shard counts and --max-findings; mismatched shard sets are refused.
#include "core/commands/CommandIO.h"
#include "core/commands/LintCommand.h"
#include "core/lint/ReportJson.h"
#include "core/util/JsonString.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;
using namespace Qt::Literals::StringLiterals;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/lint/";

int runLintCapture(const LintArgs& a, bool json, std::string& out, std::string& err) {
  std::ostringstream o, e;
  CommandIO io{o, e, json, false};
  const int rc = runCommand(io, [&] { return runLint(a, io); });
  out = o.str();
  err = e.str();
  return rc;
}

void writeFile(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

LintArgs lintArgs(const std::string& input, const std::string& collator, long maxFindings, int threads = 2) {
  LintArgs a;
  a.input = input;
  a.collatorSpec = collator;
  a.maxFindings = maxFindings;
  a.threads = threads;
  a.microBatch = 4;
  return a;
}

// Lints shard K of N into DIR/shard-K.json; returns the file.
std::string writeShard(const LintArgs& base, int k, int n, const std::string& dir) {
  LintArgs a = base;
  a.shard = std::to_string(k) + "/" + std::to_string(n);
  std::string out, err;
  const int rc = runLintCapture(a, true, out, err);
  if (rc == 2) qWarning("shard %s: %s", a.shard.c_str(), err.c_str());
  const std::string path = dir + "/shard-" + std::to_string(k) + "-of-" + std::to_string(n) + ".json";
  writeFile(path, out);
  return path;
}

} // namespace

class TestLintMerge : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void mergeEqualsUnsharded_data();
  void mergeEqualsUnsharded();
  void refusals_data();
  void refusals();
  void shardJsonRoundTrip_data();
  void shardJsonRoundTrip();
  void flaggedRowsReadWhatIsGraded();
};

// "Verify one batch" in lint: each flagged row's graded text, in --json (flagged_rows) and under the
// row the text report draws. buggy-pad-is-eos grades every token but the pad id, which is the demo's
// EOS, ChatML's <|im_end|>: the text reads the prompt (from position 1: position 0 is never scored),
// and each <|im_end|> is a gap, where the default collator reads "Blue.<|im_end|>". A merge of shard
// reports gives the same flagged_rows (mergeEqualsUnsharded).
void TestLintMerge::flaggedRowsReadWhatIsGraded() {
  const QString kBuggyText = QStringLiteral("user\nName a colour.\u2026\n<|im_start|>assistant\nBlue.\u2026\n");
  LintArgs a = lintArgs(MASKSCOPE_TEST_DATA_DIR "/cli/graded-count/chat.jsonl", "buggy-pad-is-eos", 1000);
  a.tokenizerSpec = "builtin:demo";
  a.templateSpec = "chatml";
  std::string out, err;
  QCOMPARE(runLintCapture(a, true, out, err), 1);
  const nlohmann::json j = nlohmann::json::parse(out);
  const nlohmann::json& rows = j.at("flagged_rows");
  QVERIFY2(!rows.empty(), out.c_str());
  bool row0 = false;
  for (const auto& r : rows) {
    if (r.at("row").get<long>() != 0) continue;
    row0 = true;
    QCOMPARE(QString::fromStdString(r.at("graded_text").get<std::string>()), kBuggyText);
  }
  QVERIFY2(row0, rows.dump().c_str());
  QCOMPARE(runLintCapture(a, false, out, err), 1);
  const std::string shown = "    graded text: " + nlohmann::json(kBuggyText.toStdString()).dump() + "\n";
  QVERIFY2(out.find(shown) != std::string::npos, (shown + out).c_str());
}

void TestLintMerge::mergeEqualsUnsharded_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<int>("shards");
  QTest::addColumn<long>("maxFindings");
  const QString demo = u"builtin:demo"_s, gen = QString::fromStdString(kData + "shards-300.jsonl");
  QTest::newRow("demo-default-2") << demo << u"default"_s << 2 << 1000L;
  QTest::newRow("demo-buggy-all-ones-3") << demo << u"buggy-max-length-all-ones"_s << 3 << 1000L;
  QTest::newRow("demo-pad-is-eos-5") << demo << u"buggy-pad-is-eos"_s << 5 << 1000L;
  QTest::newRow("demo-naive-packed-2") << demo << u"naive-packed"_s << 2 << 1000L;
  QTest::newRow("demo-buggy-all-ones-max3-5") << demo << u"buggy-max-length-all-ones"_s << 5 << 3L;
  QTest::newRow("generated-default-2") << gen << u"default"_s << 2 << 1000L;
  QTest::newRow("generated-default-3") << gen << u"default"_s << 3 << 1000L;
  QTest::newRow("generated-buggy-all-ones-5") << gen << u"buggy-max-length-all-ones"_s << 5 << 1000L;
  QTest::newRow("generated-last-turn-3") << gen << u"buggy-last-turn-only"_s << 3 << 1000L;
  QTest::newRow("generated-buggy-all-ones-max7-3") << gen << u"buggy-max-length-all-ones"_s << 3 << 7L;
  QTest::newRow("generated-default-max0-2") << gen << u"default"_s << 2 << 0L;
}

void TestLintMerge::mergeEqualsUnsharded() {
  QFETCH(QString, input);
  QFETCH(QString, collator);
  QFETCH(int, shards);
  QFETCH(long, maxFindings);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const LintArgs base = lintArgs(input.toStdString(), collator.toStdString(), maxFindings);
  std::string wholeJson, wholeText, err;
  const int wholeRc = runLintCapture(base, true, wholeJson, err);
  QVERIFY2(wholeRc != 2, err.c_str());
  QCOMPARE(runLintCapture(base, false, wholeText, err), wholeRc);

  LintArgs merge;
  const nlohmann::json whole = nlohmann::json::parse(wholeJson);
  for (int k = 0; k < shards; ++k) {
    merge.merge.push_back(writeShard(base, k, shards, dir.path().toStdString()));
    // Each shard holds a proper part of the rows (so equality below is not one shard's report).
    const nlohmann::json s = nlohmann::json::parse(std::ifstream(merge.merge.back()));
    QVERIFY(s["summary"]["rows_read"].get<long>() < whole["summary"]["rows_read"].get<long>());
  }
  std::reverse(merge.merge.begin(), merge.merge.end()); // the order on the command line does not matter
  std::string mergedJson, mergedText;
  QCOMPARE(runLintCapture(merge, true, mergedJson, err), wholeRc);
  QCOMPARE(mergedJson, wholeJson);
  QCOMPARE(runLintCapture(merge, false, mergedText, err), wholeRc);
  QCOMPARE(mergedText, wholeText);
  // --max-findings: the first M findings of the unsharded order are listed, the summary counts all.
  const nlohmann::json& sum = whole["summary"];
  const long total = sum["errors"].get<long>() + sum["warnings"].get<long>() + sum["infos"].get<long>();
  QCOMPARE(long(whole["findings"].size()), std::min(total, maxFindings));
  QCOMPARE(sum["findings_omitted"].get<long>(), total - long(whole["findings"].size()));
}

void TestLintMerge::refusals_data() {
  // Each shard: "K/N collator max-findings input" (input: demo or gen); edit: what is done to the
  // file named by `culprit` (none, unsharded: the unsharded report, text, extra-field: an unknown
  // summary field, no-shard-object). The error names the culprit file and contains `message`.
  QTest::addColumn<QStringList>("shards");
  QTest::addColumn<QString>("edit");
  QTest::addColumn<int>("culprit");
  QTest::addColumn<QString>("message");
  QTest::newRow("different-collator") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 buggy-pad-is-eos 1000 demo"_s}
                                      << u""_s << 1 << u"collator"_s;
  QTest::newRow("different-max-findings")
      << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 5 demo"_s} << u""_s << 1 << u"max_findings"_s;
  QTest::newRow("different-dataset") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 1000 gen"_s} << u""_s << 1
                                     << u"source"_s;
  QTest::newRow("missing-shard") << QStringList{u"0/3 default 1000 demo"_s, u"2/3 default 1000 demo"_s} << u""_s << 0
                                 << u"missing shard(s) 1/3"_s;
  QTest::newRow("duplicated-shard") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 1000 demo"_s,
                                                   u"1/2 default 1000 demo"_s}
                                    << u""_s << 2 << u"given twice"_s;
  QTest::newRow("different-shard-count") << QStringList{u"0/2 default 1000 demo"_s, u"1/3 default 1000 demo"_s} << u""_s
                                         << 1 << u"shard of 3"_s;
  QTest::newRow("unsharded-report") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 1000 demo"_s}
                                    << u"unsharded"_s << 1 << u"not a maskscope lint shard report"_s;
  QTest::newRow("not-json") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 1000 demo"_s} << u"text"_s << 0
                            << u"not JSON"_s;
  QTest::newRow("unknown-summary-field") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 1000 demo"_s}
                                         << u"extra-field"_s << 1 << u"unknown to this maskscope's merge"_s;
  QTest::newRow("other-format") << QStringList{u"0/2 default 1000 demo"_s, u"1/2 default 1000 demo"_s} << u"format"_s
                                << 0 << u"shard format"_s;
}

void TestLintMerge::refusals() {
  QFETCH(QStringList, shards);
  QFETCH(QString, edit);
  QFETCH(int, culprit);
  QFETCH(QString, message);
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  LintArgs merge;
  for (int i = 0; i < shards.size(); ++i) {
    const QStringList f = shards[i].split(u' ');
    const std::string input = f[3] == u"gen"_s ? kData + "shards-300.jsonl" : std::string("builtin:demo");
    LintArgs a = lintArgs(input, f[1].toStdString(), f[2].toLong());
    a.shard = f[0].toStdString();
    std::string out, err;
    runLintCapture(a, true, out, err);
    const std::string path = dir.path().toStdString() + "/file-" + std::to_string(i) + ".json";
    if (i == culprit && edit == u"unsharded"_s) {
      a.shard.clear();
      runLintCapture(a, true, out, err);
    } else if (i == culprit && edit == u"text"_s) {
      out = "this is not JSON\n";
    } else if (i == culprit && edit == u"extra-field"_s) {
      nlohmann::json j = nlohmann::json::parse(out);
      j["summary"]["packed_rows"] = 3;
      out = j.dump();
    } else if (i == culprit && edit == u"format"_s) {
      nlohmann::json j = nlohmann::json::parse(out);
      j["shard"]["format"] = "maskscope-lint-shard/0";
      out = j.dump();
    }
    writeFile(path, out);
    merge.merge.push_back(path);
  }
  std::string out, err;
  QCOMPARE(runLintCapture(merge, true, out, err), 2);
  QVERIFY(out.empty());
  QVERIFY2(err.find(merge.merge[size_t(culprit)]) != std::string::npos, err.c_str());
  QVERIFY2(err.find(message.toStdString()) != std::string::npos, err.c_str());
}

void TestLintMerge::shardJsonRoundTrip_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<QString>("shard");
  QTest::addColumn<long>("maxFindings");
  const QString demo = u"builtin:demo"_s, gen = QString::fromStdString(kData + "shards-300.jsonl");
  QTest::newRow("demo-default-0/2") << demo << u"default"_s << u"0/2"_s << 1000L;
  QTest::newRow("demo-buggy-all-ones-1/3") << demo << u"buggy-max-length-all-ones"_s << u"1/3"_s << 1000L;
  QTest::newRow("generated-bad-rows-0/1") << gen << u"default"_s << u"0/1"_s << 1000L;
  QTest::newRow("generated-last-turn-2/3-max7") << gen << u"buggy-last-turn-only"_s << u"2/3"_s << 7L;
}

// The reader and the writer of the report JSON (core/lint/ReportJson.h) agree: a shard report the
// command wrote, read back and written again, is the same bytes.
void TestLintMerge::shardJsonRoundTrip() {
  QFETCH(QString, input);
  QFETCH(QString, collator);
  QFETCH(QString, shard);
  QFETCH(long, maxFindings);
  LintArgs a = lintArgs(input.toStdString(), collator.toStdString(), maxFindings);
  a.shard = shard.toStdString();
  std::string written, err;
  QVERIFY2(runLintCapture(a, true, written, err) != 2, err.c_str());
  const ShardFile file{"shard.json", nlohmann::json::parse(written)};
  const ShardReport read = shardReportFromJson(file);
  QVERIFY(!read.report.findings.empty());
  const std::string again =
      escapeLineSeparators(shardReportJson(read.report, read.index, read.count, read.settings).dump()) + "\n";
  QCOMPARE(again, written);
}

QTEST_GUILESS_MAIN(TestLintMerge)
#include "tst_lint_merge.moc"

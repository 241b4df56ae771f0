// Small command-line truths, end to end through the binary: snapshot --compare takes any collator
// spec and refuses a bad one, --step out of range exits 2, lint --rows A:B lints exactly those rows,
// lint's length statistics count truncated rows, packing findings name rows in one numbering, and
// collate/lint read preference data (both sides, --side, the preference rule) and the commands that
// read conversations refuse it by name. lint --min-pixels / --max-pixels expand images as collate does.
#include "../TokenizerCacheRequired.h"
#include "RunMaskscope.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

namespace {

const QString kData = QStringLiteral(MASKSCOPE_TEST_DATA_DIR);

QStringList args(std::initializer_list<const char*> words) {
  QStringList out;
  for (const char* w : words) out << QString::fromUtf8(w);
  return out;
}

nlohmann::json parse(const Run& r) { return nlohmann::json::parse(r.out.toStdString()); }

} // namespace

class TestCliTruths : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void snapshotCompare_data() {
    QTest::addColumn<QString>("compare");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("stderrFragment");
    QTest::newRow("two presets") << QStringLiteral("default,buggy-pad-is-eos") << 0 << QString();
    QTest::newRow("preset with key=value")
        << QStringLiteral("default,max_length=64,buggy-pad-is-eos") << 0 << QString();
    QTest::newRow("collator JSON file") << QStringLiteral("hf-lm,") + kData +
                                               QStringLiteral("/cli/compare-collator.json")
                                        << 0 << QString();
    QTest::newRow("typo") << QStringLiteral("defualt,hf-lm") << 2
                          << QStringLiteral("unknown collator preset \"defualt\"");
    QTest::newRow("bad key") << QStringLiteral("default,max_lenght=8,hf-lm") << 2 << QStringLiteral("max_lenght");
    QTest::newRow("missing file") << QStringLiteral("hf-lm,no-such-collator.json") << 2
                                  << QStringLiteral("no-such-collator.json");
    QTest::newRow("one spec") << QStringLiteral("default") << 2 << QStringLiteral("not two collator specs");
    QTest::newRow("ambiguous") << QStringLiteral("default,labels=all,max_length=64") << 2 << QStringLiteral("2 ways");
    // A framework spec on either side, inline or as a file: compared, never refused as "no preset".
    QTest::newRow("inline framework spec, preset")
        << QStringLiteral("{\"framework\":\"trl\"},default") << 0 << QString();
    QTest::newRow("preset, framework spec file")
        << QStringLiteral("default,") + kData + QStringLiteral("/ui/frameworks/trl-spec.json") << 0 << QString();
    QTest::newRow("bad framework spec") << QStringLiteral("{\"framework\":\"nope\"},default") << 2
                                        << QStringLiteral("nope");
  }
  void snapshotCompare() {
    QFETCH(QString, compare);
    QFETCH(int, status);
    QFETCH(QString, stderrFragment);
    QTemporaryDir dir;
    const Run r =
        runMaskscope({QStringLiteral("snapshot"), QStringLiteral("--view"), QStringLiteral("compare"),
                      QStringLiteral("--compare"), compare, QStringLiteral("--size"), QStringLiteral("640x400"),
                      QStringLiteral("--out"), dir.filePath(QStringLiteral("c.png")), QStringLiteral("--json")});
    QVERIFY2(r.status == status, r.err.constData());
    QVERIFY2(QString::fromUtf8(r.err).contains(stderrFragment), r.err.constData());
    if (status == 2) QVERIFY(r.out.isEmpty());
  }

  // `--compare axolotl.yml,default` (issue 34: exit 2 before): an Axolotl config against a preset, on
  // its chat rows with the real Qwen3 tokenizer.
  void snapshotCompareConfig() {
    const QString qwen3 = QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3");
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(qwen3 + QStringLiteral("/tokenizer.json")));
    QTemporaryDir dir;
    const QString frameworks = kData + QStringLiteral("/ui/frameworks/");
    const Run r = runMaskscope(
        {QStringLiteral("snapshot"), QStringLiteral("--view"), QStringLiteral("compare"), QStringLiteral("--compare"),
         frameworks + QStringLiteral("axolotl-chatml.yml,default"), QStringLiteral("--data"),
         frameworks + QStringLiteral("chat-rows.jsonl"), QStringLiteral("--tokenizer"), qwen3, QStringLiteral("--size"),
         QStringLiteral("640x400"), QStringLiteral("--out"), dir.filePath(QStringLiteral("c.png"))});
    QVERIFY2(r.status == 0, r.err.constData());
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("c.png"))).size() > 0);
  }

  // snapshot is the only command with --step (the teaching view's step; train-ab has --steps).
  void stepOutOfRange_data() {
    QTest::addColumn<QString>("step");
    QTest::addColumn<int>("status");
    QTest::newRow("introduction") << QStringLiteral("0") << 0;
    QTest::newRow("first step") << QStringLiteral("1") << 0;
    QTest::newRow("past the last") << QStringLiteral("1000") << 2;
    QTest::newRow("negative") << QStringLiteral("-1") << 2;
  }
  void stepOutOfRange() {
    QFETCH(QString, step);
    QFETCH(int, status);
    QTemporaryDir dir;
    const Run r = runMaskscope({QStringLiteral("snapshot"), QStringLiteral("--view"), QStringLiteral("teaching"),
                                QStringLiteral("--step"), step, QStringLiteral("--size"), QStringLiteral("640x400"),
                                QStringLiteral("--out"), dir.filePath(QStringLiteral("t.png"))});
    QVERIFY2(r.status == status, r.err.constData());
    if (status == 2) QVERIFY2(r.err.contains("outside the teaching steps"), r.err.constData());
  }

  // lint --rows A:B reads rows A..B-1 only: rows_read counts them and every row finding lies inside.
  void lintRows_data() {
    QTest::addColumn<QString>("rows");
    QTest::addColumn<int>("begin");
    QTest::addColumn<int>("end");
    QTest::newRow("middle") << QStringLiteral("2:5") << 2 << 5;
    QTest::newRow("open start") << QStringLiteral(":3") << 0 << 3;
    QTest::newRow("one row") << QStringLiteral("4") << 4 << 5;
  }
  void lintRows() {
    QFETCH(QString, rows);
    QFETCH(int, begin);
    QFETCH(int, end);
    const Run r = runMaskscope(
        args({"lint", "builtin:demo", "--collator", "buggy-max-length-all-ones", "--json", "--rows"}) << rows);
    QCOMPARE(r.status, 1);
    const auto j = parse(r);
    QCOMPARE(j["summary"]["rows_read"].get<int>(), end - begin);
    QCOMPARE(j["summary"]["rows"].get<int>(), end - begin);
    int rowFindings = 0;
    for (const auto& f : j["findings"]) {
      if (f["row"].is_null()) continue;
      ++rowFindings;
      QVERIFY2(f["row"].get<int>() >= begin && f["row"].get<int>() < end, f.dump().c_str());
    }
    QVERIFY(rowFindings > 0);
  }

  void lintRowsRefused_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("stderrFragment");
    QTest::newRow("empty range") << args({"builtin:demo", "--rows", "5:2"}) << QStringLiteral("selects no rows");
    QTest::newRow("past the end") << args({"builtin:demo", "--rows", "100000:100002"})
                                  << QStringLiteral("--rows selects no readable rows");
    QTest::newRow("not A:B") << args({"builtin:demo", "--rows", "x:y"}) << QStringLiteral("is not A:B");
    QTest::newRow("batch dump") << (QStringList{kData + QStringLiteral("/lint/unpacked-chatml.json")}
                                    << QStringLiteral("--rows") << QStringLiteral("0:1"))
                                << QStringLiteral("linted whole");
  }
  void lintRowsRefused() {
    QFETCH(QStringList, extra);
    QFETCH(QString, stderrFragment);
    const Run r = runMaskscope(QStringList{QStringLiteral("lint")} << extra << QStringLiteral("--json"));
    QCOMPARE(r.status, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(stderrFragment), r.err.constData());
  }

  // Truncated rows are counted in over_max_length and the histogram's top bins; the reference is the
  // same rows collated without truncation (their attended counts are the tokenized lengths).
  void lengthStatisticsCountTruncatedRows() {
    const Run full = runMaskscope(
        args({"collate", "--tokenizer", "builtin:demo", "--data", "builtin:demo", "--collator", "default", "--json"}));
    QCOMPARE(full.status, 0);
    const int maxLength = 64;
    int longer = 0, atLeast = 0, rows = 0;
    const auto batch = parse(full);
    for (const auto& mask : batch["attention_mask"]) {
      int real = 0;
      for (const auto& v : mask) real += v.get<int>() != 0;
      longer += real > maxLength;
      atLeast += real >= maxLength; // the histogram's bin 4 starts at max_length itself
      ++rows;
    }
    QVERIFY(longer > 0);
    const Run r = runMaskscope(
        args({"lint", "builtin:demo", "--collator", "default,max_length=64,truncation=keep_start", "--json"}));
    QVERIFY(r.status == 0 || r.status == 1);
    const auto len = parse(r)["summary"]["length"];
    QCOMPARE(len["max_length"].get<int>(), maxLength);
    QCOMPARE(len["over_max_length"].get<int>(), longer);
    QCOMPARE(len["truncated"].get<int>(), longer);
    int histogram = 0, top = 0;
    for (size_t i = 0; i < len["histogram_quarters_of_max_length"].size(); ++i) {
      const int n = len["histogram_quarters_of_max_length"][i].get<int>();
      histogram += n;
      if (i >= 4) top += n; // bins [1, 1.25) .. [1.75, inf) of max_length
    }
    QCOMPARE(histogram, rows);
    QCOMPARE(top, atLeast);
  }

  // A packed example without a reply: the finding names the file line of its row and the lines it was
  // packed with, never a micro-batch's row index.
  void packingFindingsOneNumbering() {
    const Run r = runMaskscope(QStringList{QStringLiteral("lint"), kData + QStringLiteral("/cli/packed_ungraded.jsonl"),
                                           QStringLiteral("--collator"), QStringLiteral("axolotl-packed"),
                                           QStringLiteral("--json")});
    QCOMPARE(r.status, 1); // the row without a reply is a data error too (no-assistant-reply)
    bool found = false;
    const auto report = parse(r); // kept: a range-for over a temporary's member would dangle
    for (const auto& f : report["findings"]) {
      if (f["rule"] != "no-graded-tokens") continue;
      found = true;
      QCOMPARE(f["row"].get<int>(), 1);
      const std::string m = f["message"].get<std::string>();
      QVERIFY2(m.starts_with("line 2 (packed with line 1, line 2, line 3)"), m.c_str());
      QVERIFY2(m.find("batch row") == std::string::npos, m.c_str());
    }
    QVERIFY(found);
  }

  // Preference data through collate: both sides by default, one with --side; the prompt's labels are
  // -100 and equal in both sides, the completion graded through the last (EOS) position.
  // lint and collate expand a 448x448 Qwen2-VL image alike: 256 <|image_pad|> by default, 121 under
  // --max-pixels 100352 (smart_resize to 308x308). hf-lm grades them, so lint's graded text shows them.
  void lintPixelBounds_data() {
    QTest::addColumn<QStringList>("bounds");
    QTest::addColumn<int>("imageTokens");
    QTest::newRow("processor defaults") << QStringList() << 256;
    QTest::newRow("max-pixels 100352") << args({"--max-pixels", "100352"}) << 121;
    QTest::newRow("min-pixels 401408") << args({"--min-pixels", "401408"}) << 529;
  }
  void lintPixelBounds() {
    QFETCH(QStringList, bounds);
    QFETCH(int, imageTokens);
    const QString data = kData + QStringLiteral("/cli/image_448.jsonl");
    const QStringList common = args({"--tokenizer", "builtin:demo", "--template", "qwen2-vl", "--collator", "hf-lm"});
    Run lint = runMaskscope(QStringList{QStringLiteral("lint"), data} + common + bounds + args({"--json"}));
    QCOMPARE(lint.status, 1); // image-tokens-graded
    const nlohmann::json j = parse(lint);
    QCOMPARE(j["flagged_rows"].size(), size_t(1));
    const std::string graded = j["flagged_rows"][0]["graded_text"];
    size_t pads = 0;
    for (size_t at = graded.find("<|image_pad|>"); at != std::string::npos; at = graded.find("<|image_pad|>", at + 1))
      ++pads;
    QCOMPARE(int(pads), imageTokens);
    Run collate = runMaskscope(args({"collate", "--data"}) + QStringList{data} + common + bounds + args({"--json"}));
    QCOMPARE(collate.status, 0);
    QCOMPARE(j["summary"]["positions"]["total"].get<size_t>(), parse(collate)["input_ids"][0].size());
  }

  // A fixed-count processor takes no bounds, and a dump holds its image tokens already: exit 2, named.
  void lintPixelBoundsRefused_data() {
    QTest::addColumn<QStringList>("argv");
    QTest::addColumn<QString>("stderrFragment");
    QTest::newRow("gemma3-vision") << args({"--template", "gemma3-vision", "--max-pixels", "100352"})
                                   << QStringLiteral("fixed 256 tokens per image");
    QTest::newRow("batch dump") << QStringList{kData + QStringLiteral("/batchio/padding_free.json"),
                                               QStringLiteral("--max-pixels"), QStringLiteral("100352")}
                                << QStringLiteral("already holds its image tokens");
  }
  void lintPixelBoundsRefused() {
    QFETCH(QStringList, argv);
    QFETCH(QString, stderrFragment);
    QStringList all{QStringLiteral("lint")};
    if (!argv.first().startsWith(QLatin1Char('-')))
      all << argv.takeFirst();
    else
      all << kData + QStringLiteral("/cli/image_448.jsonl");
    Run r = runMaskscope(all + argv + args({"--json"}));
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains(stderrFragment.toUtf8()), r.err.constData());
  }

  void preferenceCollate_data() {
    QTest::addColumn<QString>("side");
    QTest::addColumn<QStringList>("keys");
    QTest::newRow("both") << QStringLiteral("both")
                          << QStringList{QStringLiteral("chosen"), QStringLiteral("rejected")};
    QTest::newRow("chosen") << QStringLiteral("chosen") << QStringList{QStringLiteral("chosen")};
    QTest::newRow("rejected") << QStringLiteral("rejected") << QStringList{QStringLiteral("rejected")};
  }
  void preferenceCollate() {
    QFETCH(QString, side);
    QFETCH(QStringList, keys);
    const Run r = runMaskscope(QStringList{QStringLiteral("collate"), QStringLiteral("--tokenizer"),
                                           QStringLiteral("builtin:demo"), QStringLiteral("--data"),
                                           kData + QStringLiteral("/preference/conversational.jsonl"),
                                           QStringLiteral("--side"), side, QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    const auto j = parse(r);
    QVERIFY(j["preference"].get<bool>());
    QCOMPARE(int(j.size()), 1 + keys.size());
    for (const QString& key : keys) {
      const auto& b = j[key.toStdString()];
      for (size_t row = 0; row < b["labels"].size(); ++row) {
        const auto& labels = b["labels"][row];
        const auto& mask = b["attention_mask"][row];
        size_t firstGraded = 0, last = 0;
        while (labels[firstGraded].get<int>() == -100) ++firstGraded;
        for (size_t t = 0; t < mask.size(); ++t)
          if (mask[t].get<int>() == 1) last = t;
        QVERIFY(firstGraded > 0);                                                           // the prompt is -100
        for (size_t t = firstGraded; t <= last; ++t) QVERIFY(labels[t].get<int>() != -100); // completion graded
        QCOMPARE(labels[last].get<int>(), b["input_ids"][row][last].get<int>());            // incl. its closing token
      }
    }
  }

  void preferenceSideRefusedOnSftData() {
    const Run r = runMaskscope(
        args({"collate", "--tokenizer", "builtin:demo", "--data", "builtin:demo", "--side", "chosen", "--json"}));
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("--side applies to preference data"), r.err.constData());
  }

  // Commands that read conversations refuse preference data by name, never as "malformed rows".
  void preferenceRefusedByConversationCommands_data() {
    QTest::addColumn<QStringList>("command");
    const QString pairs = kData + QStringLiteral("/preference/conversational.jsonl");
    QTest::newRow("render") << QStringList{QStringLiteral("render"), QStringLiteral("--data"), pairs,
                                           QStringLiteral("--row"), QStringLiteral("0")};
    QTest::newRow("loss") << QStringList{QStringLiteral("loss"),
                                         QStringLiteral("--model"),
                                         QStringLiteral("builtin:tiny"),
                                         QStringLiteral("--data"),
                                         pairs,
                                         QStringLiteral("--no-gradients")};
    QTest::newRow("train-ab") << QStringList{QStringLiteral("train-ab"), QStringLiteral("--experiment"),
                                             QStringLiteral("stop-token"), QStringLiteral("--data"), pairs};
  }
  void preferenceRefusedByConversationCommands() {
    QFETCH(QStringList, command);
    const Run r = runMaskscope(command);
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains("conversational.jsonl: holds preference data"), r.err.constData());
    QVERIFY2(r.err.contains("collate --side"), r.err.constData());
  }

  // lint on preference data: the template that adds <think> to the generation prompt grades prompt
  // text (error, exit 1) on every row; ChatML is clean.
  void preferenceLint_data() {
    QTest::addColumn<QString>("templateSpec");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("mismatches");
    QTest::newRow("think generation prompt")
        << kData + QStringLiteral("/preference/think-generation-prompt.jinja") << 1 << 2;
    QTest::newRow("chatml") << QStringLiteral("chatml") << 0 << 0;
  }
  void preferenceLint() {
    QFETCH(QString, templateSpec);
    QFETCH(int, status);
    QFETCH(int, mismatches);
    const Run r =
        runMaskscope(QStringList{QStringLiteral("lint"), kData + QStringLiteral("/preference/conversational.jsonl"),
                                 QStringLiteral("--template"), templateSpec, QStringLiteral("--json")});
    QCOMPARE(r.status, status);
    const auto j = parse(r);
    QCOMPARE(j["summary"]["rows"].get<int>(), 2);
    QCOMPARE(j["summary"]["findings_by_rule"].value("preference-prompt-mismatch", 0), mismatches);
  }
};

QTEST_GUILESS_MAIN(TestCliTruths)
#include "tst_cli_truths.moc"

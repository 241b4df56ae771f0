// snapshot with a framework spec (--collator SPEC.json | Axolotl .yml | TRL SFTConfig .json): every
// view that draws a batch renders the framework's batch, and --json reports that batch; it must be
// the one `maskscope collate --collator SPEC --json` returns for the same rows (rows, positions,
// graded labels) and name the same framework, version and options as collate's text form. lint
// judges the template the framework rendered with (Axolotl's chat_template, LLaMA-Factory's own).
// Fixtures: tests/data/ui/frameworks/ (real qwen3 tokenizer from the cache for the Axolotl config).
#include "../TokenizerCacheRequired.h"
#include "RunMaskscope.h"

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

namespace {

QString fixture(const char* name) {
  return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/frameworks/") + QString::fromUtf8(name);
}
QString qwen3() { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3"); }

struct Shape {
  long rows = 0, positions = 0, graded = 0;
};

// The shape of the framework's own dict as collate prints it: input_ids [B, T] (or [T]) and labels.
Shape collateShape(const nlohmann::json& dict) {
  Shape s;
  const auto& ids = dict.at("input_ids");
  const bool twoD = !ids.empty() && ids.front().is_array();
  s.rows = twoD ? long(ids.size()) : 1;
  s.positions = twoD ? long(ids.front().size()) : long(ids.size());
  const auto count = [&s](const nlohmann::json& row) { // graded: the label reaches the loss, so not at 0
    for (size_t t = 1; t < row.size(); ++t) s.graded += row[t].get<long>() != -100;
  };
  if (twoD)
    for (const auto& row : dict.at("labels")) count(row);
  else
    count(dict.at("labels"));
  return s;
}

// collate's text form names the framework on its first line: "framework: <description>".
QString collateDescription(const QStringList& inputs) {
  const Run r = runMaskscope(QStringList{QStringLiteral("collate")} << inputs);
  const QString first = QString::fromUtf8(r.out).section(QLatin1Char('\n'), 0, 0);
  return first.startsWith(QLatin1String("framework: ")) ? first.mid(11) : QString();
}

} // namespace

class TestSnapshotFrameworks : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(qwen3() + QStringLiteral("/tokenizer.json"))); }

  void viewsDrawTheFrameworksBatch_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QStringList>("inputs"); // --data, --collator, [--tokenizer]
    const QStringList ids{QStringLiteral("--data"), fixture("ids-rows.jsonl"), QStringLiteral("--collator"),
                          fixture("trl-spec.json")};
    const QStringList sft{QStringLiteral("--data"), fixture("ids-rows.jsonl"), QStringLiteral("--collator"),
                          fixture("trl-sft-config.json")};
    const QStringList axolotl{QStringLiteral("--data"),      fixture("chat-rows.jsonl"),
                              QStringLiteral("--collator"),  fixture("axolotl-chatml.yml"),
                              QStringLiteral("--tokenizer"), qwen3()};
    for (const char* view : {"tokens", "attention", "table", "lint", "loss", "softmax", "dataset", "framework"})
      QTest::addRow("trl spec, ids without tokenizer: %s", view) << QString::fromLatin1(view) << ids;
    for (const char* view : {"tokens", "attention", "table", "lint", "framework", "window"})
      QTest::addRow("axolotl yaml, qwen3: %s", view) << QString::fromLatin1(view) << axolotl;
    for (const char* view : {"tokens", "attention", "window"})
      QTest::addRow("trl SFTConfig json, padding-free: %s", view) << QString::fromLatin1(view) << sft;
  }
  void viewsDrawTheFrameworksBatch() {
    QFETCH(QString, view);
    QFETCH(QStringList, inputs);
    const QStringList rows{QStringLiteral("--rows"), QStringLiteral("0:3")};
    const Run c = runMaskscope(QStringList{QStringLiteral("collate")} << inputs << rows << QStringLiteral("--json"));
    QVERIFY2(c.status == 0, c.err.constData());
    const Shape want = collateShape(nlohmann::json::parse(c.out.toStdString()));
    QVERIFY(want.graded > 0);

    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("v.png"));
    // The whole window has a least size (910 x 627): it is drawn at the 1024 x 768 of a projector.
    const QSize size = view == QLatin1String("window") ? QSize(1024, 768) : QSize(800, 500);
    const Run s =
        runMaskscope(QStringList{QStringLiteral("snapshot"), QStringLiteral("--view"), view, QStringLiteral("--size"),
                                 QStringLiteral("%1x%2").arg(size.width()).arg(size.height()), QStringLiteral("--out"),
                                 out, QStringLiteral("--json")}
                     << inputs << rows);
    QVERIFY2(s.status == 0, s.err.constData());
    const auto j = nlohmann::json::parse(s.out.toStdString());
    QCOMPARE(QImage(out).size(), size);
    QCOMPARE(QString::fromStdString(j.at("stage").get<std::string>()), QStringLiteral("batch"));
    QCOMPARE(QString::fromStdString(j.at("framework").get<std::string>()), collateDescription(inputs));
    QCOMPARE(j.at("batch").at("rows").get<long>(), want.rows);
    QCOMPARE(j.at("batch").at("positions").get<long>(), want.positions);
    QCOMPARE(j.at("batch").at("graded").get<long>(), want.graded);
  }

  // --stage prepared lists the framework's prepared rows and --row counts them: TRL's bfd packing
  // (max_length 5) turns the 3 dataset rows into 2 prepared rows ([1,2,3,4] and [7,8,9]+[5,6]);
  // prepared row 1 alone (--rows 1:2) is the 5 positions of the second pack, 3 graded.
  // Refusals exit 2 naming what is wrong.
  void stageAndRefusals_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("fragment"); // in stderr (status 2) or the --json framework line (0)
    const QStringList packed{QStringLiteral("--data"),    fixture("ids-rows.jsonl"), QStringLiteral("--collator"),
                             fixture("trl-packing.json"), QStringLiteral("--stage"), QStringLiteral("prepared")};
    QTest::newRow("prepared stage") << (QStringList(packed) << QStringLiteral("--rows") << QStringLiteral("1:2")) << 0
                                    << QStringLiteral("packing=true");
    QTest::newRow("prepared row past the end")
        << (QStringList(packed) << QStringLiteral("--row") << QStringLiteral("2")) << 2
        << QStringLiteral("outside the input (2 rows)");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--data"), fixture("ids-rows.jsonl"),
                                                   QStringLiteral("--collator"),
                                                   QStringLiteral("{\"framework\": \"trl\", \"no_such_option\": 1}")}
                                    << 2 << QStringLiteral("no_such_option");
    QTest::newRow("stage without a framework") << QStringList{QStringLiteral("--stage"), QStringLiteral("prepared")}
                                               << 2 << QStringLiteral("--stage applies to framework specs");
    QTest::newRow("batch dump with a framework") << QStringList{QStringLiteral("--batch"), fixture("ids-rows.jsonl"),
                                                                QStringLiteral("--collator"), fixture("trl-spec.json")}
                                                 << 2 << QStringLiteral("give --data");
  }
  void stageAndRefusals() {
    QFETCH(QStringList, extra);
    QFETCH(int, status);
    QFETCH(QString, fragment);
    QTemporaryDir dir;
    const Run s =
        runMaskscope(QStringList{QStringLiteral("snapshot"), QStringLiteral("--view"), QStringLiteral("framework"),
                                 QStringLiteral("--size"), QStringLiteral("640x400"), QStringLiteral("--out"),
                                 dir.filePath(QStringLiteral("s.png")), QStringLiteral("--json")}
                     << extra);
    QVERIFY2(s.status == status, s.err.constData());
    if (status == 2) {
      QVERIFY2(QString::fromUtf8(s.err).contains(fragment), s.err.constData());
      QVERIFY(s.out.isEmpty());
      return;
    }
    const auto j = nlohmann::json::parse(s.out.toStdString());
    QCOMPARE(QString::fromStdString(j.at("stage").get<std::string>()), QStringLiteral("prepared"));
    QVERIFY(QString::fromStdString(j.at("framework").get<std::string>()).contains(fragment));
    QCOMPARE(j.at("batch").at("rows").get<long>(), 1L);
    QCOMPARE(j.at("batch").at("positions").get<long>(), 5L);
    QCOMPARE(j.at("batch").at("graded").get<long>(), 3L);
  }

  // lint judges the template the framework rendered the batch with: Axolotl's chat_template chatml
  // (prefix-preserving, no template finding) rather than the tokenizer's own Qwen3 template, which
  // tokenizer_default does render with (its history-reasoning edit is not prefix-preserving); a
  // LLaMA-Factory template (its own format, not Jinja) leaves the template rules out and says so.
  void lintJudgesTheRenderedTemplate_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("mentions"); // empty: the rule stays quiet
    QTest::newRow("axolotl chatml: chatml judged")
        << fixture("axolotl-chatml.yml") << QStringLiteral("template-not-prefix-preserving") << QString();
    QTest::newRow("axolotl tokenizer_default: qwen3 judged")
        << fixture("axolotl-tokenizer-default.yml") << QStringLiteral("template-not-prefix-preserving")
        << QStringLiteral("qwen3");
    QTest::newRow("llamafactory template: rules not run")
        << fixture("llamafactory-qwen3.json") << QStringLiteral("rules-not-run")
        << QStringLiteral("LLaMA-Factory's template qwen3");
  }
  void lintJudgesTheRenderedTemplate() {
    QFETCH(QString, spec);
    QFETCH(QString, rule);
    QFETCH(QString, mentions);
    const Run r = runMaskscope({QStringLiteral("lint"), fixture("chat-rows.jsonl"), QStringLiteral("--collator"), spec,
                                QStringLiteral("--tokenizer"), qwen3(), QStringLiteral("--json")});
    QVERIFY2(r.status == 0 || r.status == 1, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QStringList hits;
    for (const auto& f : j.at("findings"))
      if (f.at("rule").get<std::string>() == rule.toStdString())
        hits << QString::fromStdString(f.at("message").get<std::string>());
    if (mentions.isEmpty()) {
      QVERIFY2(hits.isEmpty(), qPrintable(hits.join(QLatin1Char('\n'))));
      return;
    }
    QCOMPARE(hits.size(), 1);
    QVERIFY2(hits.front().contains(mentions), qPrintable(hits.front()));
  }
};

QTEST_GUILESS_MAIN(TestSnapshotFrameworks)
#include "tst_snapshot_frameworks.moc"

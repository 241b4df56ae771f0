// `maskscope train-ab` end to end: the stop-token experiment reproduces the failure to stop in a short
// run (pad == eos masks the end-of-turn token), and unusable options exit 2 naming the option.
#include "RunMaskscope.h"

#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>

class TestTrainAB : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // A short run of the default set-up: run A (pad == eos) must stop less often than run B by 0.3.
  void stopTokenExperiment() {
    Run r = runMaskscope({QStringLiteral("train-ab"), QStringLiteral("--experiment"), QStringLiteral("stop-token"),
                          QStringLiteral("--steps"), QStringLiteral(STOP_TOKEN_TEST_STEPS), QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["runs"].size(), size_t(2));
    const auto& a = j["runs"][0];
    const auto& b = j["runs"][1];
    QCOMPARE(a["collator"].get<std::string>(), std::string("buggy-pad-is-eos"));
    QCOMPARE(b["collator"].get<std::string>(), std::string("hf-lm"));
    QVERIFY(!a["generations"].empty());
    QCOMPARE(a["generations"].size(), b["generations"].size());
    QVERIFY2(a["stop_fraction"].get<double>() + 0.3 <= b["stop_fraction"].get<double>(), r.out.constData());
    // Both runs grade what their collator grades: the closing token is absent from A's targets only.
    QCOMPARE(a["curve"]["step"].size(), b["curve"]["step"].size());
    QVERIFY(!r.err.isEmpty()); // progress goes to stderr, never into the JSON
  }

  void unusableOptions_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("named");
    QTest::newRow("unknown-experiment") << QStringList{QStringLiteral("--experiment"), QStringLiteral("nope")}
                                        << QStringLiteral("--experiment");
    QTest::newRow("collator-a-alone") << QStringList{QStringLiteral("--collator-a"), QStringLiteral("default")}
                                      << QStringLiteral("--collator-b");
    QTest::newRow("micro-batch-over-batch")
        << QStringList{QStringLiteral("--micro-batch"), QStringLiteral("9")} << QStringLiteral("--micro-batch");
  }
  void unusableOptions() {
    QFETCH(QStringList, args);
    QFETCH(QString, named);
    Run r = runMaskscope(QStringList{QStringLiteral("train-ab")} + args);
    QCOMPARE(r.status, 2);
    QVERIFY2(r.err.contains(named.toUtf8()), r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestTrainAB)
#include "tst_train_ab.moc"

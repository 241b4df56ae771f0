// `maskscope train-ab` end to end: every experiment trains its two collators and reports a verdict
// computed from the runs' own numbers, a hand-picked pair has none, and unusable options exit 2
// naming the option.
#include "RunMaskscope.h"

#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>

class TestTrainAB : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // Every experiment's verdict is computed from the runs' own numbers: a and b are run A's and run B's
  // metric (stop_fraction for stop-token, the final held-out loss for the others), observed is exactly
  // the prediction applied to them, and the sentence opens accordingly. A short run, whatever it shows:
  // this checks the computation and the report, not the lesson (whether each lesson appears with the
  // defaults is measured per seed, not asserted here: a short run does not show it).
  void verdictFollowsTheRuns_data() {
    QTest::addColumn<QString>("experiment");
    QTest::addColumn<QString>("collatorA");
    QTest::addColumn<QString>("collatorB");
    QTest::newRow("stop-token") << QStringLiteral("stop-token") << QStringLiteral("buggy-pad-is-eos")
                                << QStringLiteral("hf-lm");
    QTest::newRow("pad-graded") << QStringLiteral("pad-graded") << QStringLiteral("buggy-max-length-all-ones")
                                << QStringLiteral("default");
    QTest::newRow("prompt-graded") << QStringLiteral("prompt-graded") << QStringLiteral("hf-seq2seq-style")
                                   << QStringLiteral("default");
    QTest::newRow("packing") << QStringLiteral("packing") << QStringLiteral("buggy-no-position-reset")
                             << QStringLiteral("axolotl-packed");
    QTest::newRow("grad-accum") << QStringLiteral("grad-accum") << QStringLiteral("default")
                                << QStringLiteral("default");
  }
  void verdictFollowsTheRuns() {
    QFETCH(QString, experiment);
    QFETCH(QString, collatorA);
    QFETCH(QString, collatorB);
    Run r =
        runMaskscope({QStringLiteral("train-ab"), QStringLiteral("--experiment"), experiment, QStringLiteral("--steps"),
                      QStringLiteral("4"), QStringLiteral("--eval-every"), QStringLiteral("2"),
                      QStringLiteral("--max-new-tokens"), QStringLiteral("4"), QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    QVERIFY(!r.err.isEmpty()); // progress goes to stderr, never into the JSON
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["runs"].size(), size_t(2));
    const auto& runA = j["runs"][0];
    const auto& runB = j["runs"][1];
    QCOMPARE(runA["collator"].get<std::string>(), collatorA.toStdString());
    QCOMPARE(runB["collator"].get<std::string>(), collatorB.toStdString());
    QVERIFY(!runA["generations"].empty());
    QCOMPARE(runA["generations"].size(), runB["generations"].size());
    QCOMPARE(runA["curve"]["step"].size(), runB["curve"]["step"].size());
    const auto& v = j["verdict"];
    QVERIFY2(v.is_object(), r.out.constData());
    const bool stop = experiment == QLatin1String("stop-token");
    const char* field = stop ? "stop_fraction" : "final_held_out_loss";
    QCOMPARE(v["metric"].get<std::string>(), std::string(stop ? "stop_fraction" : "final_held_out_loss"));
    const double a = runA[field].get<double>();
    const double b = runB[field].get<double>();
    QCOMPARE(v["a"].get<double>(), a);
    QCOMPARE(v["b"].get<double>(), b);
    const auto& heldB = runB["held_out"]["loss"];
    QVERIFY(heldB.size() >= 2);
    const bool expected =
        stop ? b - a >= 0.3 - 1e-9 : a > b && heldB.back().get<double>() < heldB.front().get<double>();
    QCOMPARE(v["observed"].get<bool>(), expected);
    const std::string opening = expected ? "As predicted" : "The effect did not appear this time";
    QVERIFY2(v["text"].get<std::string>().rfind(opening, 0) == 0, v["text"].get<std::string>().c_str());
  }

  // A hand-picked pair predicts nothing: no verdict.
  void customPairHasNoVerdict() {
    Run r = runMaskscope({QStringLiteral("train-ab"), QStringLiteral("--collator-a"), QStringLiteral("default"),
                          QStringLiteral("--collator-b"), QStringLiteral("hf-lm"), QStringLiteral("--steps"),
                          QStringLiteral("2"), QStringLiteral("--max-new-tokens"), QStringLiteral("2"),
                          QStringLiteral("--json")});
    QCOMPARE(r.status, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(j["verdict"].is_null());
    QCOMPARE(j["experiment"].get<std::string>(), std::string("custom"));
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

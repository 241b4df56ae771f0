// `maskscope train-ab` end to end: the stop-token experiment reproduces the failure to stop in a short
// run (pad == eos masks the end-of-turn token), every experiment's verdict is observed on seeds 0-2
// and agrees with the runs' own numbers, and unusable options exit 2 naming the option.
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

  // Every experiment shows its predicted effect on seeds 0, 1 and 2 with its default steps and learning
  // rate (the loss experiments generate only a few tokens: their verdict reads the held-out loss), and
  // the verdict's numbers are the runs' own: a and b are run A's and run B's metric.
  void verdictObserved_data() {
    QTest::addColumn<QString>("experiment");
    QTest::addColumn<int>("seed");
    for (const char* e : {"stop-token", "pad-graded", "prompt-graded", "packing", "grad-accum"})
      for (int seed = 0; seed < 3; ++seed)
        QTest::newRow(qPrintable(QStringLiteral("%1-seed%2").arg(QLatin1String(e)).arg(seed)))
            << QString::fromLatin1(e) << seed;
  }
  void verdictObserved() {
    QFETCH(QString, experiment);
    QFETCH(int, seed);
    QStringList args{QStringLiteral("train-ab"), QStringLiteral("--experiment"), experiment,
                     QStringLiteral("--seed"),   QString::number(seed),          QStringLiteral("--json")};
    if (experiment != QLatin1String("stop-token")) args << QStringLiteral("--max-new-tokens") << QStringLiteral("4");
    Run r = runMaskscope(args);
    QCOMPARE(r.status, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    const auto& v = j["verdict"];
    QVERIFY2(v.is_object(), r.out.constData());
    const std::string metric = v["metric"].get<std::string>();
    const char* field = metric == "stop_fraction" ? "stop_fraction" : "final_held_out_loss";
    QCOMPARE(metric, std::string(experiment == QLatin1String("stop-token") ? "stop_fraction" : "final_held_out_loss"));
    QCOMPARE(v["a"].get<double>(), j["runs"][0][field].get<double>());
    QCOMPARE(v["b"].get<double>(), j["runs"][1][field].get<double>());
    const auto& heldB = j["runs"][1]["held_out"]["loss"];
    // The correct run learns: its held-out loss falls from the first evaluation to the last.
    QVERIFY2(heldB.back().get<double>() < heldB.front().get<double>(), v.dump().c_str());
    QVERIFY2(v["observed"].get<bool>(), v["text"].get<std::string>().c_str());
    QVERIFY(v["text"].get<std::string>().rfind("As predicted", 0) == 0);
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

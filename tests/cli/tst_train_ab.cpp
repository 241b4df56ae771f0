// `maskscope train-ab` end to end: every experiment shows its lesson on seeds 0-2 (fast settings) with a
// verdict computed from the runs' own numbers, a hand-picked pair has none, each run's exposure bias is
// computed from its own model and held-out replies, and unusable options exit 2 naming the option.
#include "RunMaskscope.h"

#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>

#include <cmath>

namespace {

// The fast settings of each experiment (see lessonShowsOnEverySeed): fewer steps than the defaults,
// and few generated tokens where the verdict does not read the generations.
QStringList fastSettings(const QString& experiment) {
  const QString gen = QStringLiteral("--max-new-tokens");
  // stop-token runs its defaults (60 steps at 1e-3): end_of_turn_nll measured A 9.49 vs B 3.36 (seed 0),
  // 9.57 vs 3.49 (seed 1), 9.62 vs 3.53 (seed 2) against a 2-nat bar; stopping is learnt late, so a shorter
  // run would test less of what the lab shows.
  if (experiment == QLatin1String("stop-token")) return {};
  // The first 10 steps of the default run (warm-up lasts 10 steps, so the schedule is the same):
  // measured A 6.2185 vs B 6.1642 (seed 0), 6.2184 vs 6.1641 (seed 1), 6.2182 vs 6.1653 (seed 2).
  if (experiment == QLatin1String("pad-graded"))
    return {QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--eval-every"), QStringLiteral("5"), gen,
            QStringLiteral("2")};
  // 20 steps at 1e-3: measured A 5.5398 vs B 5.4714, 5.5711 vs 5.4859, 5.5409 vs 5.4658 on seeds 0-2
  // (15-20 s of CPU each).
  if (experiment == QLatin1String("prompt-graded"))
    return {QStringLiteral("--steps"),
            QStringLiteral("20"),
            QStringLiteral("--lr"),
            QStringLiteral("1e-3"),
            QStringLiteral("--eval-every"),
            QStringLiteral("10"),
            gen,
            QStringLiteral("2")};
  // packing and grad-accum read what each run computes from its own layout; a few steps suffice for
  // run B's held-out loss to fall. packing, 10 steps: leak A 0.1985 / 0.2232 / 0.2297 vs B at most 5.5e-07;
  // grad-accum, 6 steps: gap A 0.569 / 0.670 / 0.627 vs B at most 8.1e-08 (seeds 0-2; bars 1e-3 / 1e-4
  // and 0.005 / 1e-4).
  if (experiment == QLatin1String("packing"))
    return {QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--eval-every"), QStringLiteral("5"), gen,
            QStringLiteral("2")};
  return {QStringLiteral("--steps"), QStringLiteral("6"), QStringLiteral("--eval-every"), QStringLiteral("3"), gen,
          QStringLiteral("2")};
}

double leak(const nlohmann::json& run) {
  return std::fabs(run["held_out_as_trained_loss"].get<double>() - run["final_held_out_loss"].get<double>());
}

double accumulationGap(const nlohmann::json& run) {
  const auto& c = run["curve"];
  double sum = 0;
  for (size_t i = 0; i < c["train_loss"].size(); ++i)
    sum += std::fabs(c["train_loss"][i].get<double>() - c["full_batch_loss"][i].get<double>());
  return c["train_loss"].empty() ? NAN : sum / double(c["train_loss"].size());
}

// stop-token's 60 steps are about 50 s of CPU, but several minutes of wall time on a loaded machine.
constexpr int kTrainingTimeoutMs = 900000;

} // namespace

class TestTrainAB : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // Every experiment shows its lesson on seeds 0, 1 and 2 with the fast settings below, and its verdict
  // is computed from the runs' own numbers: a and b are recomputed here from each run's JSON (the
  // metric of stop-token is end_of_turn_nll; pad-graded and prompt-graded the final held-out loss;
  // packing |held_out_as_trained_loss - final_held_out_loss|; grad-accum the mean over steps of
  // |train_loss - full_batch_loss|), observed is the prediction applied to them, and it is true.
  // The fast settings are shorter runs of the defaults (docs/cli.md gives the defaults' numbers per
  // seed); each was measured to show the effect on seeds 0-2 (margins in the comments).
  void lessonShowsOnEverySeed_data() {
    QTest::addColumn<QString>("experiment");
    QTest::addColumn<QString>("collatorA");
    QTest::addColumn<QString>("collatorB");
    QTest::addColumn<int>("seed");
    const char* experiments[][3] = {{"stop-token", "buggy-pad-is-eos", "hf-lm"},
                                    {"pad-graded", "buggy-max-length-all-ones", "default"},
                                    {"prompt-graded", "hf-seq2seq-style", "default"},
                                    {"packing", "buggy-no-position-reset", "axolotl-packed"},
                                    {"grad-accum", "default", "default"}};
    for (const auto& e : experiments)
      for (int seed = 0; seed < 3; ++seed)
        QTest::newRow(qPrintable(QStringLiteral("%1@%2").arg(QLatin1String(e[0])).arg(seed)))
            << QString::fromLatin1(e[0]) << QString::fromLatin1(e[1]) << QString::fromLatin1(e[2]) << seed;
  }
  void lessonShowsOnEverySeed() {
    QFETCH(QString, experiment);
    QFETCH(QString, collatorA);
    QFETCH(QString, collatorB);
    QFETCH(int, seed);
    Run r = runMaskscope(QStringList{QStringLiteral("train-ab"), QStringLiteral("--experiment"), experiment,
                                     QStringLiteral("--seed"), QString::number(seed), QStringLiteral("--json")} +
                             fastSettings(experiment),
                         {}, kTrainingTimeoutMs);
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
    const auto& heldB = runB["held_out"]["loss"];
    QVERIFY(heldB.size() >= 2);
    const bool bFalls = heldB.back().get<double>() < heldB.front().get<double>();
    std::string metric;
    double a = 0, b = 0;
    bool expected = false;
    if (experiment == QLatin1String("stop-token")) {
      metric = "end_of_turn_nll";
      a = runA["end_of_turn_nll"].get<double>();
      b = runB["end_of_turn_nll"].get<double>();
      expected = a - b >= 2.0;
    } else if (experiment == QLatin1String("packing")) {
      metric = "packing_leak";
      a = leak(runA);
      b = leak(runB);
      expected = a >= 1e-3 && b < 1e-4;
    } else if (experiment == QLatin1String("grad-accum")) {
      metric = "accumulation_gap";
      a = accumulationGap(runA);
      b = accumulationGap(runB);
      expected = a >= 0.005 && b < 1e-4;
    } else {
      metric = "final_held_out_loss";
      a = runA["final_held_out_loss"].get<double>();
      b = runB["final_held_out_loss"].get<double>();
      expected = a > b;
    }
    QCOMPARE(v["metric"].get<std::string>(), metric);
    QVERIFY2(std::fabs(v["a"].get<double>() - a) <= 1e-12 * std::max(1.0, std::fabs(a)), r.out.constData());
    QVERIFY2(std::fabs(v["b"].get<double>() - b) <= 1e-12 * std::max(1.0, std::fabs(b)), r.out.constData());
    QCOMPARE(v["observed"].get<bool>(), expected && bFalls);
    QVERIFY2(v["observed"].get<bool>(), v["text"].get<std::string>().c_str()); // the lesson, this seed
    QVERIFY2(v["text"].get<std::string>().rfind("As predicted", 0) == 0, v["text"].get<std::string>().c_str());
  }

  // The held-out loss before fine-tuning is step 0 of both runs' curves, beside ln V; each run's
  // end_of_turn_nll and closes_reply are read from its own teacher-forced pass. Computed, not typed: a
  // random init starts near uniform (and other end-of-turn numbers), the pretrained model well below it.
  void heldOutBeforeAndEndOfTurnAreComputed() {
    auto report = [](const QString& init) {
      Run r = runMaskscope({QStringLiteral("train-ab"), QStringLiteral("--experiment"), QStringLiteral("grad-accum"),
                            QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--max-new-tokens"),
                            QStringLiteral("2"), QStringLiteral("--init"), init, QStringLiteral("--json")},
                           {}, kTrainingTimeoutMs);
      if (r.status != 0) qWarning("%s", r.err.constData());
      return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
    };
    const nlohmann::json pretrained = report(QStringLiteral("pretrained")), random = report(QStringLiteral("random"));
    for (const nlohmann::json* j : {&pretrained, &random}) {
      const auto& before = (*j)["held_out_before"];
      QVERIFY2(before.is_object(), j->dump().c_str());
      QCOMPARE((*j)["vocab_size"].get<int>(), 4000); // the demo tokenizer's pieces
      QCOMPARE(before["uniform_loss"].get<double>(), std::log(4000.0));
      for (const auto& run : (*j)["runs"])
        QCOMPARE(before["loss"].get<double>(), run["held_out"]["loss"][0].get<double>());
      QCOMPARE(before["fraction_of_uniform"].get<double>(),
               before["loss"].get<double>() / before["uniform_loss"].get<double>());
      for (const auto& run : (*j)["runs"]) {
        QVERIFY(std::isfinite(run["end_of_turn_nll"].get<double>()) && run["end_of_turn_nll"].get<double>() > 0);
        const double closes = run["closes_reply"].get<double>();
        QVERIFY(closes >= 0 && closes <= 1);
      }
    }
    const double pre = pretrained["held_out_before"]["fraction_of_uniform"].get<double>();
    const double rnd = random["held_out_before"]["fraction_of_uniform"].get<double>();
    qInfo("held-out before fine-tuning: pretrained %.3f, random %.3f of ln V", pre, rnd);
    QVERIFY2(rnd > 0.95 && pre < rnd, qPrintable(QStringLiteral("%1 vs %2").arg(pre).arg(rnd)));
    // builtin:tiny knows enough language to start well below uniform (0.76 ln V measured; the frozen-corpus
    // model of rounds 1-3 started at 0.96): the bar the lab's lessons need (issue 33).
    QVERIFY2(pre < 0.8, qPrintable(QString::number(pre)));
    QVERIFY(pretrained["runs"][0]["end_of_turn_nll"] != random["runs"][0]["end_of_turn_nll"]);
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

  // Exposure bias in every run's JSON, consistent with its replies (totals are their sums, a reply's
  // teacher-forced hits include every token before its first divergence, since the generation read the
  // true prefix until then), printed in the text output, and computed, not typed: other weights (a
  // random init) or another held-out split (other replies) give other numbers.
  void exposureFollowsTheModelAndTheReplies() {
    const QStringList base{QStringLiteral("train-ab"),   QStringLiteral("--experiment"),
                           QStringLiteral("grad-accum"), QStringLiteral("--steps"),
                           QStringLiteral("2"),          QStringLiteral("--max-new-tokens"),
                           QStringLiteral("16")};
    auto exposures = [&](const QStringList& extra) {
      Run r = runMaskscope(base + extra + QStringList{QStringLiteral("--json")}, {}, kTrainingTimeoutMs);
      if (r.status != 0) qWarning("%s", r.err.constData());
      const auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
      std::vector<nlohmann::json> out;
      for (const auto& run : j["runs"]) {
        out.push_back(run["exposure"]);
        out.back()["generations"] = run["generations"].size();
      }
      return out;
    };
    const std::vector<nlohmann::json> pretrained = exposures({});
    QCOMPARE(pretrained.size(), size_t(2));
    for (const nlohmann::json& e : pretrained) {
      QCOMPARE(e["replies"].get<size_t>(), e["generations"].get<size_t>()); // every held-out prompt has its reply
      int64_t n = 0, tf = 0, fr = 0, after = 0, tfAfter = 0, frAfter = 0;
      for (const auto& r : e["per_reply"]) {
        const int64_t d = r["first_divergence"].get<int64_t>(), len = r["reference_tokens"].get<int64_t>();
        QVERIFY(d >= 0 && d <= len);
        QVERIFY2(r["teacher_forced_correct"].get<int64_t>() >= d, e.dump().c_str());
        QCOMPARE(r["after_positions"].get<int64_t>(), std::max<int64_t>(0, len - d - 1));
        n += len;
        tf += r["teacher_forced_correct"].get<int64_t>();
        fr += r["free_running_correct"].get<int64_t>();
        after += r["after_positions"].get<int64_t>();
        tfAfter += r["teacher_forced_after"].get<int64_t>();
        frAfter += r["free_running_after"].get<int64_t>();
      }
      QCOMPARE(e["reference_tokens"].get<int64_t>(), n);
      QCOMPARE(e["teacher_forced_accuracy"].get<double>(), double(tf) / double(n));
      QCOMPARE(e["free_running_accuracy"].get<double>(), double(fr) / double(n));
      QCOMPARE(e["after_divergence"]["positions"].get<int64_t>(), after);
      if (after > 0) {
        QCOMPARE(e["after_divergence"]["teacher_forced_accuracy"].get<double>(), double(tfAfter) / double(after));
        QCOMPARE(e["after_divergence"]["free_running_accuracy"].get<double>(), double(frAfter) / double(after));
      }
    }
    const std::vector<nlohmann::json> random = exposures({QStringLiteral("--init"), QStringLiteral("random")});
    QVERIFY(random[1]["reference_tokens"] == pretrained[1]["reference_tokens"]); // the same replies
    QVERIFY2(random[1]["per_reply"] != pretrained[1]["per_reply"], random[1].dump().c_str());
    const std::vector<nlohmann::json> split = exposures({QStringLiteral("--held-out-every"), QStringLiteral("7")});
    QVERIFY(split[1]["reference_tokens"] != pretrained[1]["reference_tokens"]);
    Run text = runMaskscope(base, {}, kTrainingTimeoutMs);
    QCOMPARE(text.status, 0);
    QCOMPARE(text.out.count("  exposure bias: teacher-forced it picks "), 2);
    QVERIFY(text.out.contains(QByteArray::fromStdString(pretrained[1]["text"].get<std::string>())));
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

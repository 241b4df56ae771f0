// Exposure bias (core/train/ExposureBias.h) without the LibTorch module: each hand-worked comparison of
// tests/data/train/exposure_cases.json, the pooled numbers of a run and its JSON, which move when one
// generated or teacher-forced token does, and the held-out references train-ab plans (the reply and its
// closing token, after the generation prompt), which change with the held-out split.
#include "core/collate/DatasetPipeline.h"
#include "core/data/DatasetReader.h"
#include "core/train/ExposureBias.h"
#include "core/train/TrainPlan.h"

#include <QTest>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace maskscope;
using nlohmann::json;

namespace {

const json& cases() {
  static const json j = [] {
    std::ifstream in(std::string(MASKSCOPE_TEST_DATA_DIR) + "/train/exposure_cases.json");
    std::ostringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
  }();
  return j["cases"];
}

std::vector<int64_t> ids(const json& a) { return a.get<std::vector<int64_t>>(); }

// Every case as one generation of a run, with its reference.
TrainRunResult runOfCases(std::vector<std::vector<int64_t>>& references) {
  TrainRunResult run;
  for (const json& c : cases()) {
    GenerationRecord g;
    g.tokens = ids(c["generated"]);
    g.teacherForced = ids(c["teacher_forced"]);
    run.generations.push_back(g);
    references.push_back(ids(c["reference"]));
  }
  return run;
}

} // namespace

class TestExposureBias : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void compareReply_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases().size(); ++i) QTest::newRow(cases()[i]["name"].get<std::string>().c_str()) << int(i);
  }
  void compareReply() {
    QFETCH(int, index);
    const json& c = cases()[size_t(index)];
    const ReplyExposure r = maskscope::compareReply(ids(c["reference"]), ids(c["generated"]), ids(c["teacher_forced"]));
    const json& e = c["expected"];
    QCOMPARE(r.referenceTokens, int64_t(c["reference"].size()));
    QCOMPARE(r.teacherForcedCorrect, e["teacher_forced_correct"].get<int64_t>());
    QCOMPARE(r.freeRunningCorrect, e["free_running_correct"].get<int64_t>());
    QCOMPARE(r.firstDivergence, e["first_divergence"].get<int64_t>());
    QCOMPARE(r.afterPositions, e["after_positions"].get<int64_t>());
    QCOMPARE(r.teacherForcedAfter, e["teacher_forced_after"].get<int64_t>());
    QCOMPARE(r.freeRunningAfter, e["free_running_after"].get<int64_t>());
  }

  // The run's numbers are sums over its replies (the case without argmaxes left out), the median over
  // their first divergences, and the JSON and sentence quote them.
  void pooledOverReplies() {
    std::vector<std::vector<int64_t>> refs;
    const TrainRunResult run = runOfCases(refs);
    const std::vector<long> rows{10, 11, 12, 13, 14, 15};
    const ExposureBias e = exposureBias(run, refs, rows);
    int64_t n = 0, tf = 0, after = 0, tfAfter = 0, frAfter = 0, reproduced = 0;
    std::vector<int64_t> divergences;
    for (const json& c : cases()) {
      if (c["teacher_forced"].size() != c["reference"].size()) continue;
      const json& x = c["expected"];
      n += int64_t(c["reference"].size());
      tf += x["teacher_forced_correct"].get<int64_t>();
      after += x["after_positions"].get<int64_t>();
      tfAfter += x["teacher_forced_after"].get<int64_t>();
      frAfter += x["free_running_after"].get<int64_t>();
      reproduced += x["first_divergence"].get<int64_t>() == int64_t(c["reference"].size());
      divergences.push_back(x["first_divergence"].get<int64_t>());
    }
    QCOMPARE(e.replies.size(), divergences.size());
    QCOMPARE(e.referenceTokens, n);
    QCOMPARE(e.teacherForcedCorrect, tf);
    QCOMPARE(e.afterPositions, after);
    QCOMPARE(e.reproduced, reproduced);
    std::sort(divergences.begin(), divergences.end());
    QCOMPARE(e.medianFirstDivergence, double(divergences[divergences.size() / 2])); // odd count
    QCOMPARE(e.replies.front().row, 10L);
    const json j = exposureJson(e);
    QCOMPARE(j["replies"].get<size_t>(), divergences.size());
    QCOMPARE(j["teacher_forced_accuracy"].get<double>(), double(tf) / double(n));
    QCOMPARE(j["after_divergence"]["teacher_forced_accuracy"].get<double>(), double(tfAfter) / double(after));
    QCOMPARE(j["after_divergence"]["free_running_accuracy"].get<double>(), double(frAfter) / double(after));
    QCOMPARE(j["per_reply"].size(), divergences.size());
    const std::string text = j["text"].get<std::string>();
    QVERIFY2(text.find("(" + std::to_string(tf) + " of " + std::to_string(n) + ")") != std::string::npos, text.c_str());
  }

  // Computed, not typed: one generated token or one teacher-forced argmax changed moves the numbers.
  void numbersFollowTheModelsTokens() {
    std::vector<std::vector<int64_t>> refs;
    TrainRunResult run = runOfCases(refs);
    const ExposureBias before = exposureBias(run, refs, {});
    run.generations[0].tokens[1] = 99; // "reproduced" now leaves the reply at token 1
    const ExposureBias generated = exposureBias(run, refs, {});
    QVERIFY(generated.freeRunningCorrect < before.freeRunningCorrect);
    QCOMPARE(generated.replies[0].firstDivergence, int64_t(1));
    QVERIFY(generated.afterPositions > before.afterPositions);
    run.generations[1].teacherForced[1] = 6; // "one error compounds": teacher-forced now right at token 1
    const ExposureBias forced = exposureBias(run, refs, {});
    QCOMPARE(forced.teacherForcedCorrect, generated.teacherForcedCorrect + 1);
    QVERIFY(exposureSentence(forced) != exposureSentence(generated));
  }

  // The references train-ab plans: after each generation prompt, the held-out conversation's reply
  // through its closing token (a stop id), the prompt's tokens being the conversation's first ones.
  // Another held-out split gives other replies.
  void plannedReferencesAreTheHeldOutReplies() {
    std::ostringstream err;
    TrainArgs args;
    args.steps = 1;
    const TrainABPlan plan = planTrainAB(args, err);
    const GenerationPlan& gen = plan.request.generation;
    QVERIFY(!gen.prompts.empty());
    QCOMPARE(gen.references.size(), gen.prompts.size());
    const std::vector<Conversation> rows = readDataset(args.dataSpec);
    for (size_t i = 0; i < gen.references.size(); ++i) {
      const std::vector<int64_t>& ref = gen.references[i];
      QVERIFY(!ref.empty());
      QVERIFY(std::find(gen.stopIds.begin(), gen.stopIds.end(), ref.back()) != gen.stopIds.end());
      const std::vector<int32_t> body(ref.begin(), ref.end() - 1);
      const std::string text = plan.pipeline->tokenizer().decode(body);
      const std::string reply = rows[size_t(plan.generationRows[i])].messages.back().content;
      QCOMPARE(QString::fromStdString(text).trimmed(), QString::fromStdString(reply).trimmed());
    }
    args.heldOutEvery = 7;
    const TrainABPlan other = planTrainAB(args, err);
    QVERIFY(other.request.generation.references != gen.references);
  }
};

QTEST_GUILESS_MAIN(TestExposureBias)
#include "tst_exposure_bias.moc"

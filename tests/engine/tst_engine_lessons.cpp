// The masking lessons in the LibTorch module (ForwardModel::lessons) on builtin:tiny and the fixture
// batch tests/data/engine/lessons/batch.json (the article's "What colour is the sky?" -> "Blue." row and
// a padded "Hi" -> "Hello!" row, collated by `maskscope collate`): every figure is checked against the
// batch's own graded positions (core/mask's gradedAt) and shown to follow a mutation of the batch or of
// the weights, so none of them can be typed in.
#include "core/forward/ForwardEngineLoader.h"
#include "core/forward/MaskLessons.h"
#include "core/forward/ModelSpec.h"
#include "core/mask/RowFacts.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace maskscope;
using nlohmann::json;

namespace {

const std::string kData = std::string(MASKSCOPE_TEST_DATA_DIR) + "/engine/lessons";

IntGrid toGrid(const json& rows) {
  IntGrid g(int64_t(rows.size()), int64_t(rows[0].size()));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t c = 0; c < rows[r].size(); ++c) g.at(int64_t(r), int64_t(c)) = rows[r][c].get<int64_t>();
  return g;
}

Batch fixtureBatch() {
  std::ifstream in(kData + "/batch.json");
  std::ostringstream s;
  s << in.rdbuf();
  const json j = json::parse(s.str());
  Batch b;
  b.inputIds = toGrid(j["input_ids"]);
  b.attentionMask = toGrid(j["attention_mask"]);
  b.labels = toGrid(j["labels"]);
  b.padTokenId = j["pad_token_id"].get<int64_t>();
  b.origin = "lessons/batch.json";
  return b;
}

std::shared_ptr<ForwardModel> tiny() {
  static std::shared_ptr<ForwardModel> m = loadForwardModel(kBuiltinTinyModel, "cpu");
  return m;
}

MaskLessons lessonsOn(ForwardModel& model, const Batch& b) {
  return model.lessons(buildLessonsRequest(b, model.info().vocabSize), {});
}

const MaskLessons& fixtureLessons() {
  static const MaskLessons l = lessonsOn(*tiny(), fixtureBatch());
  return l;
}

// An ignored, non-pad position t >= 1 of row r (the first one), -1 when none.
int64_t firstIgnoredReal(const Batch& b, int64_t r) {
  const std::vector<PositionRole> roles = rolesOfRow(b, r);
  for (int64_t t = 1; t < b.inputIds.cols; ++t)
    if (!gradedAt(b, r, t) && roles[size_t(t)] != RolePad) return t;
  return -1;
}

const PositionGradient& at(const MaskLessons& l, int64_t row, int64_t position) {
  for (const PositionGradient& p : l.positions)
    if (p.row == row && p.position == position) return p;
  qFatal("no position %lld of row %lld", (long long)position, (long long)row);
}

} // namespace

class EngineLessonsTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // Every scored position (t >= 1) has its gradient; graded as core/mask counts it; each ignored one
  // (prompt and pad alike) sends exactly 0 into every weight, each graded one a non-zero gradient.
  void ignoredPositionsSendNoGradient() {
    const Batch b = fixtureBatch();
    const MaskLessons& l = fixtureLessons();
    QCOMPARE(int64_t(l.positions.size()), b.inputIds.rows * (b.inputIds.cols - 1));
    const GradientTally t = tallyGradients(l);
    QCOMPARE(t.graded, batchFacts(b).gradedTotal());
    QCOMPARE(t.ignored, int64_t(l.positions.size()) - t.graded);
    QVERIFY(t.ignoredByRole[RolePad] > 0);                                   // pads ...
    QVERIFY(t.ignoredByRole[RolePrompt] + t.ignoredByRole[RoleUnknown] > 0); // ... and the prompt
    for (const PositionGradient& p : l.positions) {
      QCOMPARE(p.graded, gradedAt(b, p.row, p.position));
      if (p.graded) {
        QVERIFY2(p.norm > 0 && p.nonZero > 0, qPrintable(QString::number(p.position)));
      } else {
        QCOMPARE(p.norm, 0.0);
        QCOMPARE(p.nonZero, int64_t(0));
      }
    }
    QVERIFY(l.fullGradientNorm > 0);
    QCOMPARE(l.weights, tiny()->info().parameterCount);
  }

  // One AdamW step from the same weights: every label -100 moves no weight (bit for bit) and has no
  // non-zero gradient entry; the labels as given move weights; decay alone shrinks weights anyway.
  void stepMovesWeightsOnlyWithGradedLabels() {
    const MaskLessons& l = fixtureLessons();
    QCOMPARE(l.allIgnored.graded, int64_t(0));
    QCOMPARE(l.allIgnored.nonZeroGradients, int64_t(0));
    QCOMPARE(l.allIgnored.gradNorm, 0.0);
    QCOMPARE(l.allIgnored.weightsMoved, int64_t(0));
    QCOMPARE(l.asGiven.graded, batchFacts(fixtureBatch()).gradedTotal());
    QVERIFY(l.asGiven.nonZeroGradients > 0);
    QVERIFY(l.asGiven.weightsMoved > l.weights / 2);
    QVERIFY(l.asGiven.weightsMoved <= l.weights);
    QVERIFY(l.weightDecay > 0);
    QVERIFY(l.movedByDecayAlone > 0);
    QVERIFY(lessonsHold(l));
  }

  // The probe is an ignored position before the reply; replacing its token changes the reply's loss.
  void maskedPromptTokenIsRead() {
    const Batch b = fixtureBatch();
    const MaskLessons& l = fixtureLessons();
    QVERIFY(l.probed);
    QVERIFY(!gradedAt(b, l.probe.row, l.probe.position));
    QCOMPARE(l.probeTokenBefore, b.inputIds.at(l.probe.row, l.probe.position));
    QCOMPARE(l.rowGraded, gradedInRow(b, l.probe.row));
    QVERIFY(std::isfinite(l.rowLossBefore) && std::isfinite(l.rowLossAfter));
    QVERIFY2(std::abs(l.rowLossAfter - l.rowLossBefore) > 1e-6,
             qPrintable(QStringLiteral("%1 -> %2").arg(l.rowLossBefore, 0, 'f', 8).arg(l.rowLossAfter, 0, 'f', 8)));
    // The batch's loss as the engine's forward pass computes it (ForwardModel::forward, another path).
    ForwardInputs in{b.inputIds, b.attentionMask, b.positionIds, b.labels};
    const ForwardOutput out = tiny()->forward(in, {}, false, {});
    QVERIFY2(std::abs(out.loss - l.lossBefore) < 1e-5, qPrintable(QString::number(out.loss - l.lossBefore)));
  }

  // Flipping labels (graded <-> -100) changes the loss and the graded count, never a logit.
  void labelFlipLeavesEveryLogit() {
    const Batch b = fixtureBatch();
    const MaskLessons& l = fixtureLessons();
    QVERIFY(l.flipCompared);
    QCOMPARE(l.maxLogitChangeFlip, 0.0);
    int64_t flipped = 0;
    for (int64_t r = 0; r < b.inputIds.rows; ++r) flipped += firstIgnoredReal(b, r) >= 0;
    QVERIFY(flipped > 0);
    const GradientTally t = tallyGradients(l);
    QCOMPARE(l.gradedFlipped, t.ignored - t.ignoredByRole[RolePad]);
    QVERIFY(std::abs(l.lossFlipped - l.lossBefore) > 1e-3);
  }

  // Against tools/model/lessons_reference.py (python-torch autograd and torch.optim.AdamW). Tolerance:
  // 1e-4 relative on gradient norms (3.7 to 28: float32 sums in another order differ near 1e-6; a
  // missing 1/N or a position shifted by one moves them by far more), 1e-4 absolute on losses near 8;
  // counts exact but the weights the as-given step moves (0.1 %: a float32 update may round back).
  void matchesReference() {
    std::ifstream in(kData + "/golden.json");
    std::ostringstream text;
    text << in.rdbuf();
    const json g = json::parse(text.str());
    const MaskLessons& l = fixtureLessons();
    QCOMPARE(l.positions.size(), g["positions"].size());
    for (size_t i = 0; i < l.positions.size(); ++i) {
      const json& p = g["positions"][i];
      QCOMPARE(l.positions[i].row, p["row"].get<int64_t>());
      QCOMPARE(l.positions[i].position, p["position"].get<int64_t>());
      QCOMPARE(l.positions[i].graded, p["graded"].get<bool>());
      const double want = p["norm"].get<double>();
      QVERIFY2(std::abs(l.positions[i].norm - want) <= 1e-4 * std::max(1.0, want),
               qPrintable(QStringLiteral("position %1: %2 vs %3").arg(i).arg(l.positions[i].norm).arg(want)));
    }
    QVERIFY(std::abs(l.fullGradientNorm - g["full_norm"].get<double>()) <= 1e-4 * g["full_norm"].get<double>());
    QCOMPARE(l.allIgnored.weightsMoved, g["all_ignored"]["weights_moved"].get<int64_t>());
    QCOMPARE(l.allIgnored.nonZeroGradients, g["all_ignored"]["nonzero_gradients"].get<int64_t>());
    QCOMPARE(l.asGiven.graded, g["as_given"]["graded"].get<int64_t>());
    QCOMPARE(l.asGiven.nonZeroGradients, g["as_given"]["nonzero_gradients"].get<int64_t>());
    QVERIFY(std::abs(l.asGiven.gradNorm - g["as_given"]["grad_norm"].get<double>()) < 1e-4 * l.asGiven.gradNorm);
    QVERIFY(std::abs(double(l.asGiven.weightsMoved - g["as_given"]["weights_moved"].get<int64_t>())) <=
            1e-3 * double(l.weights));
    QCOMPARE(l.movedByDecayAlone, g["moved_by_decay_alone"].get<int64_t>());
    const json& r = g["still_read"];
    QCOMPARE(l.probe.row, r["row"].get<int64_t>());
    QCOMPARE(l.probe.position, r["position"].get<int64_t>());
    QCOMPARE(l.probeTokenBefore, r["token_before"].get<int64_t>());
    QCOMPARE(l.probe.token, r["token_after"].get<int64_t>());
    QVERIFY(std::abs(l.rowLossBefore - r["row_loss_before"].get<double>()) < 1e-4);
    QVERIFY(std::abs(l.rowLossAfter - r["row_loss_after"].get<double>()) < 1e-4);
    QVERIFY(std::abs(l.lossBefore - r["loss_before"].get<double>()) < 1e-4);
    QCOMPARE(l.gradedFlipped, g["label_flip"]["graded_flipped"].get<int64_t>());
    QVERIFY(std::abs(l.lossFlipped - g["label_flip"]["loss_flipped"].get<double>()) < 1e-4);
  }

  // Mutations: the figures follow the batch and the weights.
  void gradingOnePositionMoreGivesItAGradient() {
    Batch b = fixtureBatch();
    const int64_t t = firstIgnoredReal(b, 0);
    QVERIFY(t >= 1);
    QCOMPARE(at(fixtureLessons(), 0, t).norm, 0.0);
    b.labels.at(0, t) = b.inputIds.at(0, t);
    const MaskLessons l = lessonsOn(*tiny(), b);
    QVERIFY(at(l, 0, t).graded);
    QVERIFY(at(l, 0, t).norm > 0);
    QCOMPARE(tallyGradients(l).graded, tallyGradients(fixtureLessons()).graded + 1);
    QCOMPARE(l.asGiven.graded, fixtureLessons().asGiven.graded + 1);
    QVERIFY(l.asGiven.gradNorm != fixtureLessons().asGiven.gradNorm);
  }

  void otherWeightsGiveOtherLosses() {
    ModelSource src = modelSourceFor(kBuiltinTinyModel);
    for (const MemoryFile& f : src.files)
      if (f.name == "config.json") src.configJson.assign(static_cast<const char*>(f.data), f.size);
    src.files.clear();
    src.randomSeed = 7;
    std::string error;
    auto engine = loadForwardEngine(&error);
    QVERIFY2(engine, error.c_str());
    auto random = engine->loadModel(src, "cpu", {});
    const MaskLessons l = lessonsOn(*random, fixtureBatch());
    QVERIFY(std::abs(l.rowLossBefore - fixtureLessons().rowLossBefore) > 1e-3);
    QVERIFY(std::abs(l.fullGradientNorm - fixtureLessons().fullGradientNorm) > 1e-6);
    QCOMPARE(l.allIgnored.weightsMoved, int64_t(0)); // the lesson holds for any weights
    QVERIFY(lessonsHold(l));
  }

  // A request the engine cannot honour is refused, never shrunk.
  void refusesTooManyPositions() {
    Batch b = fixtureBatch();
    const int64_t T = kMaxLessonPositions; // rows x (T - 1) > the cap
    Batch wide;
    wide.inputIds = IntGrid(2, T, b.inputIds.at(0, 0));
    wide.attentionMask = IntGrid(2, T, 1);
    wide.labels = IntGrid(2, T, kIgnoreIndex);
    QVERIFY_THROWS_EXCEPTION(std::exception, buildLessonsRequest(wide, 4096));
    LessonsRequest req = buildLessonsRequest(b, tiny()->info().vocabSize);
    req.inputs = {wide.inputIds, wide.attentionMask, {}, wide.labels};
    req.roles = IntGrid(2, T, RolePrompt);
    req.flippedLabels = {};
    req.probe = {};
    QVERIFY_THROWS_EXCEPTION(std::exception, tiny()->lessons(req, {}));
  }
};

QTEST_GUILESS_MAIN(EngineLessonsTest)
#include "tst_engine_lessons.moc"

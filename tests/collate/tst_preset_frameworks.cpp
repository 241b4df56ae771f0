// Each collator preset that approximates a framework reproduction (CollatorPreset::framework) is
// built beside that framework spec on the same rows: a preset that states no difference gives the
// same input ids, labels, attention mask and position ids; one that states a difference shows it.
// Rows: builtin:demo conversations through a template with {% generation %} (what TRL needs), or,
// for transformers' collators, the preset's own token ids written as pre-tokenized rows.
#include "core/collate/CollatorSpec.h"
#include "core/commands/BatchInputs.h"
#include "core/mask/GradedPositions.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace maskscope;

namespace {

BatchInputs demoInputs(const std::string& collator) {
  BatchInputs in;
  in.dataSpec = "builtin:demo";
  in.tokenizerSpec = "builtin:demo";
  in.templateSpec = "chatml-assistant-mask";
  in.collatorSpec = collator;
  in.rowBegin = 0;
  in.rowEnd = 4;
  return in;
}

// The real (attended, non-pad) ids of each example of a batch, one pre-tokenized dataset row each (a
// flattened row holds several examples: a new one starts where its position ids restart at 0).
std::string writeTokenRows(const Batch& b, PresetFrameworkRows rows, const QString& dir) {
  const std::string path = QString(dir + QStringLiteral("/rows.jsonl")).toStdString();
  std::ofstream out(path);
  auto write = [&](const nlohmann::json& ids) {
    if (ids.empty()) return;
    nlohmann::json row = {{"input_ids", ids}};
    if (rows == PresetFrameworkRows::TokenIdsWithLabels) row["labels"] = ids;
    out << row.dump() << "\n";
  };
  for (int64_t r = 0; r < b.inputIds.rows; ++r) {
    nlohmann::json ids = nlohmann::json::array();
    for (int64_t t = 0; t < b.inputIds.cols; ++t) {
      if (b.attentionMask.at(r, t) == 0) continue;
      if (t > 0 && !b.positionIds.empty() && b.positionIds.at(r, t) == 0) {
        write(ids);
        ids = nlohmann::json::array();
      }
      ids.push_back(b.inputIds.at(r, t));
    }
    write(ids);
  }
  return path;
}

// Position ids as the model sees them: the grid, or 0..T-1 when the batch gives none.
IntGrid effectivePositions(const Batch& b) {
  if (!b.positionIds.empty()) return b.positionIds;
  IntGrid g(b.inputIds.rows, b.inputIds.cols);
  for (int64_t r = 0; r < g.rows; ++r)
    for (int64_t t = 0; t < g.cols; ++t) g.at(r, t) = t;
  return g;
}

// The grids that differ between two batches ("" when none), e.g. "labels, position_ids".
std::string differingGrids(const Batch& a, const Batch& b) {
  std::string out;
  auto note = [&out](bool same, const char* name) {
    if (!same) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  note(a.inputIds == b.inputIds, "input_ids");
  note(a.labels == b.labels, "labels");
  // As the model reads it: a batch without attention_mask (padding-free) holds all ones.
  note(a.attentionMask == b.attentionMask, "attention_mask");
  note(effectivePositions(a) == effectivePositions(b), "position_ids");
  return out;
}

} // namespace

class TestPresetFrameworks : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void presetAgainstItsFramework_data();
  void presetAgainstItsFramework();
  void statementsAreListed();
  void statementsAreInTheDocs();
};

void TestPresetFrameworks::presetAgainstItsFramework_data() {
  QTest::addColumn<int>("index");
  int rows = 0;
  for (size_t i = 0; i < collatorPresets().size(); ++i)
    if (!collatorPresets()[i].framework.spec.empty()) {
      QTest::newRow(collatorPresets()[i].name.c_str()) << int(i);
      ++rows;
    }
  QVERIFY(rows > 0);
}

void TestPresetFrameworks::presetAgainstItsFramework() {
  QFETCH(int, index);
  const CollatorPreset& p = collatorPresets()[size_t(index)];
  const Batch preset = buildBatch(demoInputs(p.name));
  QVERIFY(preset.inputIds.rows > 0);
  QVERIFY2(gradedInBatch(preset) > 0, "the preset grades nothing on the demo rows: the comparison would be empty");

  QTemporaryDir dir;
  BatchInputs in = demoInputs(p.framework.spec);
  if (p.framework.rows != PresetFrameworkRows::Conversations) {
    in.dataSpec = writeTokenRows(preset, p.framework.rows, dir.path());
    in.templateSpec.clear();
    in.rowBegin = 0;
    in.rowEnd = -1;
  }
  const Batch framework = buildBatch(in);
  QVERIFY(framework.framework != nullptr);

  const std::string differs = differingGrids(preset, framework);
  if (p.framework.differs.empty())
    QVERIFY2(differs.empty(),
             (p.name + " states no difference from " + p.framework.spec + ", but " + differs + " differ").c_str());
  else
    QVERIFY2(!differs.empty(),
             (p.name + " states \"" + p.framework.differs + "\", but the four grids are equal").c_str());
  qInfo("%s vs %s: %s", p.name.c_str(), p.framework.spec.c_str(), differs.empty() ? "equal" : differs.c_str());
}

// --list-presets prints each approximation under its preset, and the JSON carries it.
void TestPresetFrameworks::statementsAreListed() {
  const std::string text = collatorPresetsText();
  const nlohmann::json list = collatorPresetsJson();
  for (size_t i = 0; i < collatorPresets().size(); ++i) {
    const CollatorPreset& p = collatorPresets()[i];
    QCOMPARE(list[i]["framework"].is_null(), p.framework.spec.empty());
    if (p.framework.spec.empty()) continue;
    QVERIFY2(text.find(p.framework.spec) != std::string::npos, p.name.c_str());
    QCOMPARE(list[i]["framework"]["differs"].get<std::string>(), p.framework.differs);
  }
}

// docs/cli.md's table "Presets beside the frameworks they stand for" lists the registry's statements,
// in order, word for word.
void TestPresetFrameworks::statementsAreInTheDocs() {
  std::ifstream in(MASKSCOPE_SOURCE_DIR "/docs/cli.md");
  std::string line;
  while (std::getline(in, line) && line != "| preset | framework spec | compared on | differs |") {
  }
  QVERIFY2(in, "docs/cli.md has no table of the presets' frameworks");
  std::getline(in, line); // | --- | ...
  for (const CollatorPreset& p : collatorPresets()) {
    if (p.framework.spec.empty()) continue;
    QVERIFY2(std::getline(in, line), ("the table ends before " + p.name).c_str());
    const std::string expected = "| `" + p.name + "` | `" + p.framework.spec + "` | " + toString(p.framework.rows) +
                                 " | " + (p.framework.differs.empty() ? "equal" : p.framework.differs) + " |";
    QCOMPARE(line, expected);
  }
  QVERIFY2(!std::getline(in, line) || !line.starts_with("|"), ("a row too many: " + line).c_str());
}

QTEST_GUILESS_MAIN(TestPresetFrameworks)
#include "tst_preset_frameworks.moc"

// The frameworks infrastructure the framework implementations build on (core/frameworks): the
// batch value's JSON (nesting by shape, bool tensors, plain ints), padding with its caps, and the
// conversion to maskscope's Batch (pre-shifted labels, block-causal masks, cu_seq_lens segments),
// and the catalogues: every version row states its framework's behaviour switches, every collator
// has its own implementation; docs/frameworks.md is the catalogue as it is.
#include "core/frameworks/Framework.h"
#include "core/frameworks/FrameworkCatalogueMarkdown.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/FrameworkToBatch.h"
#include "core/util/Error.h"

#include <QTest>

#include <fstream>
#include <set>
#include <sstream>

using namespace maskscope;

namespace {

FrameworkTensor tensor(std::vector<int64_t> shape, std::vector<int64_t> values, TensorDType d = TensorDType::Int64) {
  FrameworkTensor t;
  t.dtype = d;
  t.shape = std::move(shape);
  t.values = std::move(values);
  return t;
}

// [1, T, T] block-causal mask of blocks of the given lengths.
FrameworkTensor blockMask(const std::vector<int64_t>& blocks) {
  int64_t T = 0;
  for (int64_t b : blocks) T += b;
  std::vector<int64_t> v(size_t(T * T), 0);
  int64_t start = 0;
  for (int64_t b : blocks) {
    for (int64_t i = start; i < start + b; ++i)
      for (int64_t j = start; j <= i; ++j) v[size_t(i * T + j)] = 1;
    start += b;
  }
  return tensor({1, T, T}, v, TensorDType::Bool);
}

} // namespace

class TestFrameworkCore : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void jsonFollowsShapes() {
    FrameworkBatch b;
    b.addTensor("input_ids", tensor({2, 2}, {1, 2, 3, 0}));
    b.add1D("cu_seq_lens_q", {0, 2, 3}, TensorDType::Int32);
    b.addTensor("mask", tensor({1, 2}, {1, 0}, TensorDType::Bool));
    b.addInt("max_length_q", 2);
    b.addNone("labels");
    QCOMPARE(QString::fromStdString(b.toJson().dump()),
             QStringLiteral("{\"input_ids\":[[1,2],[3,0]],\"cu_seq_lens_q\":[0,2,3],\"mask\":[[true,false]],"
                            "\"max_length_q\":2,\"labels\":null}"));
    b.addInt("input_ids", 7); // dict assignment keeps the key's position
    QCOMPARE(QString::fromStdString(b.toJson().begin().key()), QStringLiteral("input_ids"));
  }

  void paddingAndCaps() {
    const auto rows = padRows({{1, 2, 3}, {4}}, 0, false, 4);
    QCOMPARE(rows[1], (std::vector<int64_t>{4, 0, 0, 0}));
    QCOMPARE(padRows({{1, 2}, {4}}, 9, true)[1], (std::vector<int64_t>{9, 4}));
    QVERIFY_THROWS_EXCEPTION(Error, paddedWidth({{1}, {2}}, std::nullopt, int64_t(1) << 24)); // 2 x 2^24 cells
  }

  void preShiftedLabelsAreShiftedBack() {
    FrameworkBatch b;
    b.addTensor("tokens", tensor({1, 3}, {1, 2, 3}));
    b.addTensor("labels", tensor({1, 3}, {2, 3, -100})); // torchtune: labels[t] = tokens[t + 1]
    BatchConventions c;
    c.inputIds = "tokens";
    c.labelsPreShifted = true;
    const Batch out = convertFrameworkBatch(b, c, {}, FrameworkFacts{});
    QCOMPARE(out.labels.values, (std::vector<int64_t>{-100, 2, 3}));
  }

  void blockCausalMaskBecomesSegments() {
    FrameworkBatch b;
    b.addTensor("tokens", tensor({1, 5}, {1, 2, 3, 4, 5}));
    b.addTensor("mask", blockMask({2, 3}));
    BatchConventions c;
    c.inputIds = "tokens";
    c.blockMask = "mask";
    const Batch out = convertFrameworkBatch(b, c, {}, FrameworkFacts{});
    QCOMPARE(out.attentionMask.values, (std::vector<int64_t>{1, 1, 2, 2, 2}));
    QCOMPARE(out.segments.size(), size_t(1));
    QCOMPARE(out.segments[0].size(), size_t(2));
  }

  void nonBlockCausalMaskIsRefused() {
    FrameworkBatch b;
    b.addTensor("tokens", tensor({1, 3}, {1, 2, 3}));
    FrameworkTensor m = blockMask({3});
    m.values[size_t(2 * 3 + 1)] = 0; // query 2 no longer sees key 1
    b.addTensor("mask", m);
    BatchConventions c;
    c.inputIds = "tokens";
    c.blockMask = "mask";
    QVERIFY_THROWS_EXCEPTION(Error, convertFrameworkBatch(b, c, {}, FrameworkFacts{}));
  }

  void cuSeqLensGiveSegments() {
    FrameworkBatch b;
    b.addTensor("input_ids", tensor({1, 5}, {1, 2, 3, 4, 5}));
    b.add1D("cu_seq_lens_q", {0, 3, 5}, TensorDType::Int32);
    const Batch out = convertFrameworkBatch(b, BatchConventions{}, {}, FrameworkFacts{});
    QCOMPARE(out.segments[0].size(), size_t(2));
    QCOMPARE(out.segments[0][1].begin, int64_t(3));
    QCOMPARE(out.attentionMask.values, (std::vector<int64_t>{1, 1, 1, 1, 1})); // no attention_mask: all ones
  }

  // One row per framework version: a version row that leaves out a switch its framework's code
  // reads, or a collator without an implementation, fails here instead of silently taking another
  // version's or collator's behaviour.
  void catalogueRowsStateTheirBehaviour_data() {
    QTest::addColumn<QString>("framework");
    QTest::addColumn<QString>("version");
    for (const FrameworkDefinition& d : frameworkDefinitions())
      for (const VersionInfo& v : d.info.versions)
        QTest::newRow((d.info.name + " " + v.version).c_str())
            << QString::fromStdString(d.info.name) << QString::fromStdString(v.version);
  }
  void catalogueRowsStateTheirBehaviour() {
    QFETCH(QString, framework);
    QFETCH(QString, version);
    const FrameworkDefinition& d = frameworkDefinition(framework.toStdString());
    const VersionInfo* row = nullptr;
    for (const VersionInfo& v : d.info.versions)
      if (v.version == version.toStdString()) row = &v;
    QVERIFY(row);
    std::set<std::string> declared, stated;
    for (const BehaviourInfo& b : d.info.behaviours) {
      QVERIFY2(!b.meaning.empty(), b.name.c_str());
      declared.insert(b.name);
    }
    for (const auto& [name, on] : row->behaviour) stated.insert(name);
    QCOMPARE(stated, declared);
    QVERIFY(!row->collators.empty());
    for (const CollatorInfo& c : row->collators) {
      QVERIFY2(bool(c.make), (c.name + " has no implementation").c_str());
      const OrderedJson object = {
          {"framework", framework.toStdString()}, {"version", version.toStdString()}, {"collator", c.name}};
      const FrameworkSpec spec = frameworkSpecFromJson(object, "inline");
      QCOMPARE(spec.collatorInfo, &c);
      QVERIFY2(c.make(spec) != nullptr, c.name.c_str());
      for (const std::string& name : declared) spec.behaves(name); // every declared switch answers
    }
  }

  // A switch the catalogue row does not state is an error, never a silent false.
  void unstatedBehaviourIsRefused() {
    const FrameworkSpec spec = frameworkSpecFromJson(OrderedJson{{"framework", "trl"}}, "inline");
    QVERIFY_THROWS_EXCEPTION(Error, spec.behaves("no_such_switch"));
  }

  // docs/frameworks.md is generated from the catalogue; a catalogue row changed without it fails here.
  void catalogueDocInSync() {
    const std::string path = MASKSCOPE_SOURCE_DIR "/docs/frameworks.md";
    const std::string expected = frameworkCatalogueMarkdown();
    if (qEnvironmentVariableIsSet("MASKSCOPE_REGENERATE")) std::ofstream(path, std::ios::binary) << expected;
    std::ifstream in(path, std::ios::binary);
    QVERIFY2(in.good(), "docs/frameworks.md is missing (run with MASKSCOPE_REGENERATE=1)");
    std::ostringstream text;
    text << in.rdbuf();
    QVERIFY2(text.str() == expected,
             "docs/frameworks.md is stale (run test_framework_core with MASKSCOPE_REGENERATE=1)");
    for (const FrameworkDefinition& def : frameworkDefinitions()) {
      for (const VersionInfo& v : def.info.versions) {
        QVERIFY2(expected.find("| `" + v.version + "` | " + v.readFrom) != std::string::npos, v.version.c_str());
        for (const CollatorInfo& c : v.collators)
          for (const OptionInfo& o : c.options)
            QVERIFY2(expected.find("`" + o.name + "`") != std::string::npos, o.name.c_str());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestFrameworkCore)
#include "tst_framework_core.moc"

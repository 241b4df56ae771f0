// Tool-call rows collated: the tool-call spans of each template family become PositionKind::ToolCall
// (graded by the default preset and by {% generation %} spans that hold them), tool outputs are
// PositionKind::Tool and -100 (tests/data/lint/tools/calls.jsonl: one call, two parallel calls, a
// row that ends with its call). Each position names its function (PositionMeta::toolName): a call by
// its own name, a tool output by its name, its tool_call_id or its place (tests/data/collate/tool-names.jsonl).
#include "core/collate/DatasetPipeline.h"
#include "core/collate/ToolCallSpans.h"
#include "core/data/DatasetReader.h"
#include "core/data/ToolNames.h"
#include "core/mask/RowFacts.h"

#include <QTest>

using namespace maskscope;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/lint/tools/";

struct Counts {
  int64_t toolCall = 0, toolCallGraded = 0, tool = 0, toolGraded = 0;
  std::string callText; // the tool-call positions' text, in order
};

Counts countRow(const DatasetPipeline& p, const Conversation& c) {
  const TokenizedConversation enc = p.encode(c);
  const Batch b = p.collate({enc});
  Counts n;
  for (int64_t t = 0; t < b.length(); ++t) {
    const PositionMeta& m = b.meta[0][size_t(t)];
    const bool g = gradedAt(b, 0, t);
    if (m.kind == PositionKind::ToolCall) {
      ++n.toolCall;
      n.toolCallGraded += g;
      if (size_t(t) < enc.tokens.size())
        n.callText +=
            enc.text.substr(size_t(enc.tokens[size_t(t)].span.begin), size_t(enc.tokens[size_t(t)].span.size()));
    } else if (m.kind == PositionKind::Tool) {
      ++n.tool;
      n.toolGraded += g;
    }
  }
  return n;
}

// The names of the runs of tool-call positions, in order, and of each tool message's positions.
struct Names {
  QStringList calls, outputs;
  bool outputsUniform = true; // every position of a tool message carries the same name
};

Names namesOfRow(const Batch& b) {
  Names n;
  uint16_t previous = 0;
  int lastToolMessage = -1;
  for (int64_t t = 0; t < b.length(); ++t) {
    const PositionMeta& m = b.meta[0][size_t(t)];
    const QString name = QString::fromStdString(toolNameOf(m.toolName));
    if (m.kind == PositionKind::ToolCall && (m.toolName != previous || n.calls.isEmpty())) n.calls << name;
    previous = m.kind == PositionKind::ToolCall ? m.toolName : 0;
    if (m.kind != PositionKind::Tool) continue;
    if (m.messageIndex != lastToolMessage)
      n.outputs << name;
    else if (n.outputs.back() != name)
      n.outputsUniform = false;
    lastToolMessage = m.messageIndex;
  }
  return n;
}

int calls(const Conversation& c) {
  int n = 0;
  for (const Message& m : c.messages) n += int(toolCallNames(m).size());
  return n;
}

int occurrences(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

} // namespace

class TestToolCalls : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void kindsAndMasks_data();
  void kindsAndMasks();
  void toolNames_data();
  void toolNames();
};

void TestToolCalls::kindsAndMasks_data() {
  QTest::addColumn<QString>("templ");
  QTest::addColumn<QString>("collator");
  QTest::addColumn<bool>("callsGraded");
  QTest::newRow("qwen2.5 default") << QStringLiteral("qwen2.5") << QStringLiteral("default") << true;
  QTest::newRow("qwen3 default") << QStringLiteral("qwen3") << QStringLiteral("default") << true;
  QTest::newRow("llama3 default") << QStringLiteral("llama3") << QStringLiteral("default") << true;
  QTest::newRow("mistral-v0.3 default") << QStringLiteral("mistral-v0.3") << QStringLiteral("default") << true;
  QTest::newRow("hermes3 default") << QStringLiteral("hermes3") << QStringLiteral("default") << true;
  // {% generation %} spans decide: Qwen3's variant holds the calls, Qwen2.5's skips tool-call turns
  QTest::newRow("qwen3-assistant-mask trl-assistant-only")
      << QStringLiteral("qwen3-assistant-mask") << QStringLiteral("trl-assistant-only") << true;
  QTest::newRow("qwen2.5-assistant-mask trl-assistant-only")
      << QStringLiteral("qwen2.5-assistant-mask") << QStringLiteral("trl-assistant-only") << false;
}

void TestToolCalls::kindsAndMasks() {
  QFETCH(QString, templ);
  QFETCH(QString, collator);
  QFETCH(bool, callsGraded);
  PipelineSpec spec;
  spec.templateSpec = templ.toStdString();
  spec.collatorSpec = collator.toStdString();
  spec.render.now = "2024-07-26";
  const DatasetPipeline p(spec);
  const std::vector<Conversation> rows = readDataset(kData + "calls.jsonl");
  QCOMPARE(int(rows.size()), 3);
  int checked = 0;
  for (const Conversation& c : rows) {
    if (templ == QStringLiteral("llama3") && calls(c) > 1)
      continue; // Llama 3.1 raises on parallel calls (tool_goldens.json)
    const Counts n = countRow(p, c);
    const std::string where = templ.toStdString() + " row " + std::to_string(c.rowIndex);
    QVERIFY2(n.toolCall > 0, where.c_str());
    QVERIFY2(occurrences(n.callText, "get_weather") == calls(c), (where + ": " + n.callText).c_str());
    QCOMPARE(n.toolCallGraded, callsGraded ? n.toolCall : 0);
    QCOMPARE(n.toolGraded, 0); // tool outputs are never graded
    if (c.messages.back().role != "assistant" || !messageHasToolCalls(c.messages.back())) QVERIFY(n.tool > 0);
    ++checked;
  }
  QVERIFY(checked >= 2);
}

void TestToolCalls::toolNames_data() {
  QTest::addColumn<QString>("templ");
  QTest::addColumn<int>("row");
  QTest::addColumn<QStringList>("calls");
  QTest::addColumn<QStringList>("outputs");
  const QString w = QStringLiteral("get_weather"), t = QStringLiteral("get_time");
  for (const char* templ : {"qwen2.5", "qwen3", "hermes3"}) {
    const QString q = QString::fromLatin1(templ);
    QTest::addRow("%s outputs by place", templ) << q << 0 << QStringList{w, t} << QStringList{w, t};
    QTest::addRow("%s outputs by tool_call_id", templ) << q << 1 << QStringList{t, w} << QStringList{w, t};
    QTest::addRow("%s output by its name", templ) << q << 2 << QStringList{t} << QStringList{t};
  }
  // Mistral writes the calls as one [TOOL_CALLS] list: one span, its names comma-separated.
  QTest::newRow("mistral-v0.3 list by tool_call_id")
      << QStringLiteral("mistral-v0.3") << 1 << QStringList{t + QLatin1Char(',') + w} << QStringList{w, t};
  QTest::newRow("llama3 output by its name") << QStringLiteral("llama3") << 2 << QStringList{t} << QStringList{t};
}

void TestToolCalls::toolNames() {
  QFETCH(QString, templ);
  QFETCH(int, row);
  QFETCH(QStringList, calls);
  QFETCH(QStringList, outputs);
  PipelineSpec spec;
  spec.templateSpec = templ.toStdString();
  spec.render.now = "2024-07-26";
  const DatasetPipeline p(spec);
  const std::vector<Conversation> rows = readDataset(MASKSCOPE_TEST_DATA_DIR "/collate/tool-names.jsonl");
  QVERIFY(row < int(rows.size()));
  const Batch b = p.collate({p.encode(rows[size_t(row)])});
  const Names n = namesOfRow(b);
  QCOMPARE(n.calls, calls);
  QCOMPARE(n.outputs, outputs);
  QVERIFY(n.outputsUniform);
}

QTEST_GUILESS_MAIN(TestToolCalls)
#include "tst_tool_calls.moc"

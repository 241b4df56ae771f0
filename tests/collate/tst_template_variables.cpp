// Template variables and special tokens are decided in one place (core/collate/TemplateVariables.h):
// for the demo and the real Qwen3, Llama-3, Gemma-3 tokenizers (cache), with and without --var, the
// pipeline's variables, the collator's ids, what `render --tokenizer` renders and the ids lint
// gives a dump without any are the same.
#include "core/collate/DatasetPipeline.h"
#include "core/collate/TemplateVariables.h"
#include "core/commands/RenderCommand.h"
#include "core/lint/Lint.h"
#include "core/tokenizer/DefaultPad.h"
#include "tests/TokenizerCacheRequired.h"

#include <QTest>
#include <filesystem>
#include <sstream>

using namespace maskscope;

namespace {

const std::string kData = MASKSCOPE_TEST_DATA_DIR "/collate/";

std::string specOf(const QString& name) {
  return name == QStringLiteral("demo") ? std::string("builtin:demo")
                                        : std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + name.toStdString();
}

std::string variable(const RenderOptions& ro, const char* key) {
  auto it = ro.variables.find(key);
  return it == ro.variables.end() ? std::string("-") : it->second;
}

} // namespace

class TestTemplateVariables : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void oneDecision_data();
  void oneDecision();
  void templateDefaultsBeatTokenizer();
};

// The demo's built-in ChatML says eos_token <|im_end|>, over the sentencepiece model's </s>: the
// collator closes and masks turns with <|im_end|>.
void TestTemplateVariables::templateDefaultsBeatTokenizer() {
  const DatasetPipeline pipeline(PipelineSpec{});
  QCOMPARE(QString::fromStdString(variable(pipeline.renderOptions(), "eos_token")), QStringLiteral("<|im_end|>"));
  QCOMPARE(pipeline.collator().eosId(), std::optional<int64_t>(*pipeline.tokenizer().tokenToId("<|im_end|>")));
  QCOMPARE(QString::fromStdString(pipeline.tokenizer().specialTokens().eosText), QStringLiteral("</s>"));
}

void TestTemplateVariables::oneDecision_data() {
  QTest::addColumn<QString>("tokenizer");
  QTest::addColumn<QString>("var");      // one --var k=v, or empty
  QTest::addColumn<QString>("expected"); // bos|eos|pad|unk as rendered
  // The template (variables.jinja) has no defaults of its own for the demo: the model's specials;
  // --var wins over them.
  QTest::newRow("demo") << QStringLiteral("demo") << QString() << QStringLiteral("<s>|</s>|<pad>|<unk>");
  QTest::newRow("demo --var eos_token=<|im_end|>") << QStringLiteral("demo") << QStringLiteral("eos_token=<|im_end|>")
                                                   << QStringLiteral("<s>|<|im_end|>|<pad>|<unk>");
  QTest::newRow("qwen3") << QStringLiteral("qwen3") << QString() << QStringLiteral("-|<|im_end|>|<|endoftext|>|-");
  QTest::newRow("llama3") << QStringLiteral("llama3") << QString()
                          << QStringLiteral("<|begin_of_text|>|<|end_of_text|>|-|-");
  QTest::newRow("gemma3") << QStringLiteral("gemma3") << QString() << QStringLiteral("<bos>|<end_of_turn>|<pad>|<unk>");
}

void TestTemplateVariables::oneDecision() {
  QFETCH(QString, tokenizer);
  QFETCH(QString, var);
  QFETCH(QString, expected);
  const std::string spec = specOf(tokenizer);
  REQUIRE_TOKENIZER_CACHE(tokenizer == QStringLiteral("demo") ||
                          std::filesystem::exists(spec + "/tokenizer_config.json"));
  std::vector<std::pair<std::string, std::string>> vars;
  if (!var.isEmpty())
    vars.emplace_back(var.section(QLatin1Char('='), 0, 0).toStdString(),
                      var.section(QLatin1Char('='), 1).toStdString());

  // collate (and lint of a dataset, loss, train-ab, the app): the pipeline.
  PipelineSpec ps;
  ps.tokenizerSpec = spec;
  ps.templateSpec = kData + "variables.jinja";
  for (const auto& [k, v] : vars) ps.render.variables[k] = v;
  const DatasetPipeline pipeline(ps);
  const RenderOptions& ro = pipeline.renderOptions();
  const std::string got = variable(ro, "bos_token") + "|" + variable(ro, "eos_token") + "|" +
                          variable(ro, "pad_token") + "|" + variable(ro, "unk_token");
  QCOMPARE(QString::fromStdString(got), expected);
  const SpecialTokenIds sp = pipeline.specialTokens();
  QCOMPARE(pipeline.collator().eosId(), sp.eos ? std::optional<int64_t>(*sp.eos) : std::nullopt);
  QCOMPARE(pipeline.collator().padId(), int64_t(defaultPad(sp).id.value_or(0)));
  if (sp.eos) QCOMPARE(pipeline.tokenizer().idToToken(*sp.eos), variable(ro, "eos_token"));

  // render --tokenizer: the same variables.
  RenderArgs ra;
  ra.templateSpec = kData + "variables.jinja";
  ra.messagesFile = kData + "one-turn.json";
  ra.tokenizerSpec = spec;
  ra.vars = vars;
  std::ostringstream out, err;
  CommandIO io{out, err, false};
  QCOMPARE(runRender(ra, io), 0);
  // The .jinja has no tokenizer_config.json beside it: its defaults come from the tokenizer's folder.
  QCOMPARE(QString::fromStdString(out.str()), expected);

  // lint of a dump without pad/EOS/BOS ids: the collator's.
  LintContext ctx;
  ctx.tokenizer = pipeline.encoder().tokenizerPtr();
  ctx.chatTemplate = pipeline.encoder().templatePtr();
  RenderOptions given;
  for (const auto& [k, v] : vars) given.variables[k] = v;
  ctx.render = templateVariables(given, ctx.chatTemplate.get(), ctx.tokenizer.get());
  QCOMPARE(ctx.render.variables, ro.variables);
  Batch dump;
  dump.inputIds = IntGrid(1, 2, 1);
  dump.labels = dump.inputIds;
  readDump(dump, ctx);
  QCOMPARE(dump.padTokenId, std::optional<int64_t>(pipeline.collator().padId()));
  QCOMPARE(dump.eosTokenId, pipeline.collator().eosId());
  QCOMPARE(dump.bosTokenId, sp.bos ? std::optional<int64_t>(*sp.bos) : std::nullopt);
}

QTEST_GUILESS_MAIN(TestTemplateVariables)
#include "tst_template_variables.moc"

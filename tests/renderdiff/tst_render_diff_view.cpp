// The app's render-diff view, off screen: for every row of every golden case
// (tests/data/renderdiff/cases.json), the view's turns have the golden's verdicts, it marks one
// column per difference, and it paints (a snapshot of the window's view has content).
#include "tests/TokenizerCacheRequired.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/views/renderdiff/RenderDiffCanvas.h"
#include "ui/views/renderdiff/RenderDiffView.h"

#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace maskscope;
using nlohmann::json;

namespace {
std::string dataPath(const std::string& name) { return std::string(MASKSCOPE_TEST_DATA_DIR) + "/renderdiff/" + name; }
std::string cachePath(const std::string& name) { return std::string(MASKSCOPE_TOKENIZER_CACHE) + "/" + name; }
QString q(const std::string& s) { return QString::fromStdString(s); }
} // namespace

class TestRenderDiffView : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    REQUIRE_TOKENIZER_CACHE(std::filesystem::exists(cachePath("qwen3/tokenizer.json")) &&
                            std::filesystem::exists(cachePath("llama3/tokenizer.json")) &&
                            std::filesystem::exists(cachePath("gemma3/tokenizer.json")));
    QVERIFY(scratch_.isValid());
    addsBos_ = scratch_.filePath(QStringLiteral("llama3-adds-bos")).toStdString();
    std::filesystem::create_directories(addsBos_);
    std::filesystem::copy_file(cachePath("llama3/tokenizer.json"), addsBos_ + "/tokenizer.json");
    std::filesystem::copy_file(dataPath("llama3-adds-bos/tokenizer_config.json"), addsBos_ + "/tokenizer_config.json");
  }

  void rowsAsTheGoldens_data() {
    QTest::addColumn<QByteArray>("caseJson");
    QTest::addColumn<int>("row");
    std::ifstream f(dataPath("cases.json"));
    const json cases = json::parse(f);
    for (const json& c : cases)
      for (const json& r : c["expected"]) {
        const int row = r["row"].get<int>();
        QTest::newRow((c["name"].get<std::string>() + " row " + std::to_string(row)).c_str())
            << QByteArray::fromStdString(c.dump()) << row;
      }
  }

  void rowsAsTheGoldens() {
    QFETCH(QByteArray, caseJson);
    QFETCH(int, row);
    const json c = json::parse(caseJson.toStdString());
    Session s;
    std::map<std::string, std::string> vars;
    for (const json& v : c["vars"]) {
      const std::string kv = v.get<std::string>();
      vars[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    s.setTemplateVariables(vars);
    const std::string tok = c["tokenizer"].get<std::string>();
    QVERIFY(s.setPipeline(q(tok == "llama3-adds-bos" ? addsBos_ : cachePath(tok)),
                          q(cachePath(c["template"].get<std::string>())), q(c["collator"].get<std::string>())));
    QVERIFY(s.openDataset(q(dataPath(c["data"].get<std::string>()))));
    RenderDiffView view(&s);
    view.resize(1024, 600);
    view.show();
    s.selectRow(row);
    const json& expected = c["expected"][size_t(row)]["turns"];
    QTRY_COMPARE(view.canvas()->turns().size(), expected.size());
    int differences = 0;
    for (size_t k = 0; k < expected.size(); ++k) {
      const TurnDiff& t = view.canvas()->turns()[k];
      QCOMPARE(t.message, expected[k]["message"].get<int>());
      QCOMPARE(std::string(trainServeVerdictName(t.verdict)), expected[k]["verdict"].get<std::string>());
      differences += int(expected[k]["differences"].size());
    }
    QImage img(1024, 600, QImage::Format_ARGB32);
    QPainter p(&img);
    QVERIFY(view.canvas()->render(p, img.rect()) > 40);
    QCOMPARE(view.canvas()->markedColumns(), differences);
  }

  // A batch dump has no conversations: the view says what it needs instead of drawing a row.
  void batchDumpExplains() {
    Session s;
    QVERIFY(s.openBatchDump(QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/lint/unpacked-chatml.json")));
    RenderDiffView view(&s);
    QTRY_VERIFY(view.canvas()->message().contains(QStringLiteral("open a dataset of conversations")));
    QVERIFY(view.canvas()->turns().empty());
    QCOMPARE(view.canvas()->markedColumns(), 0);
  }

private:
  QTemporaryDir scratch_;
  std::string addsBos_;
};

QTEST_MAIN(TestRenderDiffView)
#include "tst_render_diff_view.moc"

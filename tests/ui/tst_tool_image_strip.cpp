// The token strip on the conversations of issue 35, through the real widget off screen: a tool call's
// function name painted on a header chip before its span (read without hovering), and a run of image
// placeholder tokens folded into one chip that unfolds on a click and folds again from its header.
#include "../TokenizerCacheRequired.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/Palette.h"

#include <QFileInfo>
#include <QImage>
#include <QScrollBar>
#include <QTest>

using namespace maskscope;

namespace {

QString data(const QString& name) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/") + name; }
QString qwen3() { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3"); }

void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_SCREENSHOT_DIR");
  if (!dir.isEmpty()) w.grab().save(QStringLiteral("%1/strip-%2.png").arg(dir, name));
}

// Pixels of the rectangle (in the viewport) that differ from the strip's base colour.
int paintedPixels(TokenStripView* strip, QRect r) {
  const QImage image = strip->viewport()->grab(r).toImage();
  const QRgb base = strip->palette().base().color().rgb();
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) n += image.pixel(x, y) != base ? 1 : 0;
  return n;
}

const StripRun* firstRun(TokenStripView* strip, StripRun::Kind kind) {
  for (const StripRun& run : strip->runs())
    if (run.kind == kind) return &run;
  return nullptr;
}

} // namespace

class TestToolImageStrip : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    palette::setTheme(palette::Theme::Light);
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(qwen3() + QStringLiteral("/tokenizer.json")));
  }

  // Qwen2.5's template over a get_weather call: the span's header chip says "get_weather" on screen,
  // left of (or above) the span's first chip, painted; the tool's output gets one naming it too.
  void toolCallNamedWithoutHovering() {
    Session session;
    QVERIFY(session.setTokenizer(qwen3()));
    QVERIFY(session.setTemplate(QStringLiteral("qwen2.5")));
    QVERIFY(session.openDataset(data(QStringLiteral("tool-call-rows.jsonl"))));
    MainWindow w(&session);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    TokenStripView* strip = w.tokenStrip();
    QTRY_VERIFY(strip->positionCount() > 0);
    const StripRun* call = firstRun(strip, StripRun::Kind::ToolCall);
    QVERIFY(call);
    QCOMPARE(call->name, QStringLiteral("get_weather"));
    QVERIFY(strip->runTitle(*call).contains(QStringLiteral("get_weather")));
    strip->setSelectedPosition(call->begin); // scrolls the span into view
    QCoreApplication::processEvents();
    const QRect header = strip->runHeaderRect(call->begin), first = strip->chipRect(call->begin);
    QVERIFY(!header.isEmpty());
    QVERIFY2(strip->viewport()->rect().contains(header),
             qPrintable(QStringLiteral("header at %1,%2 outside the viewport").arg(header.x()).arg(header.y())));
    QVERIFY(header.top() < first.top() || (header.top() == first.top() && header.right() < first.left()));
    // Wide enough for its words: the name is not elided away.
    QFont bold = strip->font();
    bold.setBold(true);
    QVERIFY(header.width() >= QFontMetrics(bold).horizontalAdvance(QStringLiteral("get_weather")));
    QVERIFY2(paintedPixels(strip, header) > header.width() * header.height() / 2, "header chip not painted");
    const StripRun* output = firstRun(strip, StripRun::Kind::ToolOutput);
    QVERIFY(output);
    QCOMPARE(output->name, QStringLiteral("get_weather"));
    QVERIFY(output->begin >= call->end);
    saveScreenshot(w, QStringLiteral("tool-call"));
  }

  // Qwen2-VL's 448 x 448 image: 256 <|image_pad|> positions are one chip ("×256"); a click unfolds
  // them into 256 chips, a click on the run's header folds them back.
  void imageRunFoldsAndUnfolds() {
    Session session;
    QVERIFY(session.setTokenizer(qwen3()));
    QVERIFY(session.setTemplate(QStringLiteral("qwen2-vl")));
    QVERIFY(session.openDataset(data(QStringLiteral("image-rows.jsonl"))));
    MainWindow w(&session);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    TokenStripView* strip = w.tokenStrip();
    QTRY_VERIFY(strip->positionCount() > 0);
    const StripRun* image = firstRun(strip, StripRun::Kind::Image);
    QVERIFY(image);
    const int begin = image->begin, end = image->end;
    QCOMPARE(end - begin, 256);
    QVERIFY(strip->isFolded(begin) && strip->isFolded(end - 1));
    QCOMPARE(strip->chipRect(end - 1), strip->chipRect(begin)); // one chip
    QVERIFY2(strip->runTitle(*image).contains(QStringLiteral("<|image_pad|> \u00d7256")),
             qPrintable(strip->runTitle(*image)));
    QVERIFY(strip->runHeaderRect(begin).isEmpty());
    // Every position fits the viewport's lines but a few: the row reads in one screen.
    strip->setSelectedPosition(begin);
    QCoreApplication::processEvents();
    saveScreenshot(w, QStringLiteral("image-folded"));
    const QRect chip = strip->chipRect(begin);
    QVERIFY(strip->viewport()->rect().contains(chip));
    QTest::mouseClick(strip->viewport(), Qt::LeftButton, {}, chip.center());
    QTRY_VERIFY(!strip->isFolded(begin));
    QVERIFY(strip->chipRect(begin + 1) != strip->chipRect(begin));
    QCOMPARE(session.selectedPosition(), begin);
    QRect header = strip->runHeaderRect(begin);
    if (!strip->viewport()->rect().contains(header)) { // the header may open the line above
      strip->verticalScrollBar()->setValue(strip->verticalScrollBar()->value() + header.top() - 4);
      header = strip->runHeaderRect(begin);
    }
    QVERIFY(!header.isEmpty());
    QVERIFY(strip->viewport()->rect().contains(header));
    saveScreenshot(w, QStringLiteral("image-unfolded"));
    QTest::mouseClick(strip->viewport(), Qt::LeftButton, {}, header.center());
    QTRY_VERIFY(strip->isFolded(begin));
    QCOMPARE(strip->chipRect(end - 1), strip->chipRect(begin));
  }
};

QTEST_MAIN(TestToolImageStrip)
#include "tst_tool_image_strip.moc"

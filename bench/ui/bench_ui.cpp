// UI benchmarks (QBENCHMARK). Figures are reported against a reference measured in the same run:
// filling an image of the same size (the cheapest possible "paint"). Run off screen:
//   QT_QPA_PLATFORM=offscreen ./bench_ui
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/GridRenderer.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/tokens/TokenStripView.h"

#include <QElapsedTimer>
#include <QFile>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

using namespace maskscope;

namespace {
GridSource packedSource(int64_t n) {
  // Two packed examples and a padded tail: every cell state occurs.
  GridSource s;
  s.maskSegments.resize(size_t(n));
  for (int64_t t = 0; t < n; ++t) s.maskSegments[size_t(t)] = t < n / 2 ? 1 : t < n * 7 / 8 ? 2 : 0;
  return s;
}

QString writeLongDump(const QTemporaryDir& dir, int length) {
  QStringList ids, mask;
  for (int t = 0; t < length; ++t) {
    ids << QString::number(10 + t % 200);
    mask << QStringLiteral("1");
  }
  const QString path = dir.filePath(QStringLiteral("long.json"));
  QFile f(path);
  f.open(QIODevice::WriteOnly);
  f.write(QStringLiteral("{\"input_ids\": [[%1]], \"attention_mask\": [[%2]], \"labels\": [[%1]]}")
              .arg(ids.join(QLatin1Char(',')), mask.join(QLatin1Char(',')))
              .toUtf8());
  return path;
}
} // namespace

class BenchUi : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void referenceFill() {
    QImage img(800, 800, QImage::Format_RGB32);
    QBENCHMARK { img.fill(Qt::white); }
  }
  void gridOverview_data() {
    QTest::addColumn<int>("tokens");
    QTest::newRow("2k") << 2048;
    QTest::newRow("8k") << 8192;
  }
  void gridOverview() {
    // The whole grid at 800 x 800 pixels (the fitted view; cached after the first paint).
    QFETCH(int, tokens);
    const GridSource s = packedSource(tokens);
    QBENCHMARK { renderGridRegion(s, QRect(0, 0, tokens, tokens), QSize(800, 800)); }
  }
  void gridZoomed_data() {
    QTest::addColumn<int>("tokens");
    QTest::newRow("2k") << 2048;
    QTest::newRow("8k") << 8192;
  }
  void gridZoomed() {
    // Zoomed to 200 x 200 cells around the packing boundary: rendered 1:1 and scaled.
    QFETCH(int, tokens);
    const GridSource s = packedSource(tokens);
    QBENCHMARK { renderGridRegion(s, QRect(tokens / 2 - 100, tokens / 2 - 100, 200, 200), QSize(200, 200)); }
  }
  void stripPaint8k() {
    QTemporaryDir dir;
    Session session;
    QVERIFY(session.openBatchDump(writeLongDump(dir, 8192)));
    TokenStripView strip(&session);
    strip.resize(1200, 700);
    QCOMPARE(strip.positionCount(), 8192);
    QImage img(1200, 700, QImage::Format_ARGB32_Premultiplied);
    QBENCHMARK {
      QPainter p(&img);
      strip.renderTo(p, img.rect(), 4000 * 10);
    }
  }
  void startup() {
    // Session on the demo + main window shown: what a user waits for.
    QBENCHMARK_ONCE {
      Session session;
      QVERIFY(session.openDataset(QStringLiteral("builtin:demo")));
      MainWindow w(&session);
      w.show();
      QCoreApplication::processEvents();
    }
  }
  void summary() {
    // Ratios against the reference fill, printed for the report.
    QElapsedTimer t;
    QImage img(800, 800, QImage::Format_RGB32);
    t.start();
    for (int i = 0; i < 50; ++i) img.fill(Qt::white);
    const double fill = double(t.nsecsElapsed()) / 50;
    for (int n : {2048, 8192}) {
      const GridSource s = packedSource(n);
      t.restart();
      for (int i = 0; i < 5; ++i) renderGridRegion(s, QRect(0, 0, n, n), QSize(800, 800));
      const double grid = double(t.nsecsElapsed()) / 5;
      qInfo("grid overview %d tokens: %.2f ms = %.1f x an 800x800 fill (%.3f ms)", n, grid / 1e6, grid / fill,
            fill / 1e6);
    }
    t.restart();
    Session session;
    session.openDataset(QStringLiteral("builtin:demo"));
    MainWindow w(&session);
    w.show();
    QCoreApplication::processEvents();
    qInfo("start-up on the demo (session + window shown): %.1f ms", double(t.nsecsElapsed()) / 1e6);
    // UI-thread time of a row switch (lint deferred to a worker) against the synchronous batch
    // lint it used to include, both on the demo with a packed collator, in this run.
    session.setCollator(QStringLiteral("axolotl-packed"));
    QCoreApplication::processEvents();
    const int rows = session.rowCount();
    t.restart();
    for (int i = 0; i < 20; ++i) session.selectRow(i % rows);
    const double switchNs = double(t.nsecsElapsed()) / 20;
    t.restart();
    for (int i = 0; i < 20; ++i) w.lintView()->lintCurrentBatch();
    const double lintNs = double(t.nsecsElapsed()) / 20;
    qInfo("row switch on the UI thread: %.2f ms; the synchronous batch lint it no longer runs: %.2f ms (switch = %.2f "
          "x lint)",
          switchNs / 1e6, lintNs / 1e6, switchNs / lintNs);
  }
};

QTEST_MAIN(BenchUi)
#include "bench_ui.moc"

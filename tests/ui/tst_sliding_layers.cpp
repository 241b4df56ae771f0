// The views follow the loaded model's layers: the layer picker says which layers slide, a sliding
// layer's grid shows the band (its own cell class: tooltip, legend, pixels in both themes), the
// softmax view soft-caps example scores and blocks keys outside the window; and a forward pass
// reports progress layer by layer with a Cancel that stops it between layers (a layer picked mid-pass
// runs next). The window box follows the model; a config.json alone gives the layout (no weights). Off screen, with the
// tiny engine test models (tests/data/engine) and builtin:tiny, through the LibTorch module.
#include "core/forward/ForwardEngineLoader.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/attention/LayerSpinBox.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/widgets/Palette.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QMutex>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <QTimer>
#include <cmath>

using namespace maskscope;

namespace {

QString dataFile(const char* relative) {
  return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/") + QString::fromLatin1(relative);
}

bool engineAvailable() {
  std::string error;
  return loadForwardEngine(&error) != nullptr;
}

// A window on a batch dump whose ids fit the tiny engine models (vocabulary 64), with `model` loaded.
struct Loaded {
  Session session;
  MainWindow window{&session};
  bool load(const QString& model) {
    if (!session.openBatchDump(dataFile("ui/sliding_batch.json"))) return false;
    session.setModelSpec(model);
    return QTest::qWaitFor([this] { return window.modelRunner()->hasModel(); }, 20000);
  }
  LayerSpinBox* picker() const { return window.findChild<LayerSpinBox*>(QStringLiteral("layerPicker")); }
};

int64_t countClass(const AttentionGridCanvas& g, CellClass c) {
  int64_t n = 0;
  for (int q = 0; q < int(g.gridSize()); ++q)
    for (int k = 0; k < int(g.gridSize()); ++k) n += g.cellClass(q, k) == c;
  return n;
}

int countNear(const QImage& img, const QColor& colour, int tolerance = 6) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QRgb c = img.pixel(x, y);
      n += std::abs(qRed(c) - colour.red()) <= tolerance && std::abs(qGreen(c) - colour.green()) <= tolerance &&
           std::abs(qBlue(c) - colour.blue()) <= tolerance;
    }
  return n;
}

} // namespace

class TestSlidingLayers : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase() {
    if (!engineAvailable()) QSKIP("the LibTorch module (libmaskscope_torch.so) is not built here");
  }
  void cleanup() { palette::setTheme(palette::Theme::Light); }

  // Which layers slide, as the engine's layerAttention says for each architecture (tst_engine checks those).
  void pickerSaysWhichLayersSlide_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("texts"); // the picker's text of each layer
    QTest::addColumn<QString>("first");     // describe(0)
    QTest::newRow("gemma2: alternation, soft-capped")
        << QStringLiteral("engine/gemma2_f32")
        << QStringList{QStringLiteral("0 \u00b7 sliding"), QStringLiteral("1 \u00b7 full")}
        << QStringLiteral("layer 0 \u2014 sliding, window 4, soft-capped at 5");
    QTest::newRow("mistral: every layer slides")
        << QStringLiteral("engine/mistral_f32")
        << QStringList{QStringLiteral("0 \u00b7 sliding"), QStringLiteral("1 \u00b7 sliding")}
        << QStringLiteral("layer 0 \u2014 sliding, window 4");
    QTest::newRow("llama: full attention")
        << QStringLiteral("engine/llama_f32")
        << QStringList{QStringLiteral("0 \u00b7 full"), QStringLiteral("1 \u00b7 full")}
        << QStringLiteral("layer 0 \u2014 full");
  }
  void pickerSaysWhichLayersSlide() {
    QFETCH(QString, model);
    QFETCH(QStringList, texts);
    QFETCH(QString, first);
    Loaded w;
    QVERIFY(w.load(dataFile(model.toLatin1().constData())));
    LayerSpinBox* picker = w.picker();
    QVERIFY(picker);
    QCOMPARE(picker->maximum(), int(texts.size()) - 1);
    for (int l = 0; l < int(texts.size()); ++l) {
      picker->setValue(l);
      QCOMPARE(picker->text(), texts[l]);
    }
    QCOMPARE(picker->describe(0), first);
    QVERIFY(picker->toolTip().contains(QStringLiteral("2 layers")));
  }

  // gemma2_f32: layer 0 slides with window 4, layer 1 is full. Row 0 has 12 real tokens.
  void slidingLayerGridShowsTheBand_data() {
    QTest::addColumn<QString>("theme");
    QTest::newRow("light") << QStringLiteral("light");
    QTest::newRow("dark") << QStringLiteral("dark");
  }
  void slidingLayerGridShowsTheBand() {
    QFETCH(QString, theme);
    Loaded w;
    w.window.setDarkTheme(theme == QLatin1String("dark"));
    QVERIFY(w.load(dataFile("engine/gemma2_f32")));
    w.picker()->setValue(0);
    const AttentionGridCanvas& g = *w.window.attentionGrid();
    QCOMPARE(g.window(), int64_t(4));
    const int n = int(g.gridSize());
    QCOMPARE(n, 12);
    // Every real query sees exactly min(q + 1, 4) keys; the older ones are "outside the window".
    for (int q = 0; q < n; ++q) {
      int seen = 0;
      for (int k = 0; k < n; ++k) seen += g.cellState(q, k) == CellState::Allowed;
      QCOMPARE(seen, std::min(q + 1, 4));
    }
    QCOMPARE(countClass(g, CellClass::OutsideWindow), int64_t((n - 4) * (n - 3) / 2));
    QVERIFY(g.describeCell(10, 2).contains(QStringLiteral("sliding-window layer")));
    QVERIFY(g.describeCell(10, 2).contains(QStringLiteral("8 positions back")));
    QVERIFY(!g.describeCell(10, 8).contains(QStringLiteral("sliding")));
    // Its legend entry and its colour on screen.
    const auto* legend = w.window.findChild<QLabel*>(QStringLiteral("legend:outside the window"));
    QVERIFY(legend);
    QImage img(600, 600, QImage::Format_RGB32);
    QPainter p(&img);
    g.render(p, img.rect());
    p.end();
    const QColor band = palette::cellClassColour(CellClass::OutsideWindow);
    QVERIFY(countNear(img, band) > 2000);
    QVERIFY(band != palette::cellClassColour(CellClass::Future) &&
            band != palette::cellClassColour(CellClass::Padding));
    // The full layer has no band.
    w.picker()->setValue(1);
    QCOMPARE(g.window(), int64_t(0));
    QCOMPARE(countClass(g, CellClass::OutsideWindow), int64_t(0));
    QImage full(600, 600, QImage::Format_RGB32);
    QPainter pf(&full);
    g.render(pf, full.rect());
    pf.end();
    QCOMPARE(countNear(full, band), 0);
  }

  // With a model the window box shows the picked layer's window, read-only; the user's own window is
  // set aside (the status bar says so), not replaced: it draws again once no model is loaded.
  void windowBoxFollowsTheModel() {
    Session session;
    MainWindow window(&session);
    QSpinBox* box = window.attentionView()->windowBox();
    QVERIFY(session.openBatchDump(dataFile("ui/sliding_batch.json")));
    box->setValue(6);
    QCOMPARE(window.attentionGrid()->window(), int64_t(6));
    session.setModelSpec(dataFile("engine/gemma2_f32"));
    QTRY_VERIFY_WITH_TIMEOUT(window.modelRunner()->hasModel(), 20000);
    LayerSpinBox* picker = window.findChild<LayerSpinBox*>(QStringLiteral("layerPicker"));
    picker->setValue(0);
    QTRY_COMPARE(window.attentionGrid()->window(), int64_t(4));
    QVERIFY(!box->isEnabled());
    QCOMPARE(box->value(), 4);
    QVERIFY(box->toolTip().contains(QStringLiteral("model decides")));
    QVERIFY(box->toolTip().contains(QStringLiteral("Your window of 6 keys")));
    QCOMPARE(window.softmaxView()->current().states.size(), size_t(window.attentionGrid()->gridSize()));
    picker->setValue(1);
    QCOMPARE(box->value(), 0); // layer 1 is full
    QCOMPARE(window.attentionGrid()->window(), int64_t(0));
    QCOMPARE(window.attentionView()->userWindow(), int64_t(6));
    // No model any more (the layout cleared, as a failed load does): the user's window is back.
    picker->setModel(ModelInfo{});
    QVERIFY(box->isEnabled());
    QCOMPARE(box->value(), 6);
    QCOMPARE(window.attentionGrid()->window(), int64_t(6));
  }

  // Model > Layer layout from config.json: the picker, the grid's band and the softmax view's
  // soft-cap follow a config's layers without weights (the engine's parser; tst_engine checks the
  // layouts); the model's probabilities stay unavailable.
  void configLayoutFillsThePicker_data() {
    QTest::addColumn<QString>("config");    // under tests/data
    QTest::addColumn<QStringList>("texts"); // the picker's text of layers 0, 5 (or the last below 5) and the last
    QTest::addColumn<int>("band");          // layer 0's window
    QTest::addColumn<double>("softcap");
    QTest::newRow("gemma2 fixture's config.json: window 4, soft-capped at 5")
        << QStringLiteral("engine/gemma2_f32/config.json")
        << QStringList{QStringLiteral("0 \u00b7 sliding"), QStringLiteral("1 \u00b7 full"),
                       QStringLiteral("1 \u00b7 full")}
        << 4 << 5.0;
    QTest::newRow("gemma3 1B config: pattern 6")
        << QStringLiteral("engine/configs/gemma3_1b_config.json")
        << QStringList{QStringLiteral("0 \u00b7 sliding"), QStringLiteral("5 \u00b7 full"),
                       QStringLiteral("25 \u00b7 sliding")}
        << 512 << 0.0;
    QTest::newRow("a model folder: its config.json")
        << QStringLiteral("engine/mistral_f32")
        << QStringList{QStringLiteral("0 \u00b7 sliding"), QStringLiteral("1 \u00b7 sliding"),
                       QStringLiteral("1 \u00b7 sliding")}
        << 4 << 0.0;
  }
  void configLayoutFillsThePicker() {
    QFETCH(QString, config);
    QFETCH(QStringList, texts);
    QFETCH(int, band);
    QFETCH(double, softcap);
    Session session;
    MainWindow window(&session);
    QVERIFY(session.openBatchDump(dataFile("ui/sliding_batch.json")));
    window.attentionView()->windowBox()->setValue(2); // the user's, set aside while the layout shows
    QString error;
    QVERIFY2(window.loadLayerLayout(dataFile(config.toLatin1().constData()), &error), qPrintable(error));
    LayerSpinBox* picker = window.attentionView()->layerPicker();
    QCOMPARE(picker->value(), 0);
    QCOMPARE(picker->text(), texts[0]);
    const AttentionGridCanvas& g = *window.attentionGrid();
    QCOMPARE(g.window(), int64_t(band));
    QCOMPARE(countClass(g, CellClass::OutsideWindow) > 0, band < int(g.gridSize()));
    QCOMPARE(window.softmaxView()->current().softcap, softcap); // example scores get the config's cap
    QVERIFY(!window.attentionView()->windowBox()->isEnabled());
    picker->setValue(5); // clamped to the last layer of a smaller model
    QCOMPARE(picker->text(), texts[1]);
    picker->setValue(picker->maximum());
    QCOMPARE(picker->text(), texts[2]);
    QCOMPARE(window.layerLayoutFile(), dataFile(config.toLatin1().constData()));
    // No weights: the model's probabilities are refused, not faked.
    QVERIFY(!window.modelRunner()->hasModel());
    window.attentionView()->modeBox()->setCurrentIndex(1);
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Load a model")));
    QVERIFY(!window.attentionGrid()->showsProbabilities());
  }

  // An unusable config is refused in a message box that names the file; the picker keeps what it had.
  void configLayoutErrorsNameTheFile_data() {
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown model_type") << QStringLiteral("engine/configs/unknown_model_type.json")
                                        << QStringLiteral("'gpt2' is not supported");
    QTest::newRow("bad JSON") << QStringLiteral("engine/configs/truncated.json") << QString();
    QTest::newRow("a folder without config.json") << QStringLiteral("engine/configs") << QStringLiteral("config.json");
  }
  void configLayoutErrorsNameTheFile() {
    QFETCH(QString, config);
    QFETCH(QString, message);
    Session session;
    MainWindow window(&session);
    QString shown;
    QTimer::singleShot(0, &window, [&] { // the box is modal: read and close it from the event loop
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        shown = box->text();
        box->accept();
      }
    });
    window.openLayerLayout(dataFile(config.toLatin1().constData()));
    QVERIFY2(shown.contains(config), qPrintable(shown));
    if (!message.isEmpty()) QVERIFY2(shown.contains(message), qPrintable(shown));
    QVERIFY(!window.attentionView()->layerPicker()->hasLayout());
    QVERIFY(window.attentionView()->windowBox()->isEnabled());
    QVERIFY(window.layerLayoutFile().isEmpty());
  }

  // With a model loaded its layers are shown: a config's layout is refused, never swapped in.
  void configLayoutRefusedWhileAModelIsLoaded() {
    Loaded w;
    QVERIFY(w.load(dataFile("engine/llama_f32")));
    QString error;
    QVERIFY(!w.window.loadLayerLayout(dataFile("engine/gemma2_f32/config.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("a model is loaded")), qPrintable(error));
    QCOMPARE(w.picker()->text(), QStringLiteral("0 \u00b7 full"));
  }

  // The softmax view of a sliding, soft-capped layer: keys outside the window are blocked, example
  // scores are capped (c = cap tanh(x / cap)) before the mask.
  void softmaxSoftCapsAndBlocksOutsideTheWindow() {
    Session s;
    QVERIFY(s.openBatchDump(dataFile("ui/sliding_batch.json")));
    s.selectPosition(9);
    SoftmaxView v(&s);
    v.showSelectedRow();
    QCOMPARE(v.query(), 9);
    QVERIFY(v.current().capped.empty());
    QCOMPARE(v.current().allowed, 10);
    v.setLayerAttention(4, 5.0, QStringLiteral("layer 0"));
    const SoftmaxRow& r = v.current();
    QCOMPARE(r.allowed, 4);
    QCOMPARE(r.states[5], CellState::OutsideWindow);
    QCOMPARE(r.states[6], CellState::Allowed);
    QCOMPARE(r.capped.size(), r.scores.size());
    for (size_t k = 0; k < r.scores.size(); ++k)
      QVERIFY(std::abs(r.capped[k] - 5.0 * std::tanh(r.scores[k] / 5.0)) < 1e-12);
    QCOMPARE(r.weights[5], 0.0);
    double sum = 0;
    for (double w : r.weights) sum += w;
    QVERIFY(std::abs(sum - 1.0) < 1e-12);
  }

  // A forward pass fills the status bar's progress bar layer by layer and hides it when done; Cancel
  // stops the next one after the layer it is in (the worker waits at layer 1 until Cancel is clicked).
  void progressAndCancelBetweenLayers() {
    Session session;
    MainWindow window(&session);
    QVERIFY(session.openDataset(QStringLiteral("builtin:demo")));
    ModelRunner* runner = window.modelRunner();
    QMutex mutex;
    QStringList texts;
    QSemaphore atLayer, clicked;
    std::atomic<bool> hold{false};
    connect(
        runner, &ModelRunner::progress, runner,
        [&](double, const QString& t) {
          {
            QMutexLocker lock(&mutex);
            texts << t;
          }
          if (hold.load() && t.contains(QStringLiteral(": layer 1/"))) {
            hold = false;
            atLayer.release();
            clicked.tryAcquire(1, 20000); // the worker waits here for the click
          }
        },
        Qt::DirectConnection);
    QSignalSpy finished(runner, &ModelRunner::finished), failed(runner, &ModelRunner::failed);
    session.setModelSpec(QStringLiteral("builtin:tiny")); // loads, then runs the batch
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const int layers = runner->layers();
    QVERIFY(layers >= 2);
    {
      QMutexLocker lock(&mutex);
      for (int l = 1; l <= layers; ++l)
        QVERIFY2(texts.filter(QStringLiteral(": layer %1/%2").arg(l).arg(layers)).size() >= 1,
                 qPrintable(texts.join(QLatin1Char('\n'))));
      texts.clear();
    }
    QTRY_VERIFY(window.runProgressBar()->isHidden());
    QVERIFY(window.cancelRunButton()->isHidden());

    hold = true;
    QVERIFY(!runner->busy());
    runner->run(session.batch(), 0, 0);
    QVERIFY(runner->busy());
    QVERIFY(!window.cancelRunButton()->isHidden());
    QTRY_VERIFY_WITH_TIMEOUT(atLayer.available() > 0, 20000); // (no side effect: QTRY re-evaluates)
    atLayer.acquire();
    QTRY_VERIFY(window.runProgressBar()->value() > 0); // the layer's progress reached the bar
    window.cancelRunButton()->click();
    clicked.release();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.at(0).at(0).toString(), QStringLiteral("cancelled"));
    QCOMPARE(finished.count(), 1); // the cancelled pass never finished
    {
      QMutexLocker lock(&mutex);
      QVERIFY2(texts.filter(QStringLiteral(": layer 2/")).isEmpty(), qPrintable(texts.join(QLatin1Char('\n'))));
    }
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("cancelled")));
    QVERIFY(window.runProgressBar()->isHidden());
    QVERIFY(runner->hasModel()); // the model stays loaded

    // A layer picked while a pass runs is not lost: its pass runs next.
    QSignalSpy again(runner, &ModelRunner::finished);
    hold = true;
    runner->run(session.batch(), 0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(atLayer.available() > 0, 20000);
    atLayer.acquire();
    window.findChild<LayerSpinBox*>(QStringLiteral("layerPicker"))->setValue(2);
    clicked.release();
    QTRY_COMPARE_WITH_TIMEOUT(again.count(), 2, 30000);
    QCOMPARE(again.at(0).at(0).value<ModelRun>().layer, 0);
    QCOMPARE(again.at(1).at(0).value<ModelRun>().layer, 2);
  }
};

QTEST_MAIN(TestSlidingLayers)
#include "tst_sliding_layers.moc"

// Off-screen rendering of views: the same widgets the app shows, each view rendered at the
// requested size the way its row of the view registry says (the window through grab()).
#include "ui/shell/Snapshot.h"
#include "core/capture/CaptureManifest.h"
#include "core/collate/CollatorPair.h"
#include "core/collate/CollatorSpec.h"
#include "core/commands/AttentionReport.h"
#include "core/forward/LayerAttention.h"
#include "core/forward/ModelSpec.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/mask/GradedPositions.h"
#include "core/util/Error.h"
#include "core/util/JsonString.h"
#include "ui/model/ModelRunner.h"
#include "ui/shell/CaptureOpening.h"
#include "ui/shell/Export.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/shell/ViewRegistry.h"
#include "ui/teaching/TeachingView.h"
#include "ui/views/attention/AttentionGridCanvas.h"
#include "ui/views/attention/AttentionView.h"
#include "ui/views/attention/LayerSpinBox.h"
#include "ui/views/softmax/SoftmaxView.h"
#include "ui/widgets/Palette.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <memory>
#include <optional>
#include <ostream>

namespace maskscope {

std::string snapshotViewNames() { return viewNames().join(QStringLiteral(", ")).toStdString(); }

namespace {

// One side of --compare: whatever --collator takes (a preset or collator spec, a framework spec or
// config file), checked as the session will read it; throws Error naming the problem.
void checkCompareSide(const std::string& spec) {
  if (isFrameworkSpec(spec))
    parseFrameworkSpec(spec);
  else
    parseCollatorSpec(spec);
}

void checkArgs(const SnapshotArgs& a) {
  if (a.out.empty()) throw Error("--out FILE.png is required");
  if (a.width < 64 || a.height < 64 || a.width > 16384 || a.height > 16384)
    throw Error("--size must be within 64x64 .. 16384x16384");
  if (!viewNames().contains(QString::fromStdString(a.view)))
    throw Error("unknown view \"" + a.view + "\" (" + snapshotViewNames() + ")");
  if (a.theme != "light" && a.theme != "dark") throw Error("--theme must be light or dark, got \"" + a.theme + "\"");
  if (!a.compare.empty()) {
    try {
      splitCollatorPair(a.compare, checkCompareSide); // every spec --collator takes; a bad one is refused
    } catch (const Error& e) {
      throw Error("--compare: " + e.message());
    }
  }
  const int steps = int(TeachingView::steps().size());
  if (a.teachingStep < 0 || a.teachingStep > steps)
    throw Error("--step " + std::to_string(a.teachingStep) +
                " is outside the teaching steps (0 = the introduction, 1.." + std::to_string(steps) + ")");
  if (!a.hide.empty() && a.view != "table")
    throw Error("--hide filters the position table: use it with --view table, not --view " + a.view);
  if (!a.hide.empty()) parseTableFilter(a.hide); // throws, naming an unknown word
  if (!a.modelSpec.empty() && !a.modelConfig.empty())
    throw Error("--model-config is for snapshots without --model: a loaded model's layers come from its own config");
}

// Snapshots run without the app: a QApplication of their own (offscreen unless a platform is set).
std::unique_ptr<QApplication> ensureApplication() {
  if (QApplication::instance()) return {};
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "maskscope";
  static char* argv[] = {name, nullptr};
  return std::make_unique<QApplication>(argc, argv);
}

// --rows A:B: the batch of B - A rows starting at A (the app's batches start at multiples of their
// size, so A must be one); the shown row moves into it when it lies outside.
void applyRowRange(Session& session, const BatchInputs& in, long& row) {
  if (in.rowEnd < 0) throw Error("--rows " + std::to_string(in.rowBegin) + ": give the end too (A:B)");
  const long size = in.rowEnd - in.rowBegin;
  if (size > 64) throw Error("--rows: a snapshot shows at most 64 rows in one batch, not " + std::to_string(size));
  if (in.rowBegin % size != 0)
    throw Error("--rows " + std::to_string(in.rowBegin) + ":" + std::to_string(in.rowEnd) +
                ": a snapshot shows batches that start at a multiple of their size (" + std::to_string(size) + ")");
  if (in.rowEnd > session.rowCount())
    throw Error("--rows ends at " + std::to_string(in.rowEnd) + ", past the input's " +
                std::to_string(session.rowCount()) + " rows");
  session.setBatchSize(int(size));
  if (row < in.rowBegin || row >= in.rowEnd) row = in.rowBegin;
}

// The pipeline, the dataset or batch dump, the row and the position the snapshot shows.
void openInputs(Session& session, const SnapshotArgs& a) {
  auto lastError = std::make_shared<QString>(); // shared: the connection outlives this call
  QObject::connect(&session, &Session::errorOccurred, [lastError](const QString& m) { *lastError = m; });
  const BatchInputs& in = a.inputs;
  if (!in.vars.empty()) session.setTemplateVariables({in.vars.begin(), in.vars.end()});
  if (!in.tokenizerSpec.empty() || !in.templateSpec.empty() || in.collatorSpec != "default" || !in.vars.empty()) {
    // No --tokenizer: the default (builtin:demo; none for a framework's pre-tokenized rows, shown as ids).
    if (!session.setPipeline(QString::fromStdString(in.tokenizerSpec), QString::fromStdString(in.templateSpec),
                             QString::fromStdString(in.collatorSpec)))
      throw Error(lastError->toStdString());
  }
  if (session.isFramework() && !in.batchFile.empty())
    throw Error("--batch shows a dump as given; a framework spec collates --data rows (give --data)");
  if (!a.stage.empty() && !session.isFramework())
    throw Error("--stage applies to framework specs (--collator SPEC.json with \"framework\")");
  // --batch CAPTURE_DIR, or a batch file inside one: the manifest's tokenizer and template unless given.
  const std::string captureDir = isCaptureFolder(in.batchFile)            ? in.batchFile
                                 : in.batchFile.ends_with(".safetensors") ? captureFolderOf(in.batchFile)
                                                                          : std::string();
  const bool ok =
      in.batchFile.empty()
          ? session.openDataset(QString::fromStdString(in.dataSpec.empty() ? "builtin:demo" : in.dataSpec))
      : !captureDir.empty()
          ? openCaptureFolder(session, QString::fromStdString(captureDir),
                              captureDir == in.batchFile ? QString() : QString::fromStdString(in.batchFile),
                              QString::fromStdString(in.tokenizerSpec), QString::fromStdString(in.templateSpec))
          : session.openBatchDump(QString::fromStdString(in.batchFile), !in.tokenizerSpec.empty());
  if (!ok) throw Error(lastError->toStdString());
  // Unusable framework rows (ids out of range, lengths that disagree, ...) stop the snapshot as they
  // stop collate and lint (exit 2 naming the row and key), rather than drawing an empty window.
  if (session.isFramework() && !session.preparedFramework()) throw Error(session.frameworkError().toStdString());
  if (a.stage == "prepared") session.setStage(Session::Stage::Prepared);
  long row = a.row;
  if (in.rowEnd >= 0 || in.rowBegin > 0) applyRowRange(session, in, row);
  if (row < 0 || row >= session.rowCount())
    throw Error("--row " + std::to_string(a.row) + " is outside the input (" + std::to_string(session.rowCount()) +
                " rows)");
  session.selectRow(int(row));
  if (a.position >= 0) {
    if (a.position >= session.batch().length())
      throw Error("--position " + std::to_string(a.position) + " is outside the row (" +
                  std::to_string(session.batch().length()) + " positions)");
    session.selectPosition(int(a.position));
  }
}

// --layer / --window: the layer the attention grid and the softmax view show. A model (or its
// config.json alone, --model-config) says which of its layers slide; without one --window draws a
// band of N keys. Neither replaces the other. layout: the model's or the config's layers, or null.
int chooseLayer(const SnapshotArgs& a, const ModelInfo* layout, ViewSnapshot& o) {
  if (a.window < 0 || a.window > kMaxSlidingWindow)
    throw Error("--window must be 1 or more (0 = full attention) and at most " + std::to_string(kMaxSlidingWindow) +
                ", got " + std::to_string(a.window));
  if (!layout && a.layer >= 0)
    throw Error("--layer needs --model or --model-config (they say which layers slide); without one use --window N");
  if (layout && a.window > 0)
    throw Error("--window is for snapshots without --model or --model-config: the model's layers have their own "
                "window (pick one with --layer)");
  const ModelInfo none;
  const ModelInfo& info = layout ? *layout : none;
  const int layer = std::max(0, a.layer);
  if (layout && layer >= info.layers)
    throw Error("--layer " + std::to_string(layer) + " is outside the model (" + std::to_string(info.layers) +
                " layers: 0.." + std::to_string(info.layers - 1) + ")");
  const ShownLayer shown = shownLayer(info, layer, a.window); // as the app's attention pane
  o.window = shown.window;
  o.softcap = shown.softcap;
  o.layerText = QString::fromStdString(shown.text);
  return layer;
}

QImage grabWindow(MainWindow& window) {
  window.show();
  QApplication::processEvents();
  QApplication::processEvents(); // the first-show dock sizes are applied from a queued call
  return window.grab().toImage();
}

// One view of the registry, rendered the way its row says.
QImage renderView(const ViewSpec& spec, MainWindow& window, const ViewSnapshot& options, QSize size) {
  switch (spec.offscreen) {
  case OffscreenRender::Window: {
    window.show();
    if (spec.setUp) spec.setUp(window.view(spec.name), options);
    window.showView(spec.name);
    return grabWindow(window);
  }
  case OffscreenRender::Grab: {
    QWidget* view = window.view(spec.name);
    QWidget* parent = view->parentWidget();
    view->setParent(nullptr);
    if (spec.setUp) spec.setUp(view, options);
    view->resize(size);
    view->show();
    QApplication::processEvents();
    const QImage image = view->grab().toImage();
    view->setParent(parent);
    return image;
  }
  case OffscreenRender::Paint: {
    std::unique_ptr<QWidget> view(spec.create({options.session, &window}));
    view->resize(size);
    if (spec.setUp) spec.setUp(view.get(), options);
    return renderToImage([&](QPainter& p, QRect r) { spec.paint(view.get(), p, r); }, size);
  }
  }
  return {};
}

// --json: the shape of the batch the views drew (so a script can check it against `collate --json`),
// and with a framework spec which framework built it.
std::string batchJson(const Session& session) {
  if (!session.hasBatch()) return {};
  std::string out;
  if (const FrameworkSpec* spec = session.frameworkSpec())
    out = ", \"framework\": " + jsonString(spec->describe()) +
          ", \"stage\": " + jsonString(session.stage() == Session::Stage::Prepared ? "prepared" : "batch");
  const Batch& b = session.batch();
  const int64_t graded = gradedInBatch(b); // reaches the loss (core/mask/GradedPositions.h), as collate and lint count
  return out + ", \"batch\": {\"rows\": " + std::to_string(b.batchSize()) +
         ", \"positions\": " + std::to_string(b.length()) + ", \"graded\": " + std::to_string(graded) +
         ", \"row\": " + std::to_string(session.batchRow()) + "}";
}

// --json on a capture's batch (docs/capture.md): the trainer, collator and versions that built it.
std::string captureJson(const Session& session) {
  const QString capture = session.isBatchDump() ? captureDescription(session.datasetSpec()) : QString();
  return capture.isEmpty() ? std::string() : ", \"capture\": " + jsonString(capture.toStdString());
}

void writeImage(const QImage& image, const SnapshotArgs& a, const Session& session, CommandIO& io) {
  const QString out = QString::fromStdString(a.out);
  bool written = false;
  if (out.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
    written = exportSvg([&](QPainter& p, QRect) { p.drawImage(0, 0, image); }, image.size(), out,
                        QString::fromStdString(a.view));
  } else {
    written = !image.isNull() && image.save(out, "PNG");
  }
  if (!written) throw Error("could not write the image", {a.out});
  std::optional<AttentionReport> attention;
  if (const EffectiveMask* m = session.effectiveMask()) attention = AttentionReport{session.attnChoice(), *m};
  if (io.json)
    io.out << "{\"out\": " << jsonString(a.out) << ", \"view\": " << jsonString(a.view)
           << ", \"width\": " << image.width() << ", \"height\": " << image.height() << batchJson(session)
           << captureJson(session)
           << (attention ? ", \"attention\": " + escapeLineSeparators(attentionJson(*attention).dump()) : std::string())
           << "}\n";
  else
    io.err << "wrote " << a.out << " (" << image.width() << "x" << image.height() << ")\n"
           << (attention ? attentionText(*attention) : std::string());
}

// A teaching step that quotes measured lessons (TeachingStep::measuresLessons): measured here, on the
// batch that step shows (its collator on the demo data, as TeachingView::goToStep applies them), so the
// snapshot shows the figures the app shows once its worker has run.
void measureTeachingLessons(Session& session, ForwardModel& model, int stepIndex) {
  const std::vector<TeachingStep> steps = TeachingView::steps();
  if (stepIndex < 0 || stepIndex >= int(steps.size()) || !steps[size_t(stepIndex)].measuresLessons) return;
  if (session.datasetSpec() != QLatin1String("builtin:demo")) session.openDataset(QStringLiteral("builtin:demo"));
  session.setCollator(steps[size_t(stepIndex)].collator);
  if (!session.hasBatch()) return;
  LessonsRun r = measureRowLessons(model, session.modelBatch(), session.batchRow());
  session.setRowLessons(r.row, std::move(r.lessons), r.error);
}

} // namespace

int runSnapshot(const SnapshotArgs& a, CommandIO& io) {
  checkArgs(a);
  std::unique_ptr<QApplication> ownApp = ensureApplication();
  QApplication::setStyle(QStringLiteral("Fusion"));
  palette::setTheme(a.theme == "dark" ? palette::Theme::Dark : palette::Theme::Light);
  Session session;
  openInputs(session, a);
  if (!session.setAttnImplementation(QString::fromStdString(a.attnImplementation)))
    throw Error("--attn-implementation: \"" + a.attnImplementation + "\" is not one of " + attnImplementationList());
  if (session.hasBatch() && !session.effectiveMask()) // flash_attention_2 with a 4-D mask, say
    throw Error(session.attentionRule().toStdString(),
                {a.inputs.batchFile.empty() ? a.inputs.dataSpec : a.inputs.batchFile});
  if (session.needsDumpTokenizer()) { // no one to ask: say so, and show the ids undecoded
    RenderOptions given;
    given.variables = session.templateVariables();
    io.err << "maskscope: note: "
           << tokenizerFitNote(a.inputs.batchFile, session.tokenizerSpec().toStdString(), &session.dumpFit(),
                               rankTokenizers(session.dumpBatch(), defaultTokenizerCandidates(), given))
           << "; the views show the ids undecoded (give --tokenizer)\n";
  }

  // A model, when given, runs once here (synchronously: there is no UI to keep responsive).
  std::optional<ModelRun> run;
  ViewSnapshot options;
  std::shared_ptr<ForwardModel> model;
  std::optional<ModelInfo> layout; // the layers' kinds: the model's, or a config.json's without weights
  if (!a.modelSpec.empty()) {
    model = loadForwardModel(a.modelSpec, "auto");
    layout = model->info();
  } else if (!a.modelConfig.empty()) {
    layout = describeModelConfig(a.modelConfig);
  }
  const int layer = chooseLayer(a, layout ? &*layout : nullptr, options);
  if (model) {
    run = runModelOnce(*model, session.modelBatch(), layer, 0, nullptr, session.batchRow());
    if (!run->error.isEmpty()) throw Error("forward pass failed: " + run->error.toStdString(), {a.modelSpec});
  }
  if (model && a.teachingStep > 0) measureTeachingLessons(session, *model, a.teachingStep - 1);
  options.session = &session;
  options.run = run ? &*run : nullptr;
  options.modelLabel = QString::fromStdString(a.modelSpec);
  options.zoom = a.zoom;
  options.softmaxExample = a.softmaxExample;
  if (!a.compare.empty()) {
    const auto [specA, specB] = splitCollatorPair(a.compare, checkCompareSide);
    options.compareA = QString::fromStdString(specA);
    options.compareB = QString::fromStdString(specB);
  }
  options.teachingStep = a.teachingStep;
  if (!a.hide.empty()) options.tableFilter = parseTableFilter(a.hide);

  MainWindow window(&session);
  window.setFitsScreen(false); // --size is the window's size, whatever the off-screen screen's
  window.setAsksForTokenizer(false);
  window.attentionGrid()->setFoldsPads(false); // a snapshot shows the whole grid unless --zoom says otherwise
  window.setDarkTheme(a.theme == "dark");
  window.resize(a.width, a.height);
  if (a.presenter) window.setPresenterMode(true);
  // The attention pane's controls as in the app (they draw the whole window's grid and softmax view):
  // the model's (or config's) layer in the layer picker, or the band in the window box.
  AttentionView* pane = window.attentionView();
  if (layout) {
    pane->layerPicker()->setModel(*layout);
    pane->layerPicker()->setValue(layer);
  } else {
    pane->windowBox()->setValue(int(a.window));
  }
  const ViewSpec* spec = findView(QString::fromStdString(a.view));
  const QImage image = spec ? renderView(*spec, window, options, QSize(a.width, a.height)) : grabWindow(window);
  writeImage(image, a, session, io);
  return 0;
}

} // namespace maskscope

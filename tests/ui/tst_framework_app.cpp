// The app's framework mode (issue 27 §4): the toolbar's framework picker and its options form, File >
// Open framework config, the batch / prepared toggle. Every batch the app builds is compared with the
// one `maskscope collate --collator SPEC --json` builds (run in process, as the CLI runs it) from a
// spec the test writes itself, so a picker that sends the wrong spec fails. Fixtures:
// tests/data/ui/frameworks/ (ids rows without a tokenizer; chat rows with the real qwen3 tokenizer).
#include "../TokenizerCacheRequired.h"
#include "core/commands/CollateCommand.h"
#include "core/commands/LintCommand.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/frameworks/PreparedFramework.h"
#include "ui/dataset/DatasetView.h"
#include "ui/shell/AppArguments.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/Session.h"
#include "ui/views/compare/CompareView.h"
#include "ui/views/framework/FrameworkOptionsForm.h"
#include "ui/views/framework/FrameworkView.h"
#include "ui/views/framework/PreparedRowTable.h"
#include "ui/views/lint/LintView.h"
#include "ui/views/tokens/TokenStripView.h"
#include "ui/widgets/FrameworkPicker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollArea>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTableWidget>
#include <QTest>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace maskscope;

namespace {

QString fixture(const QString& name) { return QStringLiteral(MASKSCOPE_TEST_DATA_DIR "/ui/frameworks/") + name; }
QString qwen3() { return QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/qwen3"); }

// `maskscope collate --data DATA --collator SPEC [--tokenizer T] --json`: the framework's dict.
nlohmann::json cliBatch(const QString& data, const QString& spec, const QString& tokenizer) {
  BatchInputs in;
  in.dataSpec = data.toStdString();
  in.collatorSpec = spec.toStdString();
  in.tokenizerSpec = tokenizer.toStdString();
  std::ostringstream out, err;
  CommandIO io{out, err, true, false};
  const int status = runCommand(io, [&] { return runCollate(in, io); });
  if (status != 0) qWarning("collate: %s", err.str().c_str());
  return status == 0 ? nlohmann::json::parse(out.str()) : nlohmann::json();
}

// A [B, T] key of the dict (or [T], one row) as maskscope's grid values, row after row.
std::vector<int64_t> flat(const nlohmann::json& dict, const char* key) {
  std::vector<int64_t> out;
  if (!dict.contains(key)) return out;
  for (const auto& v : dict.at(key)) {
    if (v.is_array())
      for (const auto& x : v) out.push_back(x.is_boolean() ? int64_t(x.get<bool>()) : x.get<int64_t>());
    else
      out.push_back(v.get<int64_t>());
  }
  return out;
}

// The batch the app's views draw equals collate's dict: ids, labels, attention mask, position ids.
void compareWithCli(const Session& session, const nlohmann::json& dict) {
  QVERIFY2(!dict.is_null(), "collate failed");
  const Batch& b = session.batch();
  QVERIFY(b.batchSize() > 0);
  QCOMPARE(b.inputIds.values, flat(dict, "input_ids"));
  QCOMPARE(b.labels.values, flat(dict, "labels"));
  if (dict.contains("attention_mask")) QCOMPARE(b.attentionMask.values, flat(dict, "attention_mask"));
  if (dict.contains("position_ids")) QCOMPARE(b.positionIds.values, flat(dict, "position_ids"));
}

// The picker's controls as a user drives them: a combo box pick, a check box, a line edit.
void pick(QComboBox* box, const QString& text) {
  const int i = box->findText(text);
  QVERIFY2(i >= 0, qPrintable(text));
  box->setCurrentIndex(i);
  Q_EMIT box->activated(i);
}

void setOption(FrameworkOptionsForm* form, const QString& name, const QString& value) {
  QWidget* editor = form->editor(name);
  QVERIFY2(editor, qPrintable(QStringLiteral("no editor for ") + name));
  if (auto* check = qobject_cast<QCheckBox*>(editor)) {
    check->setChecked(value == QLatin1String("true"));
  } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
    spin->setValue(value.toInt());
  } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    pick(combo, value);
  } else if (auto* edit = qobject_cast<QLineEdit*>(editor)) {
    edit->setText(value);
    Q_EMIT edit->editingFinished();
  }
}

// `maskscope lint DATA --collator SPEC --json` (in process): each finding as "rule row position message".
QStringList cliFindings(const QString& data, const QString& spec) {
  LintArgs a;
  a.input = data.toStdString();
  a.collatorSpec = spec.toStdString();
  std::ostringstream out, err;
  CommandIO io{out, err, true, false};
  if (runCommand(io, [&] { return runLint(a, io); }) == 2) qWarning("lint: %s", err.str().c_str());
  const nlohmann::json report = nlohmann::json::parse(out.str()); // alive through the loop
  QStringList lines;
  for (const auto& f : report.at("findings"))
    lines << QString::fromStdString(f.at("rule").get<std::string>() + " " + f.at("row").dump() + " " +
                                    f.at("position").dump() + " " + f.at("message").get<std::string>());
  return lines;
}

QStringList appFindings(const LintReport& r) {
  QStringList lines;
  for (const Finding& f : r.findings)
    lines << QString::fromStdString(f.rule + " " + (f.row ? std::to_string(*f.row) : "null") + " " +
                                    (f.position ? std::to_string(*f.position) : "null") + " " + f.message);
  return lines;
}

// MASKSCOPE_TEST_SCREENSHOTS=DIR: the window as the test left it, saved as DIR/NAME.png to look at.
void saveScreenshot(QWidget& w, const QString& name) {
  const QString dir = qEnvironmentVariable("MASKSCOPE_TEST_SCREENSHOTS");
  if (!dir.isEmpty()) w.grab().save(dir + QStringLiteral("/") + name + QStringLiteral(".png"));
}

// The toolbar's Batch rows box (the spin box of the batch bar).
QSpinBox* batchRowsBox(MainWindow& w) {
  auto* bar = w.findChild<QToolBar*>(QStringLiteral("batchToolbar"));
  return bar ? bar->findChild<QSpinBox*>() : nullptr;
}

FrameworkOptionsForm* optionsForm(MainWindow& w) {
  return qobject_cast<FrameworkView*>(w.view(QStringLiteral("framework")))->optionsForm();
}

} // namespace

class TestFrameworkApp : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(qwen3() + QStringLiteral("/tokenizer.json"))); }

  // Every framework of the registry is in the picker, and picking one gives its versions.
  void pickerListsEveryFramework() {
    Session session;
    MainWindow w(&session);
    QComboBox* box = w.frameworkPicker()->frameworkBox();
    QStringList names;
    for (int i = 0; i < box->count(); ++i) names << box->itemData(i).toString();
    for (const FrameworkDefinition& d : frameworkDefinitions())
      QVERIFY2(names.contains(QString::fromStdString(d.info.name)), d.info.name.c_str());
    QVERIFY(session.openDataset(fixture(QStringLiteral("ids-rows.jsonl"))));
    pick(box, QStringLiteral("TRL"));
    QTRY_VERIFY(session.isFramework());
    QComboBox* versions = w.frameworkPicker()->versionBox();
    QStringList shown;
    for (int i = 0; i < versions->count(); ++i) shown << versions->itemText(i);
    QCOMPARE(shown, (QStringList{QStringLiteral("1.10"), QStringLiteral("1.6"), QStringLiteral("0.18")}));
  }

  // The options form is generated from the catalogue: for every framework, version and collator of
  // the registry it holds one editor per option the batch depends on, under the option's own name.
  void optionsFormCoversTheCatalogue() {
    Session session;
    MainWindow w(&session);
    int forms = 0;
    for (const FrameworkDefinition& d : frameworkDefinitions())
      for (const VersionInfo& v : d.info.versions)
        for (const CollatorInfo& c : v.collators) {
          nlohmann::ordered_json spec{{"framework", d.info.name}, {"version", v.version}, {"collator", c.name}};
          QString error;
          auto keep = connect(&session, &Session::errorOccurred, this, [&error](const QString& m) { error = m; });
          const bool ok = session.setCollator(QString::fromStdString(spec.dump()));
          disconnect(keep);
          QVERIFY2(ok, qPrintable(QString::fromStdString(spec.dump()) + QStringLiteral(": ") + error));
          QStringList want;
          for (const OptionInfo& o : c.options)
            if (o.kind != OptionKind::Ignored) want << QString::fromStdString(o.name);
          QStringList shown = optionsForm(w)->optionNames();
          want.sort();
          shown.sort();
          QCOMPARE(shown, want);
          QCOMPARE(optionsForm(w)->collatorBox()->currentText(), QString::fromStdString(c.name));
          ++forms;
        }
    QVERIFY(forms >= 6);
  }

  // Picking a framework, version and options in the toolbar and the Framework view's form builds the
  // batch collate builds from the equivalent spec (written here by hand).
  void pickerBuildsCollatesBatch_data() {
    QTest::addColumn<QString>("data");
    QTest::addColumn<QString>("tokenizer");
    QTest::addColumn<QString>("framework");   // the picker's title
    QTest::addColumn<QString>("version");     // "" = the default
    QTest::addColumn<QStringList>("options"); // name=value, set in the form in this order
    QTest::addColumn<QString>("spec");        // the same batch as collate spells it
    const QString ids = fixture(QStringLiteral("ids-rows.jsonl"));
    const QString chat = fixture(QStringLiteral("chat-rows.jsonl"));
    QTest::newRow("trl pad 0, completion only")
        << ids << QString() << QStringLiteral("TRL") << QString()
        << QStringList{QStringLiteral("pad_token_id=0"), QStringLiteral("completion_only_loss=true")}
        << QStringLiteral("{\"framework\":\"trl\",\"pad_token_id\":0,\"completion_only_loss\":true}");
    QTest::newRow("trl padding-free, max_length 3 keep_end")
        << ids << QString() << QStringLiteral("TRL") << QString()
        << QStringList{QStringLiteral("pad_token_id=0"), QStringLiteral("padding_free=true"),
                       QStringLiteral("max_length=3"), QStringLiteral("truncation_mode=keep_end")}
        << QStringLiteral("{\"framework\":\"trl\",\"pad_token_id\":0,\"padding_free\":true,\"max_length\":3,"
                          "\"truncation_mode\":\"keep_end\"}");
    QTest::newRow("trl 1.6 pad_to_multiple_of 8")
        << ids << QString() << QStringLiteral("TRL") << QStringLiteral("1.6")
        << QStringList{QStringLiteral("pad_token_id=0"), QStringLiteral("pad_to_multiple_of=8")}
        << QStringLiteral("{\"framework\":\"trl\",\"version\":\"1.6\",\"pad_token_id\":0,\"pad_to_multiple_of\":8}");
    QTest::newRow("axolotl chatml, train_on_eos all")
        << chat << qwen3() << QStringLiteral("Axolotl") << QString()
        << QStringList{QStringLiteral("chat_template=chatml"), QStringLiteral("train_on_eos=all")}
        << QStringLiteral("{\"framework\":\"axolotl\",\"type\":\"chat_template\",\"chat_template\":\"chatml\","
                          "\"train_on_eos\":\"all\"}");
  }
  void pickerBuildsCollatesBatch() {
    QFETCH(QString, data);
    QFETCH(QString, tokenizer);
    QFETCH(QString, framework);
    QFETCH(QString, version);
    QFETCH(QStringList, options);
    QFETCH(QString, spec);
    Session session;
    MainWindow w(&session);
    if (!tokenizer.isEmpty()) QVERIFY(session.setTokenizer(tokenizer));
    QVERIFY(session.openDataset(data));
    pick(w.frameworkPicker()->frameworkBox(), framework);
    QTRY_VERIFY(session.isFramework());
    if (!version.isEmpty()) pick(w.frameworkPicker()->versionBox(), version);
    // The three rows in one batch, as collate collates them (the framework set its trainer's batch).
    session.setBatchSize(3);
    for (const QString& o : options) {
      setOption(optionsForm(w), o.section(QLatin1Char('='), 0, 0), o.section(QLatin1Char('='), 1));
      QCOMPARE(optionsForm(w)->message(), QString()); // no refusal
    }
    QTRY_VERIFY(session.frameworkRun() != nullptr);
    compareWithCli(session, cliBatch(data, spec, tokenizer));
    // The summary line and the status bar name the framework, version and options of the batch.
    const QString described = QString::fromStdString(session.frameworkSpec()->describe());
    QVERIFY2(w.summaryLabel()->text().contains(described.toHtmlEscaped()), qPrintable(w.summaryLabel()->text()));
    QVERIFY2(w.frameworkStatusText().startsWith(described), qPrintable(w.frameworkStatusText()));
    for (const QString& o : options)
      QVERIFY2(described.contains(o.section(QLatin1Char('='), 0, 0)), qPrintable(described));
  }

  // A value the framework refuses is refused with its own error and the batch stays as it was.
  void refusedOptionKeepsTheBatch() {
    Session session;
    MainWindow w(&session);
    QVERIFY(session.openDataset(fixture(QStringLiteral("ids-rows.jsonl"))));
    QVERIFY(session.setCollator(QStringLiteral("{\"framework\":\"trl\",\"pad_token_id\":0}")));
    const std::vector<int64_t> before = session.batch().inputIds.values;
    setOption(optionsForm(w), QStringLiteral("shuffle_dataset"), QStringLiteral("true"));
    QTRY_VERIFY(optionsForm(w)->message().startsWith(QStringLiteral("Refused: ")));
    QVERIFY2(optionsForm(w)->message().contains(QStringLiteral("shuffle_dataset")),
             qPrintable(optionsForm(w)->message()));
    QVERIFY(!session.frameworkSpec()->isGiven("shuffle_dataset"));
    QCOMPARE(session.batch().inputIds.values, before);
    QVERIFY(!qobject_cast<QCheckBox*>(optionsForm(w)->editor(QStringLiteral("shuffle_dataset")))->isChecked());
  }

  // File > Open framework config: the picker, version and form show the config, and the batch is
  // collate's from the same file.
  void openConfigSetsPicker_data() {
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("data");
    QTest::addColumn<QString>("tokenizer");
    QTest::addColumn<QString>("framework"); // registry name
    QTest::addColumn<QString>("version");
    QTest::addColumn<QString>("option"); // name=value the form shows
    QTest::newRow("axolotl yaml") << fixture(QStringLiteral("axolotl-chatml.yml"))
                                  << fixture(QStringLiteral("chat-rows.jsonl")) << qwen3() << QStringLiteral("axolotl")
                                  << QStringLiteral("0.18") << QStringLiteral("train_on_eos=turn");
    QTest::newRow("axolotl yaml dropped")
        << fixture(QStringLiteral("axolotl-chatml.yml")) << fixture(QStringLiteral("chat-rows.jsonl")) << qwen3()
        << QStringLiteral("axolotl") << QStringLiteral("0.18") << QStringLiteral("chat_template=chatml");
    QTest::newRow("trl SFTConfig json") << fixture(QStringLiteral("trl-sft-config.json"))
                                        << fixture(QStringLiteral("ids-rows.jsonl")) << QString()
                                        << QStringLiteral("trl") << QStringLiteral("1.10")
                                        << QStringLiteral("padding_free=true");
  }
  void openConfigSetsPicker() {
    QFETCH(QString, config);
    QFETCH(QString, data);
    QFETCH(QString, tokenizer);
    QFETCH(QString, framework);
    QFETCH(QString, version);
    QFETCH(QString, option);
    Session session;
    MainWindow w(&session);
    if (!tokenizer.isEmpty()) QVERIFY(session.setTokenizer(tokenizer));
    QVERIFY(session.openDataset(data));
    session.setBatchSize(3);
    QString error;
    // Dropped (MainWindow::openPath, as drag-and-drop and the command line open files) or File > Open
    // framework config.
    if (QString::fromUtf8(QTest::currentDataTag()).endsWith(QLatin1String("dropped")))
      QVERIFY(w.openPath(config));
    else
      QVERIFY2(w.openFrameworkConfig(config, &error), qPrintable(error));
    QTRY_COMPARE(w.frameworkPicker()->frameworkBox()->currentData().toString(), framework);
    QCOMPARE(w.frameworkPicker()->versionBox()->currentText(), version);
    QWidget* editor = optionsForm(w)->editor(option.section(QLatin1Char('='), 0, 0));
    QVERIFY(editor);
    const QString value = option.section(QLatin1Char('='), 1);
    if (auto* check = qobject_cast<QCheckBox*>(editor))
      QCOMPARE(check->isChecked(), value == QLatin1String("true"));
    else if (auto* combo = qobject_cast<QComboBox*>(editor))
      QCOMPARE(combo->currentText(), value);
    else if (auto* edit = qobject_cast<QLineEdit*>(editor))
      QCOMPARE(edit->text(), value);
    QVERIFY(w.frameworkStatusText().contains(QFileInfo(config).fileName()));
    // Axolotl renders with its chat_template (chatml), not the tokenizer's: the template box says so.
    const bool ownTemplate = framework == QLatin1String("axolotl");
    QCOMPARE(w.templateBox()->isEnabled(), !ownTemplate);
    if (ownTemplate) QCOMPARE(w.templateBox()->currentText(), QStringLiteral("chatml (axolotl)"));
    // Both configs set their trainer's batch (micro_batch_size: 2, per_device_train_batch_size: 2).
    QCOMPARE(session.batchSize(), 2);
    QCOMPARE(batchRowsBox(w)->value(), 2);
    session.setBatchSize(3); // the three rows in one batch, as collate collates them
    compareWithCli(session, cliBatch(data, config, tokenizer));
  }

  // `maskscope axolotl-chatml.yml chat-rows.jsonl --tokenizer QWEN3` (the config before or after the
  // dataset): the config goes through File > Open framework config, the dataset opens as a dataset,
  // --tokenizer is used, and the config's micro_batch_size: 2 becomes Batch rows. The batch is
  // collate's from the same config (its first two rows).
  void commandLineOpensConfig_data() {
    QTest::addColumn<QStringList>("args");
    const QString config = fixture(QStringLiteral("axolotl-chatml.yml")),
                  data = fixture(QStringLiteral("chat-rows.jsonl"));
    QTest::newRow("config first") << QStringList{config, data, QStringLiteral("--tokenizer"), qwen3()};
    QTest::newRow("dataset first") << QStringList{data, QStringLiteral("--tokenizer=") + qwen3(), config};
    QTest::newRow("as --collator") << QStringList{QStringLiteral("--collator"),  config, QStringLiteral("--data"), data,
                                                  QStringLiteral("--tokenizer"), qwen3()};
  }
  void commandLineOpensConfig() {
    QFETCH(QStringList, args);
    const QString config = fixture(QStringLiteral("axolotl-chatml.yml")),
                  data = fixture(QStringLiteral("chat-rows.jsonl"));
    const AppArguments parsed = parseAppArguments(args);
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    Session session;
    QCOMPARE(openAppFiles(session, parsed), QStringList());
    MainWindow w(&session);
    QCOMPARE(applyAppCollator(w, session, parsed), QStringList());
    QCOMPARE(session.datasetSpec(), data);
    QCOMPARE(session.tokenizerSpec(), qwen3());
    QTRY_COMPARE(w.frameworkPicker()->frameworkBox()->currentData().toString(), QStringLiteral("axolotl"));
    QVERIFY(w.frameworkStatusText().contains(QFileInfo(config).fileName()));
    QCOMPARE(session.batchSize(), 2); // micro_batch_size: 2
    QVERIFY(batchRowsBox(w));
    QCOMPARE(batchRowsBox(w)->value(), 2);
    QTRY_VERIFY(session.frameworkRun() != nullptr);
    QCOMPARE(session.batch().batchSize(), int64_t(2));
    QVERIFY(session.rowCount() == 3);
    // The same batch collate builds from the config over the first two rows.
    const QString firstTwo = QDir(QDir::tempPath()).filePath(QStringLiteral("maskscope-first-two.jsonl"));
    {
      QFile in(data), out(firstTwo);
      QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly | QIODevice::Truncate));
      out.write(in.readLine());
      out.write(in.readLine());
    }
    compareWithCli(session, cliBatch(firstTwo, config, qwen3()));
    QFile::remove(firstTwo);
    if (QTest::currentDataTag() == QByteArrayLiteral("config first")) {
      w.setFitsScreen(false);
      w.resize(1024, 768);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QTRY_VERIFY(w.dockSizesApplied());
      saveScreenshot(w, QStringLiteral("command-line-axolotl-1024x768"));
    }
  }

  // The collator's own notes reach the framework view, not only stderr: LLaMA-Factory's gemma3 collator
  // pads a batch without images with a fake image, which the grid shows as padding.
  void frameworkViewShowsCollatorNotes() {
    const QString gemma3 = QStringLiteral(MASKSCOPE_TOKENIZER_CACHE "/gemma3");
    REQUIRE_TOKENIZER_CACHE(QFileInfo::exists(gemma3 + QStringLiteral("/tokenizer.json")));
    const AppArguments parsed = parseAppArguments(
        {QStringLiteral("--collator"), QStringLiteral(R"({"framework": "llamafactory", "template": "gemma3"})"),
         QStringLiteral("--data"), fixture(QStringLiteral("gemma3-text-rows.jsonl")), QStringLiteral("--tokenizer"),
         gemma3});
    QVERIFY2(parsed.error.isEmpty(), qPrintable(parsed.error));
    Session session;
    QCOMPARE(openAppFiles(session, parsed), QStringList());
    MainWindow w(&session);
    QCOMPARE(applyAppCollator(w, session, parsed), QStringList());
    QTRY_VERIFY(session.frameworkRun() != nullptr);
    QCOMPARE(session.batch().inputIds.cols, int64_t(280)); // 19 tokens + the fake image's 260, padded to 8
    auto* view = qobject_cast<FrameworkView*>(w.view(QStringLiteral("framework")));
    QTRY_VERIFY2(view->summaryText().contains(QStringLiteral("appends a fake 64x64 image to row 0 (260 positions")),
                 qPrintable(view->summaryText()));
  }

  // What the app does not take is refused before a window opens, naming what it takes; two
  // collators are refused rather than one silently unused.
  void commandLineRefusals_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("says");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("data.jsonl"), QStringLiteral("--rows"),
                                                   QStringLiteral("0:4")}
                                    << QStringLiteral("--tokenizer T, --template T, --collator C");
    QTest::newRow("missing value") << QStringList{QStringLiteral("data.jsonl"), QStringLiteral("--tokenizer")}
                                   << QStringLiteral("--tokenizer needs a value");
    QTest::newRow("two collators") << QStringList{QStringLiteral("a.yml"), QStringLiteral("--collator"),
                                                  QStringLiteral("default")}
                                   << QStringLiteral("one collator builds the batch");
    QTest::newRow("bad var") << QStringList{QStringLiteral("--var"), QStringLiteral("novalue")}
                             << QStringLiteral("--var: expected k=v");
  }
  void commandLineRefusals() {
    QFETCH(QStringList, args);
    QFETCH(QString, says);
    const AppArguments parsed = parseAppArguments(args);
    QVERIFY2(parsed.error.contains(says), qPrintable(parsed.error));
    // Qt's own options are QApplication's, never refused.
    QVERIFY(parseAppArguments({QStringLiteral("-platform"), QStringLiteral("offscreen"), QStringLiteral("x.jsonl")})
                .error.isEmpty());
  }

  // The framework's own template in the disabled template box: the value is what shows ("chatml"),
  // not "axolotl: chat_template =" cut at the box's edge. The options form opens wide enough for its
  // labels and fields, docked at 1024 x 768 and floated.
  void templateBoxAndFormAreReadable() {
    Session session;
    MainWindow w(&session);
    w.setFitsScreen(false);
    w.resize(1024, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(session.setTokenizer(qwen3()));
    QVERIFY(session.openDataset(fixture(QStringLiteral("chat-rows.jsonl"))));
    QString error;
    QVERIFY2(w.openFrameworkConfig(fixture(QStringLiteral("axolotl-chatml.yml")), &error), qPrintable(error));
    QComboBox* box = w.templateBox();
    QVERIFY(!box->isEnabled());
    QStyleOptionComboBox opt;
    opt.initFrom(box);
    opt.editable = false;
    const QRect field = box->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, box);
    const QString shown = box->fontMetrics().elidedText(box->currentText(), Qt::ElideRight, field.width());
    QVERIFY2(shown.contains(QStringLiteral("chatml")), qPrintable(shown));
    // The status bar's permanent labels (framework, read-only notice, model) side by side, none over another.
    QList<QRect> taken;
    if (w.statusBar()->layout()) w.statusBar()->layout()->activate();
    for (QWidget* label : w.statusBar()->findChildren<QLabel*>(QString(), Qt::FindDirectChildrenOnly)) {
      if (!label->isVisible()) continue;
      const QRect r = label->geometry();
      QVERIFY2(w.statusBar()->rect().contains(r), qPrintable(static_cast<QLabel*>(label)->text()));
      for (const QRect& other : taken) QVERIFY2(!other.intersects(r), qPrintable(static_cast<QLabel*>(label)->text()));
      taken << r;
    }
    QVERIFY(!w.frameworkStatusText().isEmpty());
    for (bool floated : {false, true}) {
      if (floated) saveScreenshot(w, QStringLiteral("framework-docked-1024x768"));
      QDockWidget* dock = w.dock(QStringLiteral("framework"));
      QVERIFY(dock);
      dock->setFloating(floated);
      w.showView(QStringLiteral("framework"));
      FrameworkOptionsForm* form = optionsForm(w);
      QTRY_VERIFY(form->isVisible());
      // The form's scroll area shows it whole across (no field behind a horizontal scroll) and three
      // rows of it at least.
      auto* scroll = qobject_cast<QScrollArea*>(form->parentWidget()->parentWidget());
      QVERIFY(scroll);
      QTRY_VERIFY2(
          scroll->viewport()->width() >= std::min(form->sizeHint().width(), 500),
          qPrintable(QStringLiteral("%1 of %2 px").arg(scroll->viewport()->width()).arg(form->sizeHint().width())));
      QTRY_VERIFY2(scroll->viewport()->height() >= 3 * form->fontMetrics().height() * 2,
                   qPrintable(QStringLiteral("%1 px high").arg(scroll->viewport()->height())));
      for (const QString& name : form->optionNames()) {
        QWidget* editor = form->editor(name);
        QVERIFY2(editor, qPrintable(name));
        QTRY_VERIFY2(editor->width() >= 60, qPrintable(QStringLiteral("%1: %2 px").arg(name).arg(editor->width())));
        // Inside what the scroll area shows across: no field behind the form's right edge.
        const int right = editor->mapTo(scroll->viewport(), QPoint(editor->width(), 0)).x();
        QVERIFY2(
            right <= scroll->viewport()->width(),
            qPrintable(QStringLiteral("%1 ends at %2 of %3 px").arg(name).arg(right).arg(scroll->viewport()->width())));
      }
      for (QLabel* label : form->findChildren<QLabel*>()) {
        if (!label->isVisible() || label->wordWrap()) continue;
        QVERIFY2(label->width() >= label->sizeHint().width(), qPrintable(QStringLiteral("%1: %2 of %3 px")
                                                                             .arg(label->text())
                                                                             .arg(label->width())
                                                                             .arg(label->sizeHint().width())));
      }
      if (floated) saveScreenshot(*w.dock(QStringLiteral("framework")), QStringLiteral("framework-floated"));
    }
  }

  // Compare with a framework active: side A starts on the toolbar's collator (the framework's batch on
  // screen, never silently the default preset), and B may be a preset or another framework spec.
  void compareStartsFromTheFramework() {
    Session session;
    MainWindow w(&session);
    QVERIFY(session.setTokenizer(qwen3()));
    QVERIFY(session.openDataset(fixture(QStringLiteral("chat-rows.jsonl"))));
    QString error;
    QVERIFY2(w.openFrameworkConfig(fixture(QStringLiteral("axolotl-chatml.yml")), &error), qPrintable(error));
    QTRY_VERIFY(session.frameworkRun() != nullptr);
    CompareView* c = w.compareView();
    QCOMPARE(c->sideSpec(0), session.collatorSpec());
    w.showView(QStringLiteral("compare"));
    c->setCollators(session.collatorSpec(), QStringLiteral("default"));
    QCOMPARE(c->stripA()->positionCount(), int(session.batch().length()));
    QVERIFY2(!c->summaryText().isEmpty() && !c->summaryText().startsWith(QStringLiteral("Cannot")),
             qPrintable(c->summaryText()));
    c->setCollators(QStringLiteral("default"), fixture(QStringLiteral("llamafactory-qwen3.json")));
    QVERIFY2(c->stripB()->positionCount() > 0, qPrintable(c->summaryText()));
  }

  // "Lint the whole dataset" in framework mode lints the framework's batch of every row as
  // `lint DATA --collator SPEC` does: the same findings (TRL 0.18's response template never found).
  void lintWholeDatasetThroughFramework() {
    Session session;
    MainWindow w(&session);
    const QString data = fixture(QStringLiteral("ids-rows.jsonl"));
    const QString spec = fixture(QStringLiteral("trl018-marker-missing.json"));
    QVERIFY(session.openDataset(data));
    QString error;
    QVERIFY2(w.openFrameworkConfig(spec, &error), qPrintable(error));
    w.lintView()->lintDataset();
    QTRY_VERIFY_WITH_TIMEOUT(w.lintView()->showsDatasetFindings() && !w.lintView()->lintPending(), 60000);
    const QStringList cli = cliFindings(data, spec);
    QVERIFY2(cli.join(QLatin1Char('\n')).contains(QStringLiteral("framework-marker-not-found")),
             qPrintable(cli.join(QLatin1Char('\n'))));
    QCOMPARE(appFindings(w.lintView()->report()), cli);
  }

  // The batch / prepared toggle: the row list shows the framework's prepared rows and the Framework
  // view's table their columns by the framework's names (TRL bfd packing: 3 rows become 2).
  void preparedToggle() {
    Session session;
    MainWindow w(&session);
    QVERIFY(session.openDataset(fixture(QStringLiteral("ids-rows.jsonl"))));
    QString error;
    QVERIFY2(w.openFrameworkConfig(fixture(QStringLiteral("trl-packing.json")), &error), qPrintable(error));
    QAbstractItemModel* list = w.findChild<DatasetView*>()->list()->model();
    QTRY_COMPARE(list->rowCount(), 3);
    w.frameworkPicker()->preparedButton()->click();
    QTRY_COMPARE(session.stage(), Session::Stage::Prepared);
    QTRY_COMPARE(list->rowCount(), 2);
    QVERIFY2(list->index(1, 0).data().toString().contains(QStringLiteral("\u2190 rows 2, 1")),
             qPrintable(list->index(1, 0).data().toString()));
    session.selectRow(1);
    PreparedRowTable* table = qobject_cast<FrameworkView*>(w.view(QStringLiteral("framework")))->preparedTable();
    QTRY_COMPARE(table->columnNames(), (QStringList{QStringLiteral("input_ids"), QStringLiteral("labels")}));
    QVERIFY2(table->headerText().contains(QStringLiteral("seq_lengths = [3, 2]")), qPrintable(table->headerText()));
    QCOMPARE(table->table()->rowCount(), 5);
    QCOMPARE(table->table()->item(0, 1)->text(), QStringLiteral("7")); // ids as ids: no tokenizer
    w.frameworkPicker()->batchButton()->click();
    QTRY_COMPARE(list->rowCount(), 3);
  }
};

QTEST_MAIN(TestFrameworkApp)
#include "tst_framework_app.moc"

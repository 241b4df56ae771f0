// Builds the pipeline pickers from core's lists (built-in templates, collator presets with their
// meaning as tooltips), keeps them and the session in step, and keeps every picker on screen (two
// rows of bars when one does not fit the window's width).
#include "ui/shell/PipelineToolbar.h"
#include "core/collate/CollatorSpec.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/template/ChatTemplate.h"
#include "ui/shell/Session.h"
#include "ui/widgets/FrameworkPicker.h"
#include "ui/widgets/FrameworkSpecEdit.h"
#include "ui/widgets/TokenizerPicker.h"

#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMainWindow>
#include <QSpinBox>
#include <algorithm>

namespace maskscope {

PipelineToolbar::PipelineToolbar(Session* session, bool persistent, QWidget* parent)
    : QToolBar(tr("Pipeline"), parent), session_(session) {
  setObjectName(QStringLiteral("pipelineToolbar"));
  addWidget(new QLabel(tr(" Tokenizer "), this));
  tokenizerBox_ = new TokenizerPicker(session_, persistent, this);
  addWidget(tokenizerBox_);
  addWidget(new QLabel(tr("  Template "), this));
  templateBox_ = new QComboBox(this);
  templateBox_->addItem(tr("(tokenizer's own)"), QString());
  for (const auto& n : builtinTemplateNames())
    templateBox_->addItem(QString::fromStdString(n), QString::fromStdString(n));
  templateBox_->addItem(tr("From file\u2026"), QStringLiteral("@file"));
  // Compact pickers (the list shows each name whole, the tooltip the chosen one): with the batch bar
  // they fit one row of a 1024 px window.
  templateBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  templateBox_->setMinimumContentsLength(kPickerChars);
  addWidget(templateBox_);
  batchBar_ = new QToolBar(tr("Batch"), parent ? parent : this); // the window owns it once added
  batchBar_->setObjectName(QStringLiteral("batchToolbar"));
  batchBar_->addWidget(new QLabel(tr(" Collator "), batchBar_));
  collatorBox_ = new QComboBox(batchBar_);
  for (const auto& p : collatorPresets()) {
    collatorBox_->addItem(QString::fromStdString(p.name) + (p.buggy ? tr("  (bug)") : QString()),
                          QString::fromStdString(p.name));
    collatorBox_->setItemData(collatorBox_->count() - 1, QString::fromStdString(p.mirrors), Qt::ToolTipRole);
  }
  collatorBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  collatorBox_->setMinimumContentsLength(kPickerChars);
  framework_ = new FrameworkPicker(session_, batchBar_);
  batchBar_->addWidget(framework_);
  collatorAction_ = batchBar_->addWidget(collatorBox_);
  batchBar_->addWidget(new QLabel(tr("  Batch rows "), batchBar_));
  batchSize_ = new QSpinBox(batchBar_);
  batchSize_->setRange(1, 64);
  batchSize_->setValue(session_->batchSize());
  batchBar_->addWidget(batchSize_);
  // A new width or new contents (a framework's version and stage buttons, presenter mode's type):
  // one row or two again, once the bars have their new size hints.
  for (QToolBar* bar : {static_cast<QToolBar*>(this), batchBar_}) bar->installEventFilter(this);
  if (parent) parent->installEventFilter(this);
  connectControls();
  connect(session_, &Session::pipelineChanged, this, &PipelineToolbar::sync);
}

void PipelineToolbar::addTo(QMainWindow* window) {
  window->addToolBar(this);
  window->addToolBar(batchBar_);
  fitRows();
}

// One row while both bars fit the window's width, else the batch bar on a row of its own: a bar
// hides what does not fit behind its » button, where nobody looks for Batch rows.
void PipelineToolbar::fitRows() {
  auto* window = qobject_cast<QMainWindow*>(parentWidget());
  if (!window || window->toolBarArea(batchBar_) != Qt::TopToolBarArea ||
      window->toolBarArea(this) != window->toolBarArea(batchBar_))
    return;
  const int spacing = window->layout() ? std::max(0, window->layout()->spacing()) : 0;
  const int needed = sizeHint().width() + batchBar_->sizeHint().width() + spacing + kRowSlack;
  const bool twoRows = needed > window->width();
  if (twoRows == window->toolBarBreak(batchBar_)) return;
  if (twoRows)
    window->insertToolBarBreak(batchBar_);
  else
    window->removeToolBarBreak(batchBar_);
}

bool PipelineToolbar::eventFilter(QObject* watched, QEvent* event) {
  const bool bar = watched == this || watched == batchBar_;
  if ((bar && event->type() == QEvent::LayoutRequest) || (watched == parentWidget() && event->type() == QEvent::Resize))
    QMetaObject::invokeMethod(this, &PipelineToolbar::fitRows, Qt::QueuedConnection);
  return QToolBar::eventFilter(watched, event);
}

void PipelineToolbar::connectControls() {
  connect(collatorBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) session_->setCollator(collatorBox_->itemData(i).toString());
  });
  connect(templateBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
    QString spec = templateBox_->itemData(i).toString();
    if (spec == QLatin1String("@file")) {
      spec = QFileDialog::getOpenFileName(this, tr("Chat template"), {},
                                          tr("Templates (*.jinja tokenizer_config.json *.json)"));
      if (spec.isEmpty()) return sync();
    }
    session_->setTemplate(spec);
  });
  connect(batchSize_, &QSpinBox::valueChanged, this, [this](int rows) {
    session_->setBatchSize(rows);
    syncBatchTip(); // the user's choice now, not the config's
  });
  connect(framework_, &FrameworkPicker::presetChosen, this, [this] { session_->setCollator(lastPreset_); });
}

// Where Batch rows came from: the framework config (or its default), else the user.
void PipelineToolbar::syncBatchTip() {
  const QString source = session_->batchSizeSource();
  batchSize_->setToolTip(source.isEmpty() ? tr("Rows per batch (the batch the collator builds)")
                                          : tr("Rows per batch: %1").arg(source));
}

void PipelineToolbar::sync() {
  QSignalBlocker a(collatorBox_), b(templateBox_), c(batchSize_);
  batchSize_->setValue(session_->batchSize()); // a framework config sets its trainer's batch
  syncBatchTip();
  // A framework builds the batch: its picker says which; the preset box waits for "preset".
  collatorAction_->setVisible(!session_->isFramework());
  if (session_->isFramework()) return syncTemplate();
  const QString spec = session_->collatorSpec();
  lastPreset_ = spec;
  int i = collatorBox_->findData(spec);
  if (i < 0) {
    collatorBox_->addItem(tr("custom: %1").arg(spec), spec);
    i = collatorBox_->count() - 1;
  }
  collatorBox_->setCurrentIndex(i);
  collatorBox_->setToolTip(tr("Collator preset %1%2")
                               .arg(collatorBox_->currentText(),
                                    collatorBox_->itemData(i, Qt::ToolTipRole).isValid()
                                        ? QStringLiteral(": ") + collatorBox_->itemData(i, Qt::ToolTipRole).toString()
                                        : QString()));
  collatorBox_->setEnabled(!session_->isBatchDump());
  syncTemplate();
}

void PipelineToolbar::syncTemplate() {
  QSignalBlocker block(templateBox_);
  // A framework that renders with its own template (Axolotl's chat_template: chatml) says so here
  // instead of showing a template it does not use; the box is back once it renders with the toolbar's.
  const QString kOwn = QStringLiteral("@framework");
  if (const int old = templateBox_->findData(kOwn); old >= 0) templateBox_->removeItem(old);
  const FrameworkSpec* fw = session_->frameworkSpec();
  const QString own = fw ? frameworkOwnTemplateText(*fw) : QString();
  templateBox_->setEnabled(own.isEmpty());
  if (!own.isEmpty()) {
    // The value first ("chatml (axolotl)"): the compact box shows the start of its text, and the
    // template's name is what it is for; the option it comes from is in the tooltip.
    const QString option = own.section(QStringLiteral(" = "), 0, 0), value = own.section(QStringLiteral(" = "), 1);
    const QString shown = option == QLatin1String("chat_template_jinja") ? option : value;
    templateBox_->insertItem(0, tr("%1 (%2)").arg(shown, QString::fromStdString(fw->framework)), kOwn);
    templateBox_->setItemData(0,
                              tr("%1 renders with its own template (%2), not the toolbar's: change it in the "
                                 "Framework panel's options")
                                  .arg(QString::fromStdString(fw->framework), own),
                              Qt::ToolTipRole);
    templateBox_->setCurrentIndex(0);
    templateBox_->setToolTip(templateBox_->itemData(0, Qt::ToolTipRole).toString());
    return;
  }
  int t = templateBox_->findData(session_->templateSpec());
  if (t < 0) {
    templateBox_->insertItem(templateBox_->count() - 1, QFileInfo(session_->templateSpec()).fileName(),
                             session_->templateSpec());
    t = templateBox_->count() - 2;
  }
  templateBox_->setCurrentIndex(t);
  templateBox_->setToolTip(tr("Chat template: %1").arg(templateBox_->currentText()));
}

} // namespace maskscope

// Builds the pipeline pickers from core's lists (built-in templates, collator presets with their
// meaning as tooltips) and keeps them and the session in step.
#include "ui/shell/PipelineToolbar.h"
#include "core/collate/CollatorSpec.h"
#include "core/frameworks/FrameworkSpec.h"
#include "core/template/ChatTemplate.h"
#include "ui/shell/Session.h"
#include "ui/widgets/FrameworkPicker.h"
#include "ui/widgets/FrameworkSpecEdit.h"
#include "ui/widgets/TokenizerPicker.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QSpinBox>

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
  addWidget(templateBox_);
  addWidget(new QLabel(tr("  Collator "), this));
  collatorBox_ = new QComboBox(this);
  for (const auto& p : collatorPresets()) {
    collatorBox_->addItem(QString::fromStdString(p.name) + (p.buggy ? tr("  (bug)") : QString()),
                          QString::fromStdString(p.name));
    collatorBox_->setItemData(collatorBox_->count() - 1, QString::fromStdString(p.mirrors), Qt::ToolTipRole);
  }
  collatorBox_->setMinimumContentsLength(18);
  framework_ = new FrameworkPicker(session_, this);
  addWidget(framework_);
  collatorAction_ = addWidget(collatorBox_);
  addWidget(new QLabel(tr("  Batch rows "), this));
  batchSize_ = new QSpinBox(this);
  batchSize_->setRange(1, 64);
  batchSize_->setValue(session_->batchSize());
  addWidget(batchSize_);
  connectControls();
  connect(session_, &Session::pipelineChanged, this, &PipelineToolbar::sync);
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
  connect(batchSize_, &QSpinBox::valueChanged, session_, &Session::setBatchSize);
  connect(framework_, &FrameworkPicker::presetChosen, this, [this] { session_->setCollator(lastPreset_); });
}

void PipelineToolbar::sync() {
  QSignalBlocker a(collatorBox_), b(templateBox_);
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
  const QString own = fw ? frameworkOwnTemplate(*fw) : QString();
  templateBox_->setEnabled(own.isEmpty());
  if (!own.isEmpty()) {
    templateBox_->insertItem(0, tr("%1: %2").arg(QString::fromStdString(fw->framework), own), kOwn);
    templateBox_->setItemData(0,
                              tr("%1 renders with its own template (%2), not the toolbar's: change it in the "
                                 "Framework panel's options")
                                  .arg(QString::fromStdString(fw->framework), own),
                              Qt::ToolTipRole);
    templateBox_->setCurrentIndex(0);
    return;
  }
  int t = templateBox_->findData(session_->templateSpec());
  if (t < 0) {
    templateBox_->insertItem(templateBox_->count() - 1, QFileInfo(session_->templateSpec()).fileName(),
                             session_->templateSpec());
    t = templateBox_->count() - 2;
  }
  templateBox_->setCurrentIndex(t);
}

} // namespace maskscope

// Framework picker: the registry's frameworks and versions; a pick becomes a framework spec that the
// session builds the framework's batch from, or is refused there (and the picker shows the session's again).
#include "ui/widgets/FrameworkPicker.h"
#include "core/frameworks/Framework.h"
#include "ui/shell/Session.h"
#include "ui/widgets/FrameworkSpecEdit.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QToolButton>

namespace maskscope {

FrameworkPicker::FrameworkPicker(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  setObjectName(QStringLiteral("frameworkPicker"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  framework_ = new QComboBox(this);
  framework_->setObjectName(QStringLiteral("frameworkBox"));
  framework_->setToolTip(tr("Whose batch to show: maskscope's collator presets, or the batch a training framework "
                            "builds from the rows (its own dataset preparation and collator, version by version)"));
  framework_->addItem(tr("preset"), QString());
  for (const FrameworkDefinition& d : frameworkDefinitions())
    framework_->addItem(QString::fromStdString(d.info.title), QString::fromStdString(d.info.name));
  version_ = new QComboBox(this);
  version_->setObjectName(QStringLiteral("frameworkVersionBox"));
  version_->setToolTip(tr("The framework version whose behaviour is reproduced"));
  options_ = new QToolButton(this);
  options_->setObjectName(QStringLiteral("frameworkOptionsButton"));
  options_->setText(tr("Options\u2026"));
  options_->setToolTip(tr("The framework's collator and options, with its own names and defaults"));
  batch_ = new QToolButton(this);
  batch_->setText(tr("batch"));
  batch_->setToolTip(tr("The row list shows the dataset's rows; the views show the collator's batch"));
  prepared_ = new QToolButton(this);
  prepared_->setText(tr("prepared"));
  prepared_->setToolTip(tr("The row list shows the rows after the framework's dataset preparation (truncation, "
                           "dropping, packing): select one to see its columns in the Framework view"));
  auto* stage = new QButtonGroup(this);
  for (QToolButton* b : {batch_, prepared_}) {
    b->setCheckable(true);
    b->setAutoRaise(true);
    stage->addButton(b);
  }
  for (QWidget* w : std::initializer_list<QWidget*>{framework_, version_, options_, batch_, prepared_})
    layout->addWidget(w);
  connect(framework_, &QComboBox::activated, this, &FrameworkPicker::chooseFramework);
  connect(version_, &QComboBox::activated, this, &FrameworkPicker::chooseVersion);
  connect(options_, &QToolButton::clicked, this, &FrameworkPicker::optionsRequested);
  connect(batch_, &QToolButton::clicked, this, [this] { session_->setStage(Session::Stage::Batch); });
  connect(prepared_, &QToolButton::clicked, this, [this] { session_->setStage(Session::Stage::Prepared); });
  connect(session_, &Session::pipelineChanged, this, &FrameworkPicker::sync);
  connect(session_, &Session::rowsChanged, this, &FrameworkPicker::sync);
  sync();
}

void FrameworkPicker::chooseFramework(int index) {
  const QString name = framework_->itemData(index).toString();
  const FrameworkSpec* current = session_->frameworkSpec();
  if (name.isEmpty()) {
    if (current) Q_EMIT presetChosen();
  } else if (!current || QString::fromStdString(current->framework) != name) {
    session_->setCollator(frameworkSpecFor(name));
  }
  sync(); // refused or not, the picker shows what the session uses
}

void FrameworkPicker::chooseVersion(int index) {
  const FrameworkSpec* current = session_->frameworkSpec();
  const QString version = version_->itemData(index).toString();
  if (current && QString::fromStdString(current->version) != version)
    session_->setCollator(frameworkSpecWith(*current, "version", version.toStdString()));
  sync();
}

void FrameworkPicker::sync() {
  QSignalBlocker a(framework_), b(version_);
  const FrameworkSpec* spec = session_->frameworkSpec();
  const QString name = spec ? QString::fromStdString(spec->framework) : QString();
  framework_->setCurrentIndex(std::max(0, framework_->findData(name)));
  version_->clear();
  if (spec)
    for (const VersionInfo& v : spec->definition->info.versions)
      version_->addItem(QString::fromStdString(v.version), QString::fromStdString(v.version));
  if (spec) version_->setCurrentIndex(std::max(0, version_->findData(QString::fromStdString(spec->version))));
  for (QWidget* w : std::initializer_list<QWidget*>{version_, options_, batch_, prepared_})
    w->setVisible(spec != nullptr);
  batch_->setChecked(session_->stage() == Session::Stage::Batch);
  prepared_->setChecked(session_->stage() == Session::Stage::Prepared);
  if (spec)
    framework_->setToolTip(
        tr("%1 (from %2)").arg(QString::fromStdString(spec->describe()), QString::fromStdString(spec->source)));
}

} // namespace maskscope

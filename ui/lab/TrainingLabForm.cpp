// The lab's settings row (see TrainingLabForm.h). The experiment list is train-ab's own table
// (trainExperiments()); the hand-picked collators offer every collator preset and accept any spec.
#include "ui/lab/TrainingLabForm.h"
#include "core/collate/CollatorSpec.h"
#include "core/train/TrainExperiments.h"
#include "core/util/Error.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace maskscope {

namespace {
QSpinBox* spinBox(int low, int high, int value, const QString& name) {
  auto* box = new QSpinBox;
  box->setRange(low, high);
  box->setValue(value);
  box->setObjectName(name);
  return box;
}
} // namespace

TrainingLabForm::TrainingLabForm(QWidget* parent) : QWidget(parent) {
  experiment_ = new QComboBox;
  experiment_->setObjectName(QStringLiteral("experiment"));
  for (const TrainExperiment& e : trainExperiments())
    experiment_->addItem(QString::fromStdString(e.name), QString::fromStdString(e.name));
  experiment_->addItem(tr("two collators by hand"), QString::fromLatin1(kCustom));
  for (int r = 0; r < 2; ++r) {
    collator_[r] = new QComboBox;
    collator_[r]->setEditable(true); // any spec: "preset,key=value,..." or a JSON file
    collator_[r]->setObjectName(r == 0 ? QStringLiteral("collatorA") : QStringLiteral("collatorB"));
    for (const CollatorPreset& p : collatorPresets()) collator_[r]->addItem(QString::fromStdString(p.name));
    collator_[r]->setMinimumContentsLength(10);
  }
  const TrainArgs defaults;
  steps_ = spinBox(1, 100000, int(kDefaultTrainSteps), QStringLiteral("steps"));
  seed_ = spinBox(0, 1 << 30, int(defaults.seed), QStringLiteral("seed"));
  evalEvery_ = spinBox(1, 100000, int(defaults.evalEvery), QStringLiteral("evalEvery"));
  start_ = new QPushButton(tr("Start"));
  cancel_ = new QPushButton(tr("Cancel"));
  lookFor_ = new QLabel;
  lookFor_->setWordWrap(true);
  // Two rows of their own (not one grid), so the panel fits beside the others in a 700 px wide dock:
  // what to train, then how long and the buttons; then what to look for.
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  const std::pair<QString, QWidget*> rows[2][3] = {
      {{tr("Experiment"), experiment_}, {tr("A"), collator_[0]}, {tr("B"), collator_[1]}},
      {{tr("Steps"), steps_}, {tr("Seed"), seed_}, {tr("Held-out every"), evalEvery_}}};
  for (int row = 0; row < 2; ++row) {
    auto* line = new QHBoxLayout;
    for (const auto& [label, w] : rows[row]) {
      line->addWidget(new QLabel(label));
      line->addWidget(w, 1);
    }
    if (row == 1) {
      line->addWidget(start_);
      line->addWidget(cancel_);
    }
    column->addLayout(line);
  }
  column->addWidget(lookFor_);
  connect(experiment_, &QComboBox::currentIndexChanged, this, &TrainingLabForm::experimentChanged);
  connect(start_, &QPushButton::clicked, this, &TrainingLabForm::startRequested);
  connect(cancel_, &QPushButton::clicked, this, &TrainingLabForm::cancelRequested);
  experimentChanged();
  setRunning(false);
}

void TrainingLabForm::experimentChanged() {
  const QString name = experiment();
  const bool custom = name == QLatin1String(kCustom);
  for (int r = 0; r < 2; ++r) collator_[r]->setEnabled(custom);
  for (const TrainExperiment& e : trainExperiments()) {
    if (QString::fromStdString(e.name) != name) continue;
    collator_[0]->setCurrentText(QString::fromStdString(e.collatorA));
    collator_[1]->setCurrentText(QString::fromStdString(e.collatorB));
    lookFor_->setText(tr("What to look for: %1.").arg(QString::fromStdString(e.lookFor)));
  }
  if (custom) lookFor_->setText(tr("Two collators of your choice: compare the two runs' curves and generations."));
}

QString TrainingLabForm::experiment() const { return experiment_->currentData().toString(); }
QString TrainingLabForm::lookFor() const { return lookFor_->text(); }

bool TrainingLabForm::selectExperiment(const QString& name) {
  const int i = experiment_->findData(name);
  if (i < 0) return false;
  experiment_->setCurrentIndex(i);
  return true;
}

void TrainingLabForm::setCollators(const QString& a, const QString& b) {
  selectExperiment(QString::fromLatin1(kCustom));
  collator_[0]->setCurrentText(a);
  collator_[1]->setCurrentText(b);
}

void TrainingLabForm::setSteps(int steps) { steps_->setValue(steps); }
void TrainingLabForm::setEvalEvery(int every) { evalEvery_->setValue(every); }

TrainArgs TrainingLabForm::args() const {
  TrainArgs a;
  if (experiment() == QLatin1String(kCustom)) {
    a.collatorA = collator_[0]->currentText().trimmed().toStdString();
    a.collatorB = collator_[1]->currentText().trimmed().toStdString();
    if (a.collatorA.empty() || a.collatorB.empty()) throw Error("pick a collator for both runs");
  } else {
    a.experiment = experiment().toStdString();
  }
  a.steps = steps_->value();
  a.seed = uint64_t(seed_->value());
  a.evalEvery = evalEvery_->value();
  return a;
}

void TrainingLabForm::setRunning(bool running) {
  for (QWidget* w : {static_cast<QWidget*>(experiment_), static_cast<QWidget*>(steps_), static_cast<QWidget*>(seed_),
                     static_cast<QWidget*>(evalEvery_)})
    w->setEnabled(!running);
  const bool custom = experiment() == QLatin1String(kCustom);
  for (int r = 0; r < 2; ++r) collator_[r]->setEnabled(!running && custom);
  start_->setEnabled(!running);
  cancel_->setEnabled(running);
}

} // namespace maskscope

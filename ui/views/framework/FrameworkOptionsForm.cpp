// Framework options form: editors generated from the registry's option kinds, values from the
// session's spec, edits sent back as a new spec (frameworkSpecWith) and refusals shown in place.
#include "ui/views/framework/FrameworkOptionsForm.h"
#include "core/frameworks/Framework.h"
#include "core/util/JsonParse.h"
#include "ui/shell/Session.h"
#include "ui/widgets/FrameworkSpecEdit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

namespace maskscope {

namespace {

QString shown(const OrderedJson& v) {
  if (v.is_null()) return QStringLiteral("None");
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  return QString::fromStdString(v.dump());
}

QString forKey(const FrameworkSpec* spec) {
  if (!spec) return {};
  return QString::fromStdString(spec->framework + "\n" + spec->version + "\n" + spec->collator + "\n" + spec->type);
}

int clampInt(int64_t v) { return int(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)); }

} // namespace

FrameworkOptionsForm::FrameworkOptionsForm(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  setObjectName(QStringLiteral("frameworkOptionsForm"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  message_ = new QLabel(this);
  message_->setObjectName(QStringLiteral("frameworkOptionsMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->hide();
  layout->addWidget(message_);
  form_ = new QFormLayout;
  form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  layout->addLayout(form_);
  layout->addStretch(1);
  connect(session_, &Session::errorOccurred, this, [this](const QString& m) { lastError_ = m; });
  connect(session_, &Session::pipelineChanged, this, [this] {
    if (forKey(session_->frameworkSpec()) != builtFor_)
      rebuild();
    else
      syncValues();
  });
  rebuild();
}

QString FrameworkOptionsForm::message() const { return message_->isHidden() ? QString() : message_->text(); }

void FrameworkOptionsForm::rebuild() {
  // Rows go away after the current event: an editor may be the sender of the change that got here.
  while (form_->rowCount() > 0) {
    const QFormLayout::TakeRowResult r = form_->takeRow(0);
    for (QLayoutItem* item : {r.labelItem, r.fieldItem}) {
      if (!item) continue;
      if (QWidget* w = item->widget()) {
        w->hide();
        w->deleteLater();
      }
      delete item;
    }
  }
  editors_.clear();
  labels_.clear();
  collator_ = type_ = nullptr;
  const FrameworkSpec* spec = session_->frameworkSpec();
  builtFor_ = forKey(spec);
  if (!spec) return;
  collator_ = new QComboBox(this);
  collator_->setObjectName(QStringLiteral("frameworkCollatorBox"));
  for (const CollatorInfo& c : spec->versionInfo->collators) {
    collator_->addItem(QString::fromStdString(c.name), QString::fromStdString(c.name));
    collator_->setItemData(collator_->count() - 1, QString::fromStdString(c.summary), Qt::ToolTipRole);
  }
  connect(collator_, &QComboBox::activated, this,
          [this](int i) { apply("collator", collator_->itemData(i).toString().toStdString()); });
  form_->addRow(tr("collator"), collator_);
  const FrameworkInfo& info = spec->definition->info;
  if (!info.typeKey.empty()) {
    type_ = new QComboBox(this);
    for (const std::string& t : info.typeValues) type_->addItem(QString::fromStdString(t));
    connect(type_, &QComboBox::activated, this,
            [this, key = info.typeKey](int i) { apply(key, type_->itemText(i).toStdString()); });
    form_->addRow(QString::fromStdString(info.typeKey), type_);
  }
  for (const OptionInfo& o : spec->collatorInfo->options) {
    if (o.kind == OptionKind::Ignored) continue; // accepted from config files, no effect on the batch
    QWidget* editor = makeEditor(o);
    const QString name = QString::fromStdString(o.name);
    editor->setObjectName(QStringLiteral("option:") + name);
    const QString tip =
        tr("%1\n%2; default: %3")
            .arg(QString::fromStdString(o.help), QString::fromLatin1(optionKindName(o.kind)), shown(o.defaultValue));
    editor->setToolTip(tip);
    auto* label = new QLabel(name, this);
    label->setToolTip(tip);
    form_->addRow(label, editor);
    editors_.insert(name, editor);
    labels_.insert(name, label);
  }
  // Shown now, not by the layout's queued call: until then a row counts for nothing in the form's
  // size, and the Framework view sizes the form's side of its splitter from that (a form of ~25 px,
  // labels cut and no fields, when a framework was picked with the window on screen).
  for (int r = 0; r < form_->rowCount(); ++r)
    for (QFormLayout::ItemRole role : {QFormLayout::LabelRole, QFormLayout::FieldRole})
      if (QLayoutItem* item = form_->itemAt(r, role); item && item->widget()) item->widget()->show();
  syncValues();
}

QWidget* FrameworkOptionsForm::makeEditor(const OptionInfo& o) {
  const std::string name = o.name;
  switch (o.kind) {
  case OptionKind::Bool: {
    auto* box = new QCheckBox(this);
    connect(box, &QCheckBox::toggled, this, [this, name](bool on) { apply(name, on); });
    return box;
  }
  case OptionKind::Int: {
    auto* spin = new QSpinBox(this);
    spin->setRange(clampInt(o.min), clampInt(o.max));
    spin->setKeyboardTracking(false); // one change when the typing is done, not one per digit
    connect(spin, &QSpinBox::valueChanged, this, [this, name](int v) { apply(name, v); });
    return spin;
  }
  case OptionKind::Choice: {
    auto* box = new QComboBox(this);
    for (const std::string& c : o.choices) box->addItem(QString::fromStdString(c));
    connect(box, &QComboBox::activated, this,
            [this, name, box](int i) { apply(name, box->itemText(i).toStdString()); });
    return box;
  }
  default: {
    auto* edit = new QLineEdit(this);
    edit->setPlaceholderText(tr("%1 (default)").arg(shown(o.defaultValue)));
    connect(edit, &QLineEdit::editingFinished, this, [this, name, edit] {
      const FrameworkSpec* spec = session_->frameworkSpec();
      const OptionInfo* info = spec ? frameworkOption(*spec, name) : nullptr;
      if (!info || syncing_) return;
      OrderedJson value;
      QString why;
      if (!editorValue(edit, *info, &value, &why)) {
        message_->setText(tr("%1: %2").arg(QString::fromStdString(name), why));
        message_->show();
        return;
      }
      apply(name, value);
    });
    return edit;
  }
  }
}

void FrameworkOptionsForm::setEditorValue(QWidget* editor, const OptionInfo& o, const OrderedJson& v) {
  if (auto* box = qobject_cast<QCheckBox*>(editor)) {
    box->setChecked(v.is_boolean() && v.get<bool>());
  } else if (auto* spin = qobject_cast<QSpinBox*>(editor)) {
    if (v.is_number_integer()) spin->setValue(clampInt(v.get<int64_t>()));
  } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    combo->setCurrentIndex(std::max(0, combo->findText(shown(v))));
  } else if (auto* edit = qobject_cast<QLineEdit*>(editor)) {
    // The default shows as the placeholder; a value equal to it is written out only when the spec set it.
    edit->setText(v.is_null() || (v == o.defaultValue && !session_->frameworkSpec()->isGiven(o.name)) ? QString()
                                                                                                      : shown(v));
  }
}

bool FrameworkOptionsForm::editorValue(QWidget* editor, const OptionInfo& o, OrderedJson* value, QString* why) const {
  const QString text = static_cast<QLineEdit*>(editor)->text().trimmed();
  if (text.isEmpty()) {
    *value = o.defaultValue; // an emptied field goes back to the default
    return true;
  }
  if (text == QLatin1String("None") || text == QLatin1String("null")) {
    *value = nullptr;
    return true;
  }
  const std::string s = text.toStdString();
  switch (o.kind) {
  case OptionKind::OptionalInt: {
    bool ok = false;
    const qlonglong n = text.toLongLong(&ok);
    if (!ok) *why = tr("an integer, or empty for the default");
    *value = int64_t(n);
    return ok;
  }
  case OptionKind::String:
  case OptionKind::OptionalString:
    *value = s;
    return true;
  case OptionKind::IdsOrString:
    if (!s.starts_with("[")) {
      *value = s; // a marker text, tokenized with the tokenizer
      return true;
    }
    [[fallthrough]];
  default: {
    std::string error;
    *value = parseOrderedJsonOrExplain(s, &error);
    // A bare word (train_on_eos: all) is the string the framework's own YAML/JSON would hold; the
    // framework checks it. Text that starts like JSON and does not parse is refused here.
    const bool looksLikeJson = s.find_first_of("[{\"") == 0;
    if (!error.empty() && !looksLikeJson) {
      *value = s;
      return true;
    }
    if (!error.empty()) *why = tr("not a JSON value (%1)").arg(QString::fromStdString(error));
    return error.empty();
  }
  }
}

void FrameworkOptionsForm::syncValues() {
  const FrameworkSpec* spec = session_->frameworkSpec();
  if (!spec) return;
  syncing_ = true;
  if (collator_) {
    QSignalBlocker b(collator_);
    collator_->setCurrentIndex(std::max(0, collator_->findData(QString::fromStdString(spec->collator))));
  }
  if (type_) {
    QSignalBlocker b(type_);
    type_->setCurrentIndex(std::max(0, type_->findText(QString::fromStdString(spec->type))));
  }
  for (const OptionInfo& o : spec->collatorInfo->options) {
    QWidget* editor = editors_.value(QString::fromStdString(o.name));
    if (!editor) continue;
    QSignalBlocker b(editor);
    setEditorValue(editor, o, spec->options[o.name]);
    QLabel* label = labels_.value(QString::fromStdString(o.name));
    QFont f = label->font();
    f.setBold(spec->isGiven(o.name)); // set by the spec, not the framework's default
    label->setFont(f);
  }
  syncing_ = false;
}

void FrameworkOptionsForm::apply(const std::string& key, const OrderedJson& value) {
  const FrameworkSpec* spec = session_->frameworkSpec();
  if (!spec || syncing_) return;
  if (spec->options.contains(key) && spec->options[key] == value) return; // nothing changed
  if ((key == "collator" && spec->collator == value) || (key == spec->definition->info.typeKey && spec->type == value))
    return;
  lastError_.clear();
  const QString previous = session_->collatorSpec();
  const bool hadRows = session_->preparedFramework() != nullptr;
  if (session_->setCollator(frameworkSpecWith(*spec, key, value))) {
    // The framework refuses some values only when it prepares the rows (TRL's shuffle_dataset):
    // refused as well, and the spec that prepared them is back.
    if (!hadRows || session_->preparedFramework()) {
      message_->hide();
      return;
    }
    lastError_ = session_->frameworkError();
    session_->setCollator(previous);
  }
  message_->setText(tr("Refused: %1").arg(lastError_));
  message_->show();
  syncValues(); // the editors show what the session uses
}

} // namespace maskscope

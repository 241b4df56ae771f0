// The framework's options as a form generated from its registry entry (core/frameworks
// FrameworkInfo): the collator (and Axolotl's type), then one editor per option of that collator,
// labelled with the framework's own name, its help as tooltip and its default shown. An edit becomes
// a new framework spec for the session; a value the framework refuses is reported and the editor
// shows the session's value again. Options set by the spec are marked bold.
#pragma once
#include "core/frameworks/FrameworkInfo.h"

#include <QHash>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QLabel;

namespace maskscope {

class Session;

class FrameworkOptionsForm : public QWidget {
  Q_OBJECT
public:
  explicit FrameworkOptionsForm(Session* session, QWidget* parent = nullptr);

  // The editor of option `name` (QCheckBox, QSpinBox, QComboBox or QLineEdit), nullptr when the
  // framework's collator has no such option.
  QWidget* editor(const QString& name) const { return editors_.value(name); }
  QComboBox* collatorBox() const { return collator_; }
  QComboBox* typeBox() const { return type_; }
  QString message() const; // the last refusal, "" when none
  QStringList optionNames() const { return editors_.keys(); }

private:
  void rebuild(); // the framework, version or collator changed: new editors
  void syncValues();
  QWidget* makeEditor(const OptionInfo& o);
  void setEditorValue(QWidget* editor, const OptionInfo& o, const OrderedJson& value);
  // The value an editor holds as JSON; false with *why when the text is not a value of that kind.
  bool editorValue(QWidget* editor, const OptionInfo& o, OrderedJson* value, QString* why) const;
  void apply(const std::string& key, const OrderedJson& value);

  Session* session_;
  QFormLayout* form_ = nullptr;
  QLabel* message_ = nullptr;
  QComboBox* collator_ = nullptr;
  QComboBox* type_ = nullptr;
  QHash<QString, QWidget*> editors_;
  QHash<QString, QLabel*> labels_;
  QString builtFor_; // framework, version, collator and type the editors were made for
  QString lastError_;
  bool syncing_ = false;
};

} // namespace maskscope

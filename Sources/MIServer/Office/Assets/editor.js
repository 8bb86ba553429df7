// The template editor of the MI office. Plain JavaScript, loaded from /static (the pages'
// Content-Security-Policy forbids inline script and style). It keeps the draft in `state`,
// draws it, and after every change (debounced) posts it to /templates/check, which answers
// with the problems MIKit finds and the preview `mi fill` would show. The JSON it sends uses the
// key names the server's Config.plist TemplateKeys give (from #editor's data-keys).
//
// What a question type's settings are, and how each is edited, comes from the server's registry
// (MIKit's QuestionTypes, each type's `editorFields`): every key with the kind of input it needs —
// a checkbox (flag), a number, a whole number, a line or lines of text, an ISO date, time or
// date-time typed as text, a choice among values — or one of the structured editors (options;
// a table's rows, columns and no-value cells). Scalar keys are drawn and sent the same way
// whatever the type, so a new type appears here with all its keys without a change to this file.
// The template's own keys (one form per technician, scoring, consent, …) come the same way from
// data-template-fields. The form-logic keys (relevance, constraint, required, calculation, …)
// come with each type as its `logic` fields (MIKit's QuestionLogic.editorFields) and are drawn
// the same way, under a "Form logic" heading: an expression is a line of text, a condition is
// `true`, `false` (sent as booleans) or an expression; /templates/check parses them with the
// same parser as mi and names a bad one, with its position, beside its input.
// Groups and repeats come the same way (data-groups: each kind with its menu label and its
// fields — a label, a relevance, a repeat's count typed as a number or an expression): the
// draft nests them as the template format does, a group's questions in its own `questions`.
// Questions and groups are added inside a group, moved up and down within theirs, out of it
// (after it) or into the group just above; removing a group (with its questions) asks first.
// New ids are unique across questions and groups, and the check names any that is not.
// Keys the editor does not edit (a question's picture, say) are kept as
// they were loaded and sent back unchanged.
//
// A table's rows and columns are lists of labels, one input each (a label may hold a comma),
// and its no-value cells are kept by the row and the column they belong to — not by position —
// so inserting, removing or moving a row or a column keeps every red cell where it was. The
// positions the server's `noCells` takes are computed only when the draft is sent.
"use strict";

(function () {
  const editor = document.getElementById("editor");
  if (!editor) { return; }
  const keys = JSON.parse(editor.dataset.keys || "{}");
  const key = (name) => keys[name] || name;
  const logicalName = {};
  Object.keys(keys).forEach((name) => { logicalName[keys[name]] = name; });
  const csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  // The question types as the server's registry lists them (MIKit's QuestionTypes): each its
  // menu label and its settings as fields (key, input, caption). The editor draws a setting by
  // its input, never by the type's name or the key's.
  const typeList = JSON.parse(editor.dataset.types || "[]");
  const templateFields = JSON.parse(editor.dataset.templateFields || "[]");
  // The kinds of group (a group, a repeat), each its label and its fields, from the server.
  const groupKinds = JSON.parse(editor.dataset.groups || "[]");
  const groupNames = {};
  const groupFields = {};
  groupKinds.forEach((entry) => {
    groupNames[entry.kind] = entry.label;
    groupFields[entry.kind] = entry.fields || [];
  });
  const typeNames = {};
  const typeFields = {};
  const logicFields = {};
  typeList.forEach((entry) => {
    typeNames[entry.type] = entry.label;
    typeFields[entry.type] = entry.fields || [];
    logicFields[entry.type] = entry.logic || [];
  });
  // A question's settings: its type's, then its form logic's.
  const fieldsOf = (question) => (typeFields[question.type] || []).concat(logicFields[question.type] || []);
  const firstLogicField = (question) => (logicFields[question.type] || [])[0];
  // The field of a structured editor (options, rows, columns, cells) the question's type has.
  const structured = (question, input) => fieldsOf(question).find((field) => field.input === input);
  const scalarInputs = ["flag", "number", "wholeNumber", "text", "longText", "date", "time", "dateTime", "choice",
    "expression", "condition", "count"];
  const isScalar = (field) => scalarInputs.indexOf(field.input) >= 0;
  // The class of a key's input: `maxAnswers` → q-max-answers.
  const kebab = (name) => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  // A question of a type the server no longer lists is edited as the first type without settings.
  const plainType = (typeList.find((entry) => entry.keys.length === 0) || typeList[0] || { type: "" }).type;
  const questionsBox = document.getElementById("questions");
  const problemsList = document.getElementById("problems");
  const noProblems = document.getElementById("no-problems");
  const preview = document.getElementById("preview");
  const publishResult = document.getElementById("publish-result");
  const publishButton = document.getElementById("publish");
  const confirmBox = document.getElementById("publish-confirm");
  const confirmText = document.getElementById("publish-confirm-text");
  const idInput = document.getElementById("template-id");
  const titleInput = document.getElementById("template-title");
  const settingsBox = document.getElementById("template-settings");

  // The template the editor was opened from ("" for a new one): a draft may become its next
  // version, never, by its id, a version of another template (the server checks it too).
  let basedOn = editor.dataset.basedOn || "";
  // `settings` holds the template's own editable keys by logical name, `extra` the keys it does
  // not edit (by JSON name), sent back as they came.
  // `items` are the template's questions and groups in order; a group (`isGroup`) holds its own
  // `items`.
  const state = { id: "", title: "", items: [], settings: {}, extra: {} };
  // The draft as last loaded or published: leaving the page with another one asks first.
  let saved = "";
  let nextKey = 1;
  const newKey = () => "k" + (nextKey++);

  function label(text) { return { key: newKey(), label: text }; }

  // An option of a multiple-choice question: its label and, when it differs, the name answers
  // store ("" = the label is the name). `attributes` are the option's other keys (those a choice
  // filter reads, `region` say), not edited here and sent back as they came.
  function option(text, name, attributes) { return { label: text, name: name || "", attributes: attributes || {} }; }

  // An option's keys other than its name and label.
  function attributesOf(entry) {
    const rest = {};
    Object.keys(entry).forEach((name) => { if (name !== key("name") && name !== key("label")) { rest[name] = entry[name]; } });
    return rest;
  }

  // An empty scalar value of `field`: false for a flag, "" for the rest.
  const emptyValue = (field) => (field.input === "flag" ? false : "");

  // Gives `question` what its type needs, keeping what another type left (switching back finds
  // it, and a key two types share — min, max — keeps its value). Scalar values are kept in
  // `question.values` by the key's logical name.
  function shape(question) {
    if (!question.values) { question.values = {}; }
    if (!question.extra) { question.extra = {}; }
    fieldsOf(question).forEach((field) => {
      if (field.input === "options" && !question.options) { question.options = [option(""), option("")]; }
      if (field.input === "rows" && !question.rows) { question.rows = [label("Row 1"), label("Row 2")]; }
      if (field.input === "columns" && !question.columns) { question.columns = [label("Column 1"), label("Column 2")]; }
      if (field.input === "cells" && !question.noCells) { question.noCells = new Set(); }
      if (isScalar(field) && question.values[field.key] === undefined) { question.values[field.key] = emptyValue(field); }
    });
    return question;
  }

  // A scalar value as the server's JSON, or undefined to leave the key out: a flag only when
  // ticked; a number as a number (what is not one goes as typed, for the check to name it);
  // texts trimmed, a long text as typed; empty ones left out.
  function scalarJSON(field, value) {
    if (field.input === "flag") { return value === true ? true : undefined; }
    const text = String(value === undefined || value === null ? "" : value);
    if (text.trim() === "") { return undefined; }
    if (field.input === "number" || field.input === "wholeNumber" || field.input === "count") { return numberOrText(text); }
    if (field.input === "condition" && (text.trim() === "true" || text.trim() === "false")) { return text.trim() === "true"; }
    return field.input === "longText" ? text : text.trim();
  }

  // A stored value back into its input: a flag is ticked only by true; other values as text.
  function scalarValue(field, json) {
    if (field.input === "flag") { return json === true; }
    if (json === undefined || json === null) { return ""; }
    return typeof json === "object" ? JSON.stringify(json) : String(json);
  }

  // Calls `visit(item, list, index, parent)` for every question and group, in order (`parent`
  // the group the item stands in, null at the top).
  function walk(visit, list, parent) {
    (list || state.items).forEach((item, index) => {
      visit(item, list || state.items, index, parent || null);
      if (item.isGroup) { walk(visit, item.items, item); }
    });
  }

  // `prefix` and the smallest number no question or group has as its id: q3, repeat1.
  function freshId(prefix) {
    const taken = new Set();
    walk((item) => taken.add(item.id));
    let number = 1;
    while (taken.has(prefix + number)) { number += 1; }
    return prefix + number;
  }

  function newQuestion(type) {
    return shape({ key: newKey(), id: freshId("q"), text: "", help: "", type: type });
  }

  const groupFieldsOf = (group) => groupFields[group.kind] || [];

  function shapeGroup(group) {
    groupFieldsOf(group).forEach((field) => {
      if (group.values[field.key] === undefined) { group.values[field.key] = emptyValue(field); }
    });
    return group;
  }

  // A new group or repeat, empty: the check asks for its first question.
  function newGroup(kind) {
    return shapeGroup({ key: newKey(), isGroup: true, kind: kind, id: freshId(kind), values: {}, items: [], extra: {} });
  }

  // The questions in `group`, its groups' included.
  function questionCount(group) {
    let count = 0;
    walk((item) => { if (!item.isGroup) { count += 1; } }, group.items, group);
    return count;
  }

  const cellKey = (row, column) => row.key + "|" + column.key;

  // MARK: - The draft as the server's JSON

  function numberOrText(text) {
    const trimmed = String(text).trim();
    const number = Number(trimmed);
    return trimmed !== "" && Number.isFinite(number) ? number : trimmed;
  }

  function draft() {
    const template = Object.assign({}, state.extra, {
      [key("id")]: state.id,
      [key("title")]: state.title,
    });
    templateFields.forEach((field) => {
      const value = scalarJSON(field, state.settings[field.key]);
      if (value !== undefined) { template[key(field.key)] = value; }
    });
    template[key("questions")] = state.items.map(itemJSON);
    return template;
  }

  const itemJSON = (item) => (item.isGroup ? groupJSON(item) : questionJSON(item));

  // A group as the template format nests it: its own keys, then its questions.
  function groupJSON(group) {
    const json = Object.assign({}, group.extra, { [key("id")]: group.id, [key("type")]: key(group.kind) });
    groupFieldsOf(group).forEach((field) => {
      const value = scalarJSON(field, group.values[field.key]);
      if (value !== undefined) { json[key(field.key)] = value; }
    });
    json[key("questions")] = group.items.map(itemJSON);
    return json;
  }

  function questionJSON(question) {
    const json = Object.assign({}, question.extra,
      { [key("id")]: question.id, [key("type")]: key(question.type), [key("text")]: question.text });
    if (question.help.trim() !== "") { json[key("help")] = question.help; }
    fieldsOf(question).forEach((field) => {
      const name = key(field.key);
      if (isScalar(field)) {
        const value = scalarJSON(field, question.values[field.key]);
        if (value !== undefined) { json[name] = value; }
      } else if (field.input === "options") {
        json[name] = question.options.map((choice) => {
          const attributes = choice.attributes || {};
          const plain = choice.name.trim() === "" || choice.name === choice.label;
          if (plain && Object.keys(attributes).length === 0) { return choice.label; }
          return Object.assign({}, attributes,
            { [key("name")]: plain ? choice.label : choice.name.trim(), [key("label")]: choice.label });
        });
      } else if (field.input === "rows") {
        json[name] = question.rows.map((row) => row.label.trim());
      } else if (field.input === "columns") {
        json[name] = question.columns.map((column) => column.label.trim());
      } else if (field.input === "cells") {
        const cells = [];
        question.rows.forEach((row, r) => question.columns.forEach((column, c) => {
          if (question.noCells.has(cellKey(row, column))) { cells.push([r, c]); }
        }));
        json[name] = cells;
      }
    });
    return json;
  }

  const snapshot = () => JSON.stringify(draft());
  const isDirty = () => snapshot() !== saved;

  // A template version as the server stores it, read back into the editor's state.
  function load(json) {
    const types = {};
    Object.keys(typeNames).forEach((type) => { types[key(type)] = type; });
    state.id = json[key("id")] || "";
    state.title = json[key("title")] || "";
    state.settings = {};
    state.extra = {};
    templateFields.forEach((field) => { state.settings[field.key] = scalarValue(field, json[key(field.key)]); });
    const handled = [key("id"), key("title"), key("version"), key("questions")].concat(templateFields.map((field) => key(field.key)));
    Object.keys(json).forEach((name) => { if (handled.indexOf(name) < 0) { state.extra[name] = json[name]; } });
    const kinds = {};
    Object.keys(groupNames).forEach((kind) => { kinds[key(kind)] = kind; });
    const read = (list) => (Array.isArray(list) ? list : []).map((item) => {
      if (item !== null && typeof item === "object" && kinds[item[key("type")]]) {
        const group = { key: newKey(), isGroup: true, kind: kinds[item[key("type")]], id: item[key("id")] || "", values: {}, extra: {} };
        const own = [key("id"), key("type"), key("questions")];
        groupFieldsOf(group).forEach((field) => {
          own.push(key(field.key));
          group.values[field.key] = scalarValue(field, item[key(field.key)]);
        });
        Object.keys(item).forEach((name) => { if (own.indexOf(name) < 0) { group.extra[name] = item[name]; } });
        group.items = read(item[key("questions")]);
        return shapeGroup(group);
      }
      return readQuestion(item || {});
    });
    const readQuestion = (item) => {
      const type = types[item[key("type")]] || plainType;
      const question = { key: newKey(), type: type, values: {}, extra: {} };
      question.id = item[key("id")] || "";
      question.text = item[key("text")] || "";
      question.help = item[key("help")] || "";
      const own = [key("id"), key("type"), key("text"), key("help")];
      fieldsOf(question).forEach((field) => {
        const value = item[key(field.key)];
        own.push(key(field.key));
        if (isScalar(field)) { question.values[field.key] = scalarValue(field, value); }
        if (field.input === "options") {
          question.options = (value || []).map((entry) =>
            entry !== null && typeof entry === "object"
              ? option(String(entry[key("label")] ?? ""), String(entry[key("name")] ?? ""), attributesOf(entry))
              : option(String(entry)));
        }
        if (field.input === "rows") { question.rows = (value || []).map((text) => label(String(text))); }
        if (field.input === "columns") { question.columns = (value || []).map((text) => label(String(text))); }
      });
      const cellsField = structured(question, "cells");
      if (cellsField && question.rows && question.columns) {
        question.noCells = new Set();
        (item[key(cellsField.key)] || []).forEach((cell) => {
          const row = question.rows[cell[0]];
          const column = question.columns[cell[1]];
          if (row && column) { question.noCells.add(cellKey(row, column)); }
        });
      }
      Object.keys(item).forEach((name) => { if (own.indexOf(name) < 0) { question.extra[name] = item[name]; } });
      return shape(question);
    };
    state.items = read(json[key("questions")]);
  }

  // MARK: - Drawing

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function button(className, text, title, action) {
    const node = element("button", className, text);
    node.type = "button";
    if (title) { node.title = title; node.setAttribute("aria-label", title); }
    node.addEventListener("click", action);
    return node;
  }

  function input(className, type) {
    const node = element("input", className);
    node.type = type || "text";
    node.autocomplete = "off";
    return node;
  }

  // A labelled input bound to `question[property]`.
  function field(container, caption, node, question, property) {
    container.appendChild(element("label", "", caption));
    container.appendChild(node);
    if (node.type === "checkbox") { node.checked = question[property]; } else { node.value = question[property]; }
    node.addEventListener(node.type === "checkbox" ? "change" : "input", () => {
      question[property] = node.type === "checkbox" ? node.checked : node.value;
      changed();
    });
    return node;
  }

  // Moves `list[index]` by `step` (-1 up, +1 down); false at either end.
  function shift(list, index, step) {
    const target = index + step;
    if (target < 0 || target >= list.length) { return false; }
    const moved = list.splice(index, 1)[0];
    list.splice(target, 0, moved);
    return true;
  }

  function drawGrid(question, holder) {
    holder.textContent = "";
    if (question.rows.length === 0 || question.columns.length === 0) { return; }
    const table = element("table", "q-grid");
    const head = element("tr");
    head.appendChild(element("th"));
    question.columns.forEach((column) => head.appendChild(element("th", "", column.label)));
    table.appendChild(head);
    question.rows.forEach((row, r) => {
      const line = element("tr");
      line.appendChild(element("th", "", row.label));
      question.columns.forEach((column, c) => {
        const cell = element("td", "cell");
        cell.dataset.row = String(r);
        cell.dataset.column = String(c);
        cell.tabIndex = 0;
        const id = cellKey(row, column);
        const paint = () => {
          const off = question.noCells.has(id);
          cell.classList.toggle("no-value", off);
          cell.title = (off ? "takes no value (click to allow a value)" : "takes a value (click to make it a no-value cell)")
            + " — " + row.label + " · " + column.label;
          cell.textContent = off ? "no value" : "";
        };
        paint();
        const toggle = () => {
          if (question.noCells.has(id)) { question.noCells.delete(id); } else { question.noCells.add(id); }
          paint();
          changed();
        };
        cell.addEventListener("click", toggle);
        cell.addEventListener("keydown", (event) => {
          if (event.key === " " || event.key === "Enter") { event.preventDefault(); toggle(); }
        });
        line.appendChild(cell);
      });
      table.appendChild(line);
    });
    holder.appendChild(table);
  }

  // The labels of a table's rows or columns: one input each, with insert, move and remove.
  function drawLabels(question, which, holder, grid) {
    const list = question[which];
    const noun = which === "rows" ? "row" : "column";
    const [before, after] = which === "rows" ? ["up", "down"] : ["left", "right"];
    holder.textContent = "";
    const redraw = () => { drawLabels(question, which, holder, grid); drawGrid(question, grid); changed(); };
    list.forEach((item, index) => {
      const line = element("div", "q-label-row");
      const box = input("q-" + noun);
      box.value = item.label;
      box.placeholder = (noun === "row" ? "Row " : "Column ") + (index + 1);
      box.setAttribute("aria-label", (noun === "row" ? "Row " : "Column ") + (index + 1));
      box.addEventListener("input", () => { item.label = box.value; drawGrid(question, grid); changed(); });
      line.appendChild(box);
      line.appendChild(button("secondary q-" + noun + "-insert", "+", "Insert a " + noun + " before this one", () => {
        list.splice(index, 0, label(""));
        redraw();
        holder.querySelectorAll("input.q-" + noun)[index].focus();
      }));
      line.appendChild(button("secondary q-" + noun + "-up", which === "rows" ? "↑" : "←", "Move this " + noun + " " + before, () => {
        if (shift(list, index, -1)) { redraw(); }
      }));
      line.appendChild(button("secondary q-" + noun + "-down", which === "rows" ? "↓" : "→", "Move this " + noun + " " + after, () => {
        if (shift(list, index, 1)) { redraw(); }
      }));
      line.appendChild(button("secondary q-" + noun + "-remove", "✕", "Remove this " + noun, () => {
        list.splice(index, 1);
        redraw();
      }));
      holder.appendChild(line);
    });
  }

  function drawOptions(question, holder) {
    holder.textContent = "";
    const redraw = () => { drawOptions(question, holder); changed(); };
    question.options.forEach((option, index) => {
      const row = element("div", "q-option-row");
      const box = input("q-option");
      box.value = option.label;
      box.placeholder = "Option " + (index + 1);
      box.setAttribute("aria-label", "Option " + (index + 1));
      box.addEventListener("input", () => { option.label = box.value; changed(); });
      row.appendChild(box);
      const name = input("q-option-name");
      name.value = option.name;
      name.placeholder = "name (optional)";
      name.title = "The name answers store and exports write (no spaces); empty: the label itself";
      name.setAttribute("aria-label", "Name of option " + (index + 1));
      name.addEventListener("input", () => { option.name = name.value; changed(); });
      row.appendChild(name);
      row.appendChild(button("secondary q-option-up", "↑", "Move this option up", () => {
        if (shift(question.options, index, -1)) { redraw(); }
      }));
      row.appendChild(button("secondary q-option-down", "↓", "Move this option down", () => {
        if (shift(question.options, index, 1)) { redraw(); }
      }));
      row.appendChild(button("secondary q-remove-option", "✕", "Remove this option", () => {
        question.options.splice(index, 1);
        redraw();
      }));
      holder.appendChild(row);
    });
  }

  // The input of one scalar setting, bound to `values[setting.key]`: a checkbox, a number, a
  // text (dates and times are typed as ISO text, the placeholder showing how), a text area or a
  // menu of the setting's choices. Its class is `className`, its data-key the key's logical name
  // (where a problem about the key is shown).
  function scalarField(container, setting, values, className, id) {
    let node;
    if (setting.input === "longText") {
      node = element("textarea", className);
    } else if (setting.input === "choice") {
      node = element("select", className);
      const current = String(values[setting.key] || "");
      const choices = [""].concat(setting.choices || []);
      // A stored value the server no longer offers stays selectable, for the check to name it.
      if (choices.indexOf(current) < 0) { choices.push(current); }
      choices.forEach((choice) => {
        const item = element("option", "", choice === "" ? "(none)" : choice);
        item.value = choice;
        node.appendChild(item);
      });
    } else {
      const kinds = { flag: "checkbox", number: "number", wholeNumber: "number" };
      node = input(className, kinds[setting.input] || "text");
      if (setting.input === "number") { node.step = "any"; }
      if (setting.input === "wholeNumber") { node.step = "1"; }
      if (["date", "time", "dateTime", "expression", "condition", "count"].indexOf(setting.input) >= 0) { node.spellcheck = false; }
      if (["expression", "condition", "count"].indexOf(setting.input) >= 0) { node.classList.add("q-expression"); }
    }
    if (setting.placeholder && node.type !== "checkbox") { node.placeholder = setting.placeholder; }
    node.dataset.key = setting.key;
    node.dataset.input = setting.input;
    if (id) { node.id = id; }
    const caption = element("label", "", setting.caption);
    if (id) { caption.htmlFor = id; }
    container.appendChild(caption);
    container.appendChild(node);
    if (node.type === "checkbox") { node.checked = values[setting.key] === true; } else { node.value = values[setting.key]; }
    node.addEventListener(node.type === "checkbox" || node.tagName === "SELECT" ? "change" : "input", () => {
      values[setting.key] = node.type === "checkbox" ? node.checked : node.value;
      changed();
    });
    return node;
  }

  function drawOptionsEditor(question, setting, fields) {
    const options = element("div", "q-options");
    fields.appendChild(element("label", "", setting.caption));
    const column = element("div", "q-options-holder");
    column.dataset.key = setting.key;
    column.appendChild(options);
    column.appendChild(button("secondary q-add-option", "Add option", "", () => {
      question.options.push(option(""));
      drawOptions(question, options);
      const boxes = options.querySelectorAll("input.q-option");
      boxes[boxes.length - 1].focus();
      changed();
    }));
    fields.appendChild(column);
    drawOptions(question, options);
  }

  // A table's rows, columns and no-value cells, edited together.
  function drawTableEditor(question, fields) {
    const grid = element("div", "q-grid-holder");
    const cells = structured(question, "cells");
    if (cells) { grid.dataset.key = cells.key; }
    for (const which of ["rows", "columns"]) {
      const setting = structured(question, which);
      const holder = element("div", "q-" + which);
      if (setting) { holder.dataset.key = setting.key; }
      const labels = element("div", "q-labels");
      holder.appendChild(labels);
      const noun = which === "rows" ? "row" : "column";
      holder.appendChild(button("secondary q-add-" + noun, "Add " + noun, "", () => {
        question[which].push(label(""));
        drawLabels(question, which, labels, grid);
        drawGrid(question, grid);
        const boxes = labels.querySelectorAll("input.q-" + noun);
        boxes[boxes.length - 1].focus();
        changed();
      }));
      fields.appendChild(element("label", "", setting ? setting.caption : (which === "rows" ? "Rows" : "Columns")));
      fields.appendChild(holder);
      drawLabels(question, which, labels, grid);
    }
    fields.appendChild(element("label", "", cells ? cells.caption : "Click a cell: no value"));
    fields.appendChild(grid);
    drawGrid(question, grid);
  }

  // The template's own settings, under its id and title.
  function drawSettings() {
    settingsBox.textContent = "";
    templateFields.forEach((setting) => {
      if (state.settings[setting.key] === undefined) { state.settings[setting.key] = emptyValue(setting); }
      scalarField(settingsBox, setting, state.settings, "template-setting", "template-" + kebab(setting.key));
    });
  }

  // Where an item stands: its list, its position there, and the group around it (with where
  // that group stands), so it can move within its list, out of its group or into the one above.
  function moveButtons(head, prefix, noun, item, where) {
    head.appendChild(button("secondary " + prefix + "-up", "↑", "Move this " + noun + " up", () => move(where, -1)));
    head.appendChild(button("secondary " + prefix + "-down", "↓", "Move this " + noun + " down", () => move(where, 1)));
    if (where.parent) {
      head.appendChild(button("secondary " + prefix + "-out", "⇱ Out", "Move this " + noun + " out of " + where.parent.group.id
        + " (after it)", () => {
        where.list.splice(where.index, 1);
        where.parent.list.splice(where.parent.index + 1, 0, item);
        draw();
        changed();
      }));
    }
    const above = where.list[where.index - 1];
    if (above && above.isGroup) {
      head.appendChild(button("secondary " + prefix + "-into", "⇲ Into " + above.id, "Move this " + noun + " to the end of "
        + above.id, () => {
        where.list.splice(where.index, 1);
        above.items.push(item);
        draw();
        changed();
      }));
    }
  }

  function drawQuestion(question, where, number) {
    const box = element("div", "q-editor");
    box.dataset.type = question.type;
    box.dataset.key = question.key;
    box.dataset.item = question.key;
    const head = element("div", "q-head");
    head.appendChild(element("span", "q-type", number + ". " + typeNames[question.type]));
    moveButtons(head, "q", "question", question, where);
    head.appendChild(button("secondary q-remove", "Remove", "Remove this question", () => {
      where.list.splice(where.index, 1);
      draw();
      changed();
    }));
    box.appendChild(head);

    const fields = element("div", "q-fields");
    field(fields, "Id", input("q-id"), question, "id");
    field(fields, "Question", input("q-text"), question, "text");
    field(fields, "Help", element("textarea", "q-help"), question, "help");
    const typeChoice = element("select", "q-type-choice");
    Object.keys(typeNames).forEach((type) => {
      const option = element("option", "", typeNames[type]);
      option.value = type;
      typeChoice.appendChild(option);
    });
    typeChoice.value = question.type;
    typeChoice.addEventListener("change", () => {
      question.type = typeChoice.value;
      shape(question);
      draw();
      changed();
    });
    fields.appendChild(element("label", "", "Type"));
    fields.appendChild(typeChoice);

    let tableDrawn = false;
    fieldsOf(question).forEach((setting) => {
      if (setting === firstLogicField(question)) { fields.appendChild(element("h3", "q-logic-heading", "Form logic")); }
      if (isScalar(setting)) {
        scalarField(fields, setting, question.values, "q-" + kebab(setting.key));
      } else if (setting.input === "options") {
        drawOptionsEditor(question, setting, fields);
      } else if (!tableDrawn) {
        tableDrawn = true;
        drawTableEditor(question, fields);
      }
    });
    box.appendChild(fields);
    return box;
  }

  // A menu of question types, and a button per kind of question and group, that add to `list`.
  function addBar(bar, listOf, typeMenu, addButton, groupButtonId) {
    addButton.addEventListener("click", () => {
      listOf().push(newQuestion(typeMenu.value));
      draw();
      changed();
    });
    groupKinds.forEach((entry) => {
      const adder = button("secondary add-" + kebab(entry.kind), "Add " + entry.label.toLowerCase(),
        "Add a " + entry.label.toLowerCase() + " here", () => {
          const group = newGroup(entry.kind);
          listOf().push(group);
          draw();
          changed();
          const box = questionsBox.querySelector("[data-item='" + group.key + "'] input.g-id");
          if (box) { box.focus(); }
        });
      if (groupButtonId) { adder.id = groupButtonId(entry.kind); }
      bar.appendChild(adder);
    });
  }

  function typeMenu(className) {
    const menu = element("select", className);
    Object.keys(typeNames).forEach((type) => {
      const option = element("option", "", typeNames[type]);
      option.value = type;
      menu.appendChild(option);
    });
    return menu;
  }

  // A group or a repeat: its head (kind, moves, remove after a confirmation), its fields from
  // the server, its questions and groups, and what adds to them.
  function drawGroup(group, where, counter) {
    const box = element("div", "g-editor");
    box.dataset.kind = group.kind;
    box.dataset.item = group.key;
    const noun = (groupNames[group.kind] || group.kind).toLowerCase();
    const head = element("div", "q-head g-head");
    head.appendChild(element("span", "g-type", groupNames[group.kind] || group.kind));
    moveButtons(head, "g", noun, group, where);
    const confirm = element("div", "g-confirm hidden");
    confirm.setAttribute("role", "alertdialog");
    head.appendChild(button("secondary g-remove", "Remove", "Remove this " + noun + " and its questions", () => {
      const count = questionCount(group);
      confirm.querySelector("p").textContent = "Remove the " + noun + " " + (group.id || "without an id") + " and its "
        + count + " question" + (count === 1 ? "" : "s") + "?";
      confirm.classList.remove("hidden");
      confirm.querySelector("button.g-remove-yes").focus();
    }));
    box.appendChild(head);
    confirm.appendChild(element("p", "g-confirm-text"));
    confirm.appendChild(button("g-remove-yes", "Remove", "", () => {
      where.list.splice(where.index, 1);
      draw();
      changed();
    }));
    confirm.appendChild(button("secondary g-remove-no", "Cancel", "", () => confirm.classList.add("hidden")));
    box.appendChild(confirm);

    const fields = element("div", "g-fields");
    field(fields, "Id", input("g-id"), group, "id");
    groupFieldsOf(group).forEach((setting) => scalarField(fields, setting, group.values, "g-" + kebab(setting.key)));
    box.appendChild(fields);

    const inner = element("div", "g-items");
    drawItems(group.items, inner, { group: group, list: where.list, index: where.index }, counter);
    box.appendChild(inner);

    const bar = element("div", "g-add");
    const menu = typeMenu("g-new-type");
    menu.setAttribute("aria-label", "Type of the new question in " + (group.id || "this " + noun));
    bar.appendChild(menu);
    const add = button("g-add-question", "Add question", "Add a question to this " + noun, () => {});
    bar.appendChild(add);
    addBar(bar, () => group.items, menu, add, null);
    box.appendChild(bar);
    return box;
  }

  // Draws `list` into `container`; questions are numbered in the order they are asked.
  function drawItems(list, container, parent, counter) {
    list.forEach((item, index) => {
      const where = { list: list, index: index, parent: parent };
      if (item.isGroup) {
        container.appendChild(drawGroup(item, where, counter));
      } else {
        counter.number += 1;
        container.appendChild(drawQuestion(item, where, counter.number));
      }
    });
  }

  function draw() {
    questionsBox.textContent = "";
    drawItems(state.items, questionsBox, null, { number: 0 });
    markFields(lastProblems);
  }

  function move(where, step) {
    if (shift(where.list, where.index, step)) {
      draw();
      changed();
    }
  }

  // MARK: - Problems, in the side panel and at their fields

  let lastProblems = [];

  // The group a problem names by its id, if it is one.
  function namedGroup(problem) {
    let found = null;
    walk((item) => { if (!found && item.isGroup && item.id === problem.question) { found = item; } });
    return found;
  }

  function describe(problem) {
    const parts = [];
    const group = problem.question ? namedGroup(problem) : null;
    if (group) {
      parts.push((groupNames[group.kind] || group.kind).toLowerCase() + " " + problem.question);
    } else if (problem.question) {
      parts.push("question " + problem.question);
    }
    if (problem.field) { parts.push("field \"" + problem.field + "\""); }
    return (parts.length ? parts.join(", ") + ": " : "") + problem.message;
  }

  // The link a problem offers: "this id exists" leads to that template's editor.
  function problemLink(problem) {
    if (problem.code !== "template-id-exists") { return null; }
    const link = element("a", "edit-existing", "Edit " + problem.template);
    link.href = "/templates/" + encodeURIComponent(problem.template) + "/edit";
    return link;
  }

  // The input a problem is about: the template's id or title, or a field of the question or
  // group it names (by id, or `#n` for the n-th of its list without an id); null when it is
  // about the whole template.
  function targets(problem) {
    const name = logicalName[problem.field] || problem.field;
    if (!problem.question) {
      if (name === "id") { return [idInput]; }
      if (name === "title") { return [titleInput]; }
      if (name === "questions") { return [document.getElementById("add-question")]; }
      return name ? Array.from(settingsBox.children).filter((node) => node.dataset.key === name) : [];
    }
    let chosen = [];
    const position = /^#(\d+)$/.exec(problem.question);
    if (position) {
      walk((item, list, index) => { if (index === Number(position[1]) - 1 && item.id === "") { chosen.push(item); } });
    } else {
      walk((item) => { if (item.id === problem.question) { chosen.push(item); } });
      // A duplicate id: its message names the position of the repeat, and the group it stands in.
      const repeat = /\(question (\d+)(?: of \S+ (\S+))?\)/.exec(problem.message);
      if (repeat) {
        let list = state.items;
        if (repeat[2]) { walk((item) => { if (item.isGroup && item.id === repeat[2]) { list = item.items; } }); }
        const item = list[Number(repeat[1]) - 1];
        if (item) { chosen = [item]; }
      }
    }
    return chosen.map((item) => questionsBox.querySelector("[data-item='" + item.key + "']")).filter((box) => box).map((box) => {
      if (box.classList.contains("g-editor")) {
        const fieldsBox = box.querySelector(":scope > div.g-fields");
        if (name === "id") { return fieldsBox.querySelector("input.g-id"); }
        if (name === "questions") { return box.querySelector(":scope > div.g-add"); }
        const setting = name ? Array.from(fieldsBox.children).find((node) => node.dataset.key === name) : null;
        return setting || fieldsBox;
      }
      // The question's own fields by their class, a setting by its data-key; else the whole box.
      const selectors = { id: "input.q-id", text: "input.q-text", help: "textarea.q-help", type: "select.q-type-choice" };
      const fieldsBox = box.querySelector("div.q-fields");
      const setting = fieldsBox && name
        ? Array.from(fieldsBox.children).find((node) => node.dataset.key === name) : null;
      return (selectors[name] && box.querySelector(selectors[name])) || setting || fieldsBox || box;
    });
  }

  function markFields(problems) {
    document.querySelectorAll(".field-problem").forEach((node) => node.remove());
    document.querySelectorAll(".has-problem").forEach((node) => {
      node.classList.remove("has-problem");
      node.removeAttribute("aria-invalid");
    });
    problems.forEach((problem) => {
      targets(problem).forEach((target) => {
        target.classList.add("has-problem");
        target.setAttribute("aria-invalid", "true");
        const note = element("p", "field-problem", problem.message + " ");
        const link = problemLink(problem);
        if (link) { note.appendChild(link); }
        // In the two-column grids the note takes a row of its own under its input.
        target.insertAdjacentElement("afterend", note);
      });
    });
  }

  // The side panel's items are kept and only their texts changed, so a check that finds the
  // same problems leaves the panel as it was (nothing flickers).
  function showProblems(problems) {
    lastProblems = problems;
    while (problemsList.children.length > problems.length) { problemsList.lastElementChild.remove(); }
    problems.forEach((problem, index) => {
      const item = problemsList.children[index] || problemsList.appendChild(element("li"));
      const text = describe(problem);
      if (item.dataset.text !== text) {
        item.dataset.text = text;
        item.textContent = text + " ";
        const link = problemLink(problem);
        if (link) { item.appendChild(link); }
      }
    });
    noProblems.classList.toggle("hidden", problems.length > 0);
    markFields(problems);
  }

  async function errorMessage(response) {
    try {
      const body = await response.json();
      return (body.error && body.error.message) || response.statusText;
    } catch (ignored) {
      return response.status + " " + response.statusText;
    }
  }

  // MARK: - Talking to the server

  const withBase = (path) => path + (basedOn ? "?basedOn=" + encodeURIComponent(basedOn) : "");

  function post(path, body) {
    return fetch(withBase(path), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, "Accept": "application/json" },
      body: JSON.stringify(body),
    });
  }

  let timer = null;
  let sequence = 0;
  function changed() {
    publishResult.textContent = "";
    confirmBox.classList.add("hidden");
    editor.dataset.checked = "false";
    editor.dataset.dirty = String(isDirty());
    if (timer) { clearTimeout(timer); }
    timer = setTimeout(check, 300);
  }

  async function check() {
    timer = null;
    const mine = ++sequence;
    try {
      const response = await post("/templates/check", draft());
      if (mine !== sequence) { return; }
      if (!response.ok) {
        showProblems([{ message: await errorMessage(response) }]);
        return;
      }
      const report = await response.json();
      if (mine !== sequence) { return; }
      showProblems(report.problems);
      if (preview.textContent !== report.preview) { preview.textContent = report.preview; }
      editor.dataset.checked = "true";
    } catch (error) {
      showProblems([{ message: "the server could not be reached (" + error + ") — check the connection" }]);
    }
  }

  // Publish asks first; the question names what becomes the newest version.
  function askToPublish() {
    publishResult.textContent = "";
    const name = state.title.trim() ? "“" + state.title.trim() + "” (" + state.id + ")" : state.id;
    confirmText.textContent = basedOn === state.id && basedOn !== ""
      ? "Publish " + name + " as the next version of " + basedOn + "? Technicians get it at their next sync; forms already started keep their version."
      : "Publish the new template " + name + "? Technicians get it at their next sync.";
    confirmBox.classList.remove("hidden");
    document.getElementById("publish-confirm-yes").focus();
  }

  let publishing = false;
  async function publish() {
    // One publish at a time: a second click while one is under way does nothing.
    if (publishing) { return; }
    publishing = true;
    confirmBox.classList.add("hidden");
    publishButton.disabled = true;
    publishResult.textContent = "Publishing…";
    const sent = draft();
    try {
      const response = await post("/templates/publish", sent);
      if (response.status === 201) {
        const published = await response.json();
        publishResult.textContent = "";
        publishResult.appendChild(document.createTextNode("Published " + published.id + " version " + published.version + " "));
        const link = element("a", "published-download", "(download " + published.fileName + ")");
        link.href = "/templates/" + encodeURIComponent(published.id) + "/versions/" + published.version;
        publishResult.appendChild(link);
        publishResult.dataset.version = String(published.version);
        // From now on this is the editor of that template: the next publish is its next version.
        basedOn = published.id;
        editor.dataset.basedOn = basedOn;
        saved = JSON.stringify(sent);
        editor.dataset.dirty = String(isDirty());
      } else if (response.status === 422) {
        const report = await response.json();
        showProblems(report.problems);
        publishResult.textContent = "Not published: correct the problems listed above.";
      } else {
        let body = null;
        try { body = await response.json(); } catch (ignored) { body = null; }
        const error = (body && body.error) || {};
        publishResult.textContent = "Not published: " + (error.message || response.status + " " + response.statusText);
        if (error.code === "template-id-exists") {
          publishResult.appendChild(document.createTextNode(" "));
          publishResult.appendChild(problemLink({ code: error.code, template: state.id }));
        }
        publishResult.dataset.code = error.code || "";
      }
    } catch (error) {
      publishResult.textContent = "Not published: the server could not be reached (" + error + ")";
    } finally {
      publishing = false;
      publishButton.disabled = false;
    }
  }

  // MARK: - Start

  idInput.addEventListener("input", () => { state.id = idInput.value; changed(); });
  titleInput.addEventListener("input", () => { state.title = titleInput.value; changed(); });
  addBar(document.getElementById("add-groups"), () => state.items, document.getElementById("new-question-type"),
    document.getElementById("add-question"), (kind) => "add-" + kebab(kind));
  publishButton.addEventListener("click", askToPublish);
  document.getElementById("publish-confirm-yes").addEventListener("click", publish);
  document.getElementById("publish-cancel").addEventListener("click", () => {
    confirmBox.classList.add("hidden");
    publishButton.focus();
  });

  // Leaving with changes that were not published asks first (the browser words the question).
  window.addEventListener("beforeunload", (event) => {
    if (!isDirty()) { return undefined; }
    event.preventDefault();
    event.returnValue = "";
    return "";
  });

  function start() {
    idInput.value = state.id;
    titleInput.value = state.title;
    drawSettings();
    saved = snapshot();
    editor.dataset.dirty = "false";
    draw();
    check();
  }

  if (editor.dataset.source) {
    fetch(editor.dataset.source, { credentials: "same-origin" })
      .then((response) => response.json())
      .then((json) => { load(json); start(); })
      .catch((error) => { showProblems([{ message: "the template could not be read (" + error + ")" }]); start(); });
  } else {
    start();
  }
})();

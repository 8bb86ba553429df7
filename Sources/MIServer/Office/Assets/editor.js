// The template editor of the MI office. Plain JavaScript, loaded from /static (the pages'
// Content-Security-Policy forbids inline script and style). It keeps the draft in `state`,
// draws it, and after every change (debounced) posts it to /templates/check, which answers
// with the problems MIKit finds and the preview `mi fill` would show. The JSON it sends uses the
// key names the server's Config.plist TemplateKeys give (from #editor's data-keys).
"use strict";

(function () {
  const editor = document.getElementById("editor");
  if (!editor) { return; }
  const keys = JSON.parse(editor.dataset.keys || "{}");
  const key = (name) => keys[name] || name;
  const csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  const typeNames = {
    multipleChoice: "Multiple choice", trueFalse: "True / false", shortAnswer: "Short answer",
    numeric: "Number", table: "Table",
  };
  const questionsBox = document.getElementById("questions");
  const problemsList = document.getElementById("problems");
  const noProblems = document.getElementById("no-problems");
  const preview = document.getElementById("preview");
  const publishResult = document.getElementById("publish-result");
  const idInput = document.getElementById("template-id");
  const titleInput = document.getElementById("template-title");

  const state = { id: "", title: "", questions: [] };

  function newQuestion(type) {
    const question = { id: "q" + (state.questions.length + 1), text: "", help: "", type: type };
    if (type === "multipleChoice") { question.options = ["", ""]; question.maxAnswers = 1; }
    if (type === "numeric") { question.integer = false; question.min = ""; question.max = ""; }
    if (type === "table") { question.rows = "Row 1, Row 2"; question.columns = "Column 1, Column 2"; question.noCells = []; }
    return question;
  }

  function list(text) {
    return String(text || "").split(",").map((part) => part.trim()).filter((part) => part.length > 0);
  }

  // MARK: - The draft as the server's JSON

  function numberOrText(text) {
    const trimmed = String(text).trim();
    const number = Number(trimmed);
    return trimmed !== "" && Number.isFinite(number) ? number : trimmed;
  }

  function draft() {
    return {
      [key("id")]: state.id,
      [key("title")]: state.title,
      [key("questions")]: state.questions.map((question) => {
        const json = { [key("id")]: question.id, [key("type")]: key(question.type), [key("text")]: question.text };
        if (question.help.trim() !== "") { json[key("help")] = question.help; }
        if (question.type === "multipleChoice") {
          json[key("options")] = question.options.slice();
          json[key("maxAnswers")] = numberOrText(question.maxAnswers);
        } else if (question.type === "numeric") {
          json[key("integer")] = question.integer;
          if (String(question.min).trim() !== "") { json[key("min")] = numberOrText(question.min); }
          if (String(question.max).trim() !== "") { json[key("max")] = numberOrText(question.max); }
        } else if (question.type === "table") {
          const rows = list(question.rows);
          const columns = list(question.columns);
          json[key("rows")] = rows;
          json[key("columns")] = columns;
          json[key("noCells")] = question.noCells
            .filter((cell) => cell[0] < rows.length && cell[1] < columns.length)
            .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        }
        return json;
      }),
    };
  }

  // A template version as the server stores it, read back into the editor's state.
  function load(json) {
    const types = {};
    Object.keys(typeNames).forEach((type) => { types[key(type)] = type; });
    state.id = json[key("id")] || "";
    state.title = json[key("title")] || "";
    state.questions = (json[key("questions")] || []).map((item) => {
      const type = types[item[key("type")]] || "shortAnswer";
      const question = newQuestion(type);
      question.id = item[key("id")] || "";
      question.text = item[key("text")] || "";
      question.help = item[key("help")] || "";
      if (type === "multipleChoice") {
        question.options = (item[key("options")] || []).slice();
        question.maxAnswers = item[key("maxAnswers")] === undefined ? 1 : item[key("maxAnswers")];
      } else if (type === "numeric") {
        question.integer = item[key("integer")] === true;
        question.min = item[key("min")] === undefined ? "" : String(item[key("min")]);
        question.max = item[key("max")] === undefined ? "" : String(item[key("max")]);
      } else if (type === "table") {
        question.rows = (item[key("rows")] || []).join(", ");
        question.columns = (item[key("columns")] || []).join(", ");
        question.noCells = (item[key("noCells")] || []).map((cell) => [cell[0], cell[1]]);
      }
      return question;
    });
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
    if (title) { node.title = title; }
    node.addEventListener("click", action);
    return node;
  }

  // A labelled input bound to `question[field]`; `redraw` when the shape changes (a table's size).
  function field(container, label, node, question, property, redraw) {
    const caption = element("label", "", label);
    container.appendChild(caption);
    container.appendChild(node);
    const read = () => (node.type === "checkbox" ? node.checked : node.value);
    if (node.type === "checkbox") { node.checked = question[property]; } else { node.value = question[property]; }
    node.addEventListener(node.type === "checkbox" ? "change" : "input", () => {
      question[property] = read();
      if (redraw) { redraw(); }
      changed();
    });
    return node;
  }

  function input(className, type) {
    const node = element("input", className);
    node.type = type || "text";
    node.autocomplete = "off";
    return node;
  }

  function drawGrid(question, holder) {
    holder.textContent = "";
    const rows = list(question.rows);
    const columns = list(question.columns);
    if (rows.length === 0 || columns.length === 0) { return; }
    const table = element("table", "q-grid");
    const head = element("tr");
    head.appendChild(element("th"));
    columns.forEach((column) => head.appendChild(element("th", "", column)));
    table.appendChild(head);
    rows.forEach((row, r) => {
      const line = element("tr");
      line.appendChild(element("th", "", row));
      columns.forEach((column, c) => {
        const cell = element("td", "cell");
        cell.dataset.row = String(r);
        cell.dataset.column = String(c);
        const isNoValue = () => question.noCells.some((pair) => pair[0] === r && pair[1] === c);
        const paint = () => {
          cell.classList.toggle("no-value", isNoValue());
          cell.title = isNoValue() ? "takes no value (click to allow a value)" : "takes a value (click to make it a no-value cell)";
          cell.textContent = isNoValue() ? "no value" : "";
        };
        paint();
        cell.addEventListener("click", () => {
          if (isNoValue()) {
            question.noCells = question.noCells.filter((pair) => !(pair[0] === r && pair[1] === c));
          } else {
            question.noCells.push([r, c]);
          }
          paint();
          changed();
        });
        line.appendChild(cell);
      });
      table.appendChild(line);
    });
    holder.appendChild(table);
  }

  function drawOptions(question, holder) {
    holder.textContent = "";
    question.options.forEach((option, index) => {
      const row = element("div", "q-option-row");
      const box = input("q-option");
      box.value = option;
      box.placeholder = "Option " + (index + 1);
      box.addEventListener("input", () => { question.options[index] = box.value; changed(); });
      row.appendChild(box);
      row.appendChild(button("secondary q-remove-option", "✕", "Remove this option", () => {
        question.options.splice(index, 1);
        drawOptions(question, holder);
        changed();
      }));
      holder.appendChild(row);
    });
  }

  function drawQuestion(question, index) {
    const box = element("div", "q-editor");
    box.dataset.type = question.type;
    const head = element("div", "q-head");
    head.appendChild(element("span", "q-type", (index + 1) + ". " + typeNames[question.type]));
    head.appendChild(button("secondary q-up", "↑", "Move up", () => move(index, -1)));
    head.appendChild(button("secondary q-down", "↓", "Move down", () => move(index, 1)));
    head.appendChild(button("secondary q-remove", "Remove", "Remove this question", () => {
      state.questions.splice(index, 1);
      draw();
      changed();
    }));
    box.appendChild(head);

    const fields = element("div", "q-fields");
    field(fields, "Id", input("q-id"), question, "id");
    field(fields, "Question", input("q-text"), question, "text");
    field(fields, "Help", element("textarea", "q-help"), question, "help");

    if (question.type === "multipleChoice") {
      const options = element("div", "q-options");
      fields.appendChild(element("label", "", "Options"));
      const column = element("div");
      column.appendChild(options);
      column.appendChild(button("secondary q-add-option", "Add option", "", () => {
        question.options.push("");
        drawOptions(question, options);
        const boxes = options.querySelectorAll("input.q-option");
        boxes[boxes.length - 1].focus();
        changed();
      }));
      fields.appendChild(column);
      drawOptions(question, options);
      const max = input("q-max-answers", "number");
      max.min = "0";
      max.step = "1";
      field(fields, "Max-answers (1 = one, 0 = any, n = up to n)", max, question, "maxAnswers");
    } else if (question.type === "numeric") {
      field(fields, "Whole numbers only", input("q-integer", "checkbox"), question, "integer");
      field(fields, "Minimum", input("q-min", "number"), question, "min");
      field(fields, "Maximum", input("q-max", "number"), question, "max");
    } else if (question.type === "table") {
      const grid = element("div", "q-grid-holder");
      const redraw = () => drawGrid(question, grid);
      field(fields, "Rows (comma-separated)", input("q-rows"), question, "rows", redraw);
      field(fields, "Columns (comma-separated)", input("q-columns"), question, "columns", redraw);
      fields.appendChild(element("label", "", "Click a cell: no value"));
      fields.appendChild(grid);
      redraw();
    }
    box.appendChild(fields);
    return box;
  }

  function draw() {
    questionsBox.textContent = "";
    state.questions.forEach((question, index) => questionsBox.appendChild(drawQuestion(question, index)));
  }

  function move(index, step) {
    const target = index + step;
    if (target < 0 || target >= state.questions.length) { return; }
    const moved = state.questions.splice(index, 1)[0];
    state.questions.splice(target, 0, moved);
    draw();
    changed();
  }

  // MARK: - Talking to the server

  function post(path, body) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, "Accept": "application/json" },
      body: JSON.stringify(body),
    });
  }

  function describe(problem) {
    const parts = [];
    if (problem.question) { parts.push("question " + problem.question); }
    if (problem.field) { parts.push("field \"" + problem.field + "\""); }
    return (parts.length ? parts.join(", ") + ": " : "") + problem.message;
  }

  // The items are kept and only their texts changed, so a check that finds the same problems
  // leaves the page as it was (nothing flickers).
  function showProblems(problems) {
    const texts = problems.map(describe);
    while (problemsList.children.length > texts.length) { problemsList.lastElementChild.remove(); }
    texts.forEach((text, index) => {
      const item = problemsList.children[index] || problemsList.appendChild(element("li"));
      if (item.textContent !== text) { item.textContent = text; }
    });
    noProblems.classList.toggle("hidden", problems.length > 0);
  }

  async function errorMessage(response) {
    try {
      const body = await response.json();
      return (body.error && body.error.message) || response.statusText;
    } catch (ignored) {
      return response.status + " " + response.statusText;
    }
  }

  let timer = null;
  let sequence = 0;
  function changed() {
    publishResult.textContent = "";
    editor.dataset.checked = "false";
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

  async function publish() {
    const publishButton = document.getElementById("publish");
    publishButton.disabled = true;
    publishResult.textContent = "Publishing…";
    try {
      const response = await post("/templates/publish", draft());
      if (response.status === 201) {
        const published = await response.json();
        publishResult.textContent = "";
        publishResult.appendChild(document.createTextNode("Published " + published.id + " version " + published.version + " "));
        const link = element("a", "published-download", "(download " + published.fileName + ")");
        link.href = "/templates/" + encodeURIComponent(published.id) + "/versions/" + published.version;
        publishResult.appendChild(link);
        publishResult.dataset.version = String(published.version);
      } else if (response.status === 422) {
        const report = await response.json();
        showProblems(report.problems);
        publishResult.textContent = "Not published: correct the problems listed above.";
      } else {
        publishResult.textContent = "Not published: " + await errorMessage(response);
      }
    } catch (error) {
      publishResult.textContent = "Not published: the server could not be reached (" + error + ")";
    } finally {
      publishButton.disabled = false;
    }
  }

  // MARK: - Start

  idInput.addEventListener("input", () => { state.id = idInput.value; changed(); });
  titleInput.addEventListener("input", () => { state.title = titleInput.value; changed(); });
  document.getElementById("add-question").addEventListener("click", () => {
    state.questions.push(newQuestion(document.getElementById("new-question-type").value));
    draw();
    changed();
  });
  document.getElementById("publish").addEventListener("click", publish);

  function start() {
    idInput.value = state.id;
    titleInput.value = state.title;
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

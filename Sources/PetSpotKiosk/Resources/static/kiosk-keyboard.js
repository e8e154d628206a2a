// MARK: On-screen keyboard. A station has a touch screen and nothing else (no physical keyboard, and
// cage has no system keyboard), so focusing a text-like field opens a keyboard docked at the bottom
// of the page: letters (with a row of Polish letters, shown on a Polish page or by its key), a
// symbols layer, an email layout, a digit pad for numeric/tel/decimal fields. Every key is a
// <button type="button"> with the id osk.key.<character> (a shifted letter keeps its lowercase id),
// or osk.space, osk.backspace, osk.shift, osk.done, osk.polish, osk.symbols, osk.letters. A key
// types as the keyboard would: at the caret, within maxlength, then an "input" event, so the chip
// formatter and the counters see it. Keys never take the focus (pointerdown/mousedown are
// cancelled), so the field keeps it.
(function () {
  "use strict";
  var polishPage = (document.documentElement.lang || "").toLowerCase().indexOf("pl") === 0;
  var words = polishPage ? {
    keyboard: "Klawiatura ekranowa", backspace: "Usuń", shift: "Wielka litera", space: "Spacja",
    spaceGlyph: "spacja", done: "Gotowe", polish: "Polskie litery", symbols: "Symbole", letters: "Litery",
    ".": "Kropka", ",": "Przecinek", "-": "Minus", "@": "Małpa", "+": "Plus", "_": "Podkreślenie"
  } : {
    keyboard: "On-screen keyboard", backspace: "Backspace", shift: "Shift", space: "Space",
    spaceGlyph: "space", done: "Done", polish: "Polish letters", symbols: "Symbols", letters: "Letters",
    ".": "Full stop", ",": "Comma", "-": "Minus", "@": "At sign", "+": "Plus", "_": "Underscore"
  };
  var letterRows = ["1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm"];
  var polishRow = "ąćęłńóśźż";
  var symbolRows = ["1234567890", "-/:;()&@\"'", "?!_+#%*="];
  var textTypes = { text: 1, search: 1, tel: 1, email: 1, number: 1, url: 1 };

  var board = null;       // the keyboard's element, built on the first focus
  var field = null;       // the field it types into
  var shift = false;      // one-shot capital
  var polish = polishPage;
  var symbols = false;
  var edited = false;     // the keyboard changed the field since it took the focus
  var pointerDown = false;
  var pendingClose = false;

  function isTextField(element) {
    if (!element || element.disabled || element.readOnly) { return false; }
    if (element.tagName === "TEXTAREA") { return true; }
    return element.tagName === "INPUT" && textTypes[(element.getAttribute("type") || "text").toLowerCase()] === 1;
  }

  // Which layout a field takes: "numeric", "tel", "decimal" (digit pads), "email" or "text".
  function layoutFor(element) {
    var type = (element.getAttribute("type") || "text").toLowerCase();
    var mode = (element.getAttribute("inputmode") || "").toLowerCase();
    if (type === "tel" || mode === "tel") { return "tel"; }
    if (mode === "numeric") { return "numeric"; }
    if (mode === "decimal" || type === "number") { return "decimal"; }
    if (type === "email" || mode === "email") { return "email"; }
    return "text";
  }

  function key(id, glyph, label, className, action) {
    var button = document.createElement("button");
    button.type = "button";
    button.id = id;
    button.className = "osk-key" + (className ? " " + className : "");
    button.textContent = glyph;
    if (label) { button.setAttribute("aria-label", label); }
    button.addEventListener("click", function (event) { event.preventDefault(); action(); });
    return button;
  }

  function charKey(character) {
    var shown = shift && character.toUpperCase() !== character ? character.toUpperCase() : character;
    var button = key("osk.key." + character, shown, words[character] || null, null, function () {
      var typed = shift ? character.toUpperCase() : character;
      if (shift) { shift = false; render(); }
      insert(typed);
    });
    if (/\d/.test(character)) { button.classList.add("osk-digit"); }
    return button;
  }

  function spacer() {
    var gap = document.createElement("span");
    gap.className = "osk-spacer";
    gap.setAttribute("aria-hidden", "true");
    return gap;
  }

  function row(children, className) {
    var line = document.createElement("div");
    line.className = "osk-row" + (className ? " " + className : "");
    children.forEach(function (child) { line.appendChild(child); });
    return line;
  }

  function chars(text) { return Array.prototype.map.call(text, charKey); }

  function backspaceKey(className) {
    return key("osk.backspace", "⌫", words.backspace, "osk-wide osk-function" + (className ? " " + className : ""), erase);
  }

  function doneKey(className) {
    return key("osk.done", words.done, null, "osk-done" + (className ? " " + className : ""), close);
  }

  function toggle(id, glyph, label, pressed, action) {
    var button = key(id, glyph, label, "osk-function", action);
    button.setAttribute("aria-pressed", pressed ? "true" : "false");
    return button;
  }

  function shiftKey() {
    return toggle("osk.shift", "⇧", words.shift, shift, function () { shift = !shift; render(); });
  }

  function spaceKey(className) {
    return key("osk.space", words.spaceGlyph, words.space, "osk-space" + (className ? " " + className : ""), function () { insert(" "); });
  }

  // The rows of a layout.
  function rows(layout) {
    if (layout === "numeric" || layout === "tel" || layout === "decimal") {
      var extra = layout === "tel" ? ["+", " "] : layout === "decimal" ? ["-", "."] : [];
      var cell = function (character) {
        if (character === undefined) { return spacer(); }
        return character === " " ? spaceKey("osk-pad-space") : charKey(character);
      };
      return [
        row(chars("123").concat([backspaceKey()]), "osk-pad"),
        row(chars("456").concat([cell(extra[0])]), "osk-pad"),
        row(chars("789").concat([cell(extra[1])]), "osk-pad"),
        row([spacer(), charKey("0"), spacer(), doneKey()], "osk-pad")
      ];
    }
    if (symbols) {
      return [
        row(chars(symbolRows[0])), row(chars(symbolRows[1])),
        row(chars(symbolRows[2]).concat([backspaceKey()])),
        row([toggle("osk.letters", "abc", words.letters, false, function () { symbols = false; render(); }),
          charKey(","), spaceKey(), charKey("."), doneKey()])
      ];
    }
    var lines = [row(chars(letterRows[0])), row(chars(letterRows[1])), row(chars(letterRows[2]), "osk-narrow")];
    lines.push(row([shiftKey()].concat(chars(letterRows[3])).concat([backspaceKey()])));
    if (polish && layout === "text") { lines.push(row(chars(polishRow), "osk-narrow osk-polish")); }
    if (layout === "email") {
      lines.push(row([charKey("@"), charKey("."), charKey("-"), charKey("_"), doneKey()]));
    } else {
      lines.push(row([
        toggle("osk.polish", "ąę", words.polish, polish, function () { polish = !polish; render(); place(); }),
        toggle("osk.symbols", "?123", words.symbols, false, function () { symbols = true; render(); }),
        charKey(","), spaceKey(), charKey("."), charKey("-"), doneKey()]));
    }
    return lines;
  }

  function render() {
    if (!board || !field) { return; }
    var layout = layoutFor(field);
    board.setAttribute("data-layout", symbols && layout === "text" ? "symbols" : layout);
    board.className = "osk" + (layout === "text" || layout === "email" ? "" : " osk-digits");
    while (board.firstChild) { board.removeChild(board.firstChild); }
    rows(layout).forEach(function (line) { board.appendChild(line); });
  }

  function build() {
    board = document.createElement("div");
    board.id = "osk";
    board.setAttribute("role", "group");
    board.setAttribute("aria-label", words.keyboard);
    board.hidden = true;
    // A tap on the keyboard never moves the focus out of the field.
    ["pointerdown", "mousedown"].forEach(function (name) {
      board.addEventListener(name, function (event) { event.preventDefault(); });
    });
    document.body.appendChild(board);
  }

  // The caret and selection of the field; null where the field has none to give (type=email, number).
  function selection(element) {
    try {
      if (typeof element.selectionStart === "number") { return [element.selectionStart, element.selectionEnd]; }
    } catch (ignored) { /* no selection API for this type */ }
    return null;
  }

  // Dispatches "beforeinput" (cancelable), "input" or "change" as typing would; false when cancelled.
  function fire(element, kind, data) {
    var cancelable = kind === "beforeinput";
    var event;
    if (kind === "change") {
      event = new Event(kind, { bubbles: true });
    } else {
      try {
        event = new InputEvent(kind, { bubbles: true, cancelable: cancelable, inputType: data.type, data: data.text });
      } catch (ignored) { event = new Event(kind, { bubbles: true, cancelable: cancelable }); }
    }
    return element.dispatchEvent(event);
  }

  function insert(text) {
    if (!field) { return; }
    var value = field.value;
    var range = selection(field) || [value.length, value.length];
    var limit = field.maxLength;
    if (typeof limit === "number" && limit >= 0) {
      var room = limit - (value.length - (range[1] - range[0]));
      if (room <= 0) { return; }
      text = text.slice(0, room);
    }
    var detail = { type: "insertText", text: text };
    if (!fire(field, "beforeinput", detail)) { return; }
    field.value = value.slice(0, range[0]) + text + value.slice(range[1]);
    var caret = range[0] + text.length;
    if (selection(field)) { field.setSelectionRange(caret, caret); }
    edited = true;
    fire(field, "input", detail);
  }

  function erase() {
    if (!field) { return; }
    var value = field.value;
    var range = selection(field) || [value.length, value.length];
    if (range[0] === range[1]) {
      if (range[0] === 0) { return; }
      range = [range[0] - 1, range[1]];
    }
    var detail = { type: "deleteContentBackward", text: null };
    if (!fire(field, "beforeinput", detail)) { return; }
    field.value = value.slice(0, range[0]) + value.slice(range[1]);
    if (selection(field)) { field.setSelectionRange(range[0], range[0]); }
    edited = true;
    fire(field, "input", detail);
  }

  // The page makes room for the keyboard (bottom padding of its height), and the field is scrolled to
  // the middle of what the keyboard leaves visible.
  function place() {
    if (!board || board.hidden || !field) { return; }
    var height = board.offsetHeight;
    document.documentElement.style.setProperty("--osk-height", height + "px");
    document.body.classList.add("osk-open");
    var visible = window.innerHeight - height;
    var box = field.getBoundingClientRect();
    var margin = 16;
    if (box.top < margin || box.bottom > visible - margin) {
      var top = Math.max(margin, (visible - box.height) / 2);
      window.scrollBy(0, box.top - top);
    }
  }

  function open(element) {
    if (!board) { build(); }
    if (field !== element) {
      field = element;
      edited = false;
      shift = false;
      symbols = false;
    }
    pendingClose = false;
    render();
    board.hidden = false;
    place();
  }

  // The padding goes when no finger is down, so a tap that moved the focus is not moved away under it.
  function unpad() {
    if (pointerDown) { pendingClose = true; return; }
    pendingClose = false;
    if (board && board.hidden) {
      document.body.classList.remove("osk-open");
      document.documentElement.style.removeProperty("--osk-height");
    }
  }

  function hide() {
    if (field && edited) {
      fire(field, "change", null);  // as a keyboard's edit would on leaving the field
    }
    field = null;
    if (board) { board.hidden = true; }
    unpad();
  }

  function close() {
    var element = field;
    hide();
    if (element) { element.blur(); }
  }

  document.addEventListener("pointerdown", function () { pointerDown = true; }, true);
  ["pointerup", "pointercancel"].forEach(function (name) {
    document.addEventListener(name, function () {
      pointerDown = false;
      if (pendingClose) { setTimeout(unpad, 0); }  // after this tap's click
    }, true);
  });
  document.addEventListener("focusin", function (event) {
    if (isTextField(event.target)) { open(event.target); }
  });
  document.addEventListener("focusout", function (event) {
    if (event.target !== field) { return; }
    if (isTextField(event.relatedTarget)) { return; }  // focusin opens it for the next field
    hide();
  });
  window.addEventListener("resize", function () { if (field) { place(); } });
  // A field focused before this script ran (autofocus, or a tap while loading).
  if (isTextField(document.activeElement)) { open(document.activeElement); }
})();

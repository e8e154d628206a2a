// petspot-kiosk enhancements. Every page works without this file: it only
// adds the idle countdown dialog, the GPS button without a page reload,
// the chip number formatted while typing, character counters, the photo
// upload with progress, and the on-screen keyboard. Loaded from /static (no
// inline script: CSP).
(function () {
  "use strict";
  var html = document.documentElement;
  html.classList.add("js");
  var body = document.body;
  var csrf = body.getAttribute("data-csrf") || "";
  function byId(id) { return document.getElementById(id); }

  // The browser's Back must never show a page of an earlier visit.
  window.addEventListener("pageshow", function (event) { if (event.persisted) { location.reload(); } });

  // Pages that go back to the welcome screen by themselves (thank-you, a welcome screen left in
  // another language, "Still there?" without JavaScript): a timer here, the <meta refresh> only
  // inside <noscript> (a timed refresh that cannot be adjusted fails WCAG 2.2.1 for script users).
  var homeAfter = parseInt(document.body.getAttribute("data-home-after"), 10);
  if (!isNaN(homeAfter)) { setTimeout(function () { location.href = "/"; }, homeAfter * 1000); }

  function post(url, data, accept) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "X-CSRF-Token": csrf, "Accept": accept || "*/*", "Content-Type": "application/x-www-form-urlencoded" },
      body: data || ""
    });
  }

  // MARK: Larger text and higher contrast, for this visit: switched in place (what was typed stays
  // where it is) and remembered by the visit, so every later page of the visit has it too.
  var displayButton = byId("display.largeText.tap");
  if (displayButton && csrf && displayButton.form && displayButton.form.getAttribute("method") === "post") {
    displayButton.addEventListener("click", function (event) {
      event.preventDefault();
      var large = !html.classList.contains("large");
      html.classList.toggle("large", large);
      displayButton.setAttribute("aria-pressed", large ? "true" : "false");
      displayButton.value = large ? "standard" : "large";
      post("/display", "display=" + (large ? "large" : "standard"), "application/json");
    });
  }

  // MARK: Idle reset: "Still there?", then the visit is wiped.
  var promptAfter = parseInt(body.getAttribute("data-idle-prompt") || "", 10);
  var resetAfter = parseInt(body.getAttribute("data-idle-reset") || "", 10);
  if (!isNaN(promptAfter) && !isNaN(resetAfter)) {
    var window_ = resetAfter - promptAfter;
    var serverTouched = Date.now();
    var localActivity = serverTouched;
    var pinging = false;
    var dialog = byId("idlePrompt");
    var message = byId("idlePrompt.message");
    var ping = function () {
      if (pinging) { return; }
      pinging = true;
      var sent = Date.now();
      post("/activity").then(function (response) {
        pinging = false;
        if (response.status === 204) { serverTouched = sent; dialog.hidden = true; }
        else { location.replace("/"); }
      }, function () { pinging = false; });
    };
    // Not "change": it also fires when a field loses the focus, and the prompt itself takes the focus
    // (to its button), so a field left focused with new text would dismiss the prompt it caused and
    // extend the visit. Typing, picking and choosing all fire "input" too.
    ["input", "keydown", "pointerdown", "touchstart"].forEach(function (name) {
      document.addEventListener(name, function (event) {
        if (dialog.contains(event.target)) { return; }
        localActivity = Date.now();
        if (localActivity - serverTouched > 10000) { ping(); }
      }, true);
    });
    byId("idlePrompt.stillHereButton.tap").addEventListener("click", function () { localActivity = Date.now(); ping(); });
    setInterval(function () {
      var now = Date.now();
      var left = Math.ceil((serverTouched + resetAfter * 1000 - now) / 1000);
      // A moment after the server's reset, so "/" finds the visit gone (not a live one to return to).
      if (now > serverTouched + resetAfter * 1000 + 1500) { location.replace("/"); return; }
      if (left <= 0) { message.textContent = message.getAttribute("data-format").replace("{n}", "0"); return; }
      if (left <= window_) {
        if (localActivity > serverTouched) { ping(); return; }
        message.textContent = message.getAttribute("data-format").replace("{n}", String(left));
        if (dialog.hidden) { dialog.hidden = false; byId("idlePrompt.stillHereButton.tap").focus(); }
      }
    }, 250);
  }

  // MARK: Chip number: digits only, at most 15, shown 12345-67890-12345.
  var chip = byId("animalDescription.chipNumberTextField.input");
  if (chip) {
    chip.addEventListener("input", function () {
      var digits = chip.value.replace(/\D/g, "").slice(0, 15);
      chip.value = (digits.match(/.{1,5}/g) || []).join("-");
    });
  }

  // MARK: Phone numbers: at most 11 digits (SPEC §7), capped silently as typed (the server caps them too).
  Array.prototype.forEach.call(document.querySelectorAll("input[type=tel]"), function (field) {
    field.addEventListener("input", function () {
      var digits = 0;
      for (var i = 0; i < field.value.length; i++) {
        if (field.value.charAt(i) >= "0" && field.value.charAt(i) <= "9" && ++digits === 11) {
          if (i + 1 < field.value.length) { field.value = field.value.slice(0, i + 1); }
          return;
        }
      }
    });
  });

  // MARK: A toast with data-dismiss-after (the photo step's "Photo required", seed 002) clears after 3 s.
  Array.prototype.forEach.call(document.querySelectorAll(".toast[data-dismiss-after]"), function (toast) {
    var after = parseInt(toast.getAttribute("data-dismiss-after"), 10);
    if (!isNaN(after)) { setTimeout(function () { toast.hidden = true; }, after); }
  });

  // MARK: Character counters ("123/500").
  Array.prototype.forEach.call(document.querySelectorAll("textarea[data-counter]"), function (area) {
    var counter = byId(area.getAttribute("data-counter"));
    if (!counter) { return; }
    area.addEventListener("input", function () {
      counter.textContent = area.value.length + "/" + area.getAttribute("maxlength");
    });
  });

  // MARK: Species: a new species clears the breed (as the iOS form does).
  var species = byId("animalDescription.speciesDropdown.tap");
  var race = byId("animalDescription.raceTextField.input");
  if (species && race) { species.addEventListener("change", function () { race.value = ""; }); }

  // MARK: "Use this station's location" without a page reload.
  var gps = byId("animalDescription.requestGPSButton.tap");
  var alertBox = byId("permissionAlert");
  if (gps && gps.form) {
    var label = gps.textContent;
    gps.addEventListener("click", function (event) {
      event.preventDefault();
      if (gps.getAttribute("aria-busy") === "true") { return; }
      var data = new URLSearchParams(new FormData(gps.form));
      data.set("action", "gps");
      gps.setAttribute("aria-busy", "true");
      gps.textContent = gps.getAttribute("data-busy");
      var started = performance.now();
      post("/report/details", data.toString(), "application/json").then(function (response) {
        if (!response.ok || (response.headers.get("Content-Type") || "").indexOf("json") < 0) { throw new Error("http"); }
        return response.json();
      }).then(function (answer) {
        var helper = byId("animalDescription.gpsHelperText");
        var problem = byId("animalDescription.gpsErrorText");
        helper.hidden = true;
        problem.hidden = true;
        var lat = byId("animalDescription.latitudeTextField.input");
        var lon = byId("animalDescription.longitudeTextField.input");
        if (answer.outcome === "filled") {
          lat.value = answer.latitude;
          lon.value = answer.longitude;
          helper.textContent = answer.helper;
          helper.hidden = false;
          lat.setAttribute("aria-describedby", "animalDescription.gpsHelperText");
          lon.setAttribute("aria-describedby", "animalDescription.gpsHelperText");
          gps.setAttribute("data-fill-ms", String(Math.round(performance.now() - started)));
        } else if (answer.outcome === "alert") {
          byId("permissionAlert.title").textContent = answer.title;
          byId("permissionAlert.message").textContent = answer.message;
          byId("permissionAlert.settingsHelp").hidden = true;
          byId("permissionAlert.goSettingsButton.tap").hidden = false;
          alertBox.hidden = false;
          byId("permissionAlert.goSettingsButton.tap").focus();
        } else {
          problem.textContent = answer.message;
          problem.hidden = false;
        }
      }).catch(function () {
        gps.form.requestSubmit(gps);  // fall back to the plain form post
      }).finally(function () {
        gps.removeAttribute("aria-busy");
        gps.textContent = label;
      });
    });
  }
  if (alertBox) {
    byId("permissionAlert.cancelButton.tap").addEventListener("click", function (event) {
      event.preventDefault();
      alertBox.hidden = true;
      if (gps) { gps.focus(); }
    });
    byId("permissionAlert.goSettingsButton.tap").addEventListener("click", function (event) {
      event.preventDefault();
      byId("permissionAlert.settingsHelp").hidden = false;
      byId("permissionAlert.goSettingsButton.tap").hidden = true;
      byId("permissionAlert.cancelButton.tap").focus();
    });
  }

  // MARK: Photo: upload as soon as it is picked, with progress.
  var photoForm = byId("photoForm");
  var fileInput = byId("animalPhoto.fileInput.input");
  var cancelled = byId("animalPhoto.pickerCancelled.text");
  if (photoForm && fileInput && cancelled) {
    // The picker closed without a photo: seed 002's helper ("you can browse again anytime").
    fileInput.addEventListener("cancel", function () {
      cancelled.hidden = false;
      cancelled.textContent = cancelled.textContent;  // announced again by the status region
    });
  }
  // Sends one photo (picked or taken) as the form would, with progress; the
  // answer names the page to show next (the step again, with its card or error).
  function uploadPhoto(file, name) {
    if (cancelled) { cancelled.hidden = true; }
    var problem = byId("animalPhoto.fileInput.error");
    var limit = parseInt(photoForm.getAttribute("data-max-bytes"), 10);
    if (file.size > limit) {
      problem.textContent = photoForm.getAttribute("data-too-large").replace("{n}", String(Math.floor(limit / 1048576)));
      problem.hidden = false;
      byId("animalPhoto.browse.label").textContent = photoForm.getAttribute("data-retry");
      fileInput.value = "";
      return;
    }
    var status = byId("animalPhoto.upload.status");
    var bar = byId("animalPhoto.upload.progress");
    status.hidden = false;
    problem.hidden = true;
    var data = new FormData(photoForm);
    data.set("photo", file, name || file.name || "photo");
    var request = new XMLHttpRequest();
    request.open("POST", photoForm.action);
    request.setRequestHeader("Accept", "application/json");
    request.setRequestHeader("X-CSRF-Token", csrf);
    request.upload.addEventListener("progress", function (event) {
      if (event.lengthComputable) { bar.value = Math.round(100 * event.loaded / event.total); }
    });
    request.addEventListener("load", function () {
      var next = "/report/photo";
      try { next = JSON.parse(request.responseText).next || next; } catch (ignored) { /* a page: reload the step */ }
      location.href = next;
    });
    request.addEventListener("error", function () { location.href = "/report/photo"; });
    request.send(data);
  }
  if (photoForm && fileInput && window.XMLHttpRequest) {
    fileInput.addEventListener("change", function () {
      var file = fileInput.files && fileInput.files[0];
      if (file) { uploadPhoto(file); }
    });
  }

  // MARK: Photo: the station's camera (SPEC §7). "Take a photo" opens a live view (the rear camera
  // when there is a choice); "Take the picture" draws the current frame to a canvas and sends it as a
  // JPEG through the same upload, so it meets the same checks, draft and confirmation card. The
  // camera is switched off (every track stopped) as soon as the view closes, the picture is taken
  // or the page goes away. No camera, or one the browser refuses, is said in plain words.
  var cameraButton = byId("animalPhoto.camera");
  var cameraView = byId("animalPhoto.cameraView");
  var video = byId("animalPhoto.camera.video");
  var stream = null;
  // While the live view is open it is the only way shown (a file chooser beside it would distract).
  var fileSource = photoForm ? photoForm.querySelector(".file-source") : null;
  function stopCamera() {
    if (stream) { stream.getTracks().forEach(function (track) { track.stop(); }); }
    stream = null;
    if (video) { video.srcObject = null; }
    if (cameraView) { cameraView.hidden = true; }
    if (fileSource) { fileSource.hidden = false; }
    var start = byId("animalPhoto.cameraStart");
    if (start) { start.hidden = false; }
  }
  function cameraProblem(error) {
    var problem = byId("animalPhoto.fileInput.error");
    var refused = error && (error.name === "NotAllowedError" || error.name === "SecurityError");
    problem.textContent = photoForm.getAttribute(refused ? "data-camera-refused" : "data-camera-missing");
    problem.hidden = false;
    stopCamera();
    cameraButton.focus();
  }
  if (photoForm && cameraButton && cameraView && video) {
    cameraButton.addEventListener("click", function () {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) { cameraProblem(null); return; }
      cameraButton.disabled = true;
      navigator.mediaDevices.getUserMedia({
        audio: false,
        video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } }
      }).then(function (opened) {
        stream = opened;
        video.srcObject = opened;
        byId("animalPhoto.fileInput.error").hidden = true;
        byId("animalPhoto.cameraStart").hidden = true;
        if (fileSource) { fileSource.hidden = true; }
        cameraView.hidden = false;
        return video.play();
      }).then(function () {
        byId("animalPhoto.capture").focus();
      }).catch(cameraProblem).finally(function () { cameraButton.disabled = false; });
    });
    byId("animalPhoto.camera.close").addEventListener("click", function () { stopCamera(); cameraButton.focus(); });
    byId("animalPhoto.capture").addEventListener("click", function () {
      if (!stream || !video.videoWidth) { return; }
      var canvas = document.createElement("canvas");
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
      stopCamera();
      byId("animalPhoto.cameraStart").hidden = true;
      canvas.toBlob(function (blob) {
        if (!blob) { cameraProblem(null); return; }
        uploadPhoto(blob, "camera.jpg");
      }, "image/jpeg", 0.9);
    });
    window.addEventListener("pagehide", stopCamera);
  }
})();

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

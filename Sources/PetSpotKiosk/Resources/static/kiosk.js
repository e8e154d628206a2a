// petspot-kiosk enhancements. Every page works without this file: it only
// adds the idle countdown dialog, the GPS button without a page reload,
// the chip number formatted while typing, character counters, and the photo
// upload with progress. Loaded from /static (no inline script: CSP).
(function () {
  "use strict";
  var html = document.documentElement;
  html.classList.add("js");
  var body = document.body;
  var csrf = body.getAttribute("data-csrf") || "";
  function byId(id) { return document.getElementById(id); }

  // The browser's Back must never show a page of an earlier visit.
  window.addEventListener("pageshow", function (event) { if (event.persisted) { location.reload(); } });

  function post(url, data, accept) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "X-CSRF-Token": csrf, "Accept": accept || "*/*", "Content-Type": "application/x-www-form-urlencoded" },
      body: data || ""
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
    ["input", "change", "keydown", "pointerdown", "touchstart"].forEach(function (name) {
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
  if (photoForm && fileInput && window.XMLHttpRequest) {
    fileInput.addEventListener("change", function () {
      var file = fileInput.files && fileInput.files[0];
      if (!file) { return; }
      var problem = byId("animalPhoto.fileInput.error");
      var limit = parseInt(photoForm.getAttribute("data-max-bytes"), 10);
      if (file.size > limit) {
        problem.textContent = photoForm.getAttribute("data-too-large").replace("{n}", String(Math.floor(limit / 1048576)));
        problem.hidden = false;
        fileInput.value = "";
        return;
      }
      var status = byId("animalPhoto.upload.status");
      var bar = byId("animalPhoto.upload.progress");
      status.hidden = false;
      problem.hidden = true;
      var request = new XMLHttpRequest();
      request.open("POST", photoForm.action);
      request.setRequestHeader("Accept", "application/json");
      request.upload.addEventListener("progress", function (event) {
        if (event.lengthComputable) { bar.value = Math.round(100 * event.loaded / event.total); }
      });
      request.addEventListener("load", function () {
        var next = "/report/photo";
        try { next = JSON.parse(request.responseText).next || next; } catch (ignored) { /* a page: reload the step */ }
        location.href = next;
      });
      request.addEventListener("error", function () { photoForm.submit(); });
      request.send(new FormData(photoForm));
    });
  }
})();

// "Use this station's location" without a page reload, and the permission alert.
(function () {
  "use strict";
  var kiosk = window.petspotKiosk;
  var byId = kiosk.byId, post = kiosk.post;

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
          // The focus goes to what the visitor can do: close it and type the coordinates (Go Settings
          // can only say that the staff can change it).
          byId("permissionAlert.cancelButton.tap").focus();
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
})();

// Larger text and higher contrast for the visit (the display toggle).
(function () {
  "use strict";
  var kiosk = window.petspotKiosk;
  var html = kiosk.html, byId = kiosk.byId, csrf = kiosk.csrf, post = kiosk.post;

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
})();

// The idle reset: "Still there?", then the visit is wiped.
(function () {
  "use strict";
  var kiosk = window.petspotKiosk;
  var body = kiosk.body, byId = kiosk.byId, post = kiosk.post;

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
})();

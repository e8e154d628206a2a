// Fields as they are typed: the chip number's grouping, character counters, the breed cleared
// by a new species, and a toast that clears itself.
(function () {
  "use strict";
  var kiosk = window.petspotKiosk;
  var byId = kiosk.byId;

  // MARK: Chip number: digits only, at most 15, shown 12345-67890-12345.
  var chip = byId("animalDescription.chipNumberTextField.input");
  if (chip) {
    chip.addEventListener("input", function () {
      var digits = chip.value.replace(/\D/g, "").slice(0, 15);
      chip.value = (digits.match(/.{1,5}/g) || []).join("-");
    });
  }

  // MARK: A toast with data-dismiss-after (the photo step's "Photo required", seed 002) clears after 3 s.
  Array.prototype.forEach.call(document.querySelectorAll(".toast[data-dismiss-after]"), function (toast) {
    var after = parseInt(toast.getAttribute("data-dismiss-after"), 10);
    if (!isNaN(after)) { setTimeout(function () { toast.hidden = true; }, after); }
  });

  // MARK: Character counters ("123/500"; near the cap, as the server's page words it (PageBuilder.counter):
  // "460/500 – 40 characters left", marked as a warning).
  Array.prototype.forEach.call(document.querySelectorAll("textarea[data-counter]"), function (area) {
    var counter = byId(area.getAttribute("data-counter"));
    if (!counter) { return; }
    var format = counter.getAttribute("data-left-format") || "";
    var within = parseInt(counter.getAttribute("data-warn-within"), 10);
    area.addEventListener("input", function () {
      var count = area.value.length, limit = parseInt(area.getAttribute("maxlength"), 10);
      var left = Math.max(0, limit - count);
      var warns = format !== "" && !isNaN(within) && left <= within;
      counter.textContent = warns
        ? format.replace("{count}", String(count)).replace("{max}", String(limit)).replace("{n}", String(left))
        : count + "/" + limit;
      counter.classList.toggle("warn", warns);
    });
  });

  // MARK: Species: a new species clears the breed (as the iOS form does).
  var species = byId("animalDescription.speciesDropdown.tap");
  var race = byId("animalDescription.raceTextField.input");
  if (species && race) { species.addEventListener("change", function () { race.value = ""; }); }
})();

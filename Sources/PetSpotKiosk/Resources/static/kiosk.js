// petspot-kiosk enhancements, one file a feature (each loaded from /static with defer, in the order
// PageHTML lists them; no inline script: CSP). Every page works without them: they only add the idle
// countdown dialog, the GPS button without a page reload, the chip number formatted while typing,
// character counters, the photo upload with progress, the camera, and the on-screen keyboard.
//
// This one runs first: what the others share (window.petspotKiosk), and what every page does.
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

  window.petspotKiosk = { html: html, body: body, csrf: csrf, byId: byId, post: post };
})();

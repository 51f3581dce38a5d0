(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function () {
    body.dataset.errors = String(Number(body.dataset.errors || 0) + 1);
  });
  var filter = document.getElementById("filter");
  var viewButton = document.getElementById("view");
  var themeButton = document.getElementById("theme");
  function matches(element, text) {
    return text === "" || (element.dataset.name || "").indexOf(text) !== -1;
  }
  function apply(value) {
    var text = value.trim().toLowerCase();
    document.querySelectorAll("article.object, nav#tree li.object, #not-rendered li").forEach(function (element) {
      element.hidden = !matches(element, text);
    });
    document.querySelectorAll("section.producer, nav#tree li.producer").forEach(function (element) {
      var objects = element.querySelectorAll("article.object, li.object");
      var shown = element.querySelectorAll("article.object:not([hidden]), li.object:not([hidden])");
      element.hidden = objects.length > 0 ? shown.length === 0 && !matches(element, text) : !matches(element, text);
      if (!element.hidden && matches(element, text)) {
        objects.forEach(function (object) { object.hidden = false; });
      }
    });
    document.querySelectorAll("nav#tree li.kind").forEach(function (element) {
      element.hidden = element.querySelectorAll("li.object:not([hidden])").length === 0;
    });
    var unrendered = document.getElementById("not-rendered");
    if (unrendered) {
      unrendered.hidden = unrendered.querySelectorAll("li:not([hidden])").length === 0;
      unrendered.querySelectorAll("details").forEach(function (group) {
        group.hidden = group.querySelectorAll("li:not([hidden])").length === 0;
      });
    }
  }
  filter.addEventListener("input", function () { apply(filter.value); });
  var views = ["unified", "split", "fields"];
  function show(view) {
    body.dataset.view = view;
    viewButton.value = view;
  }
  viewButton.addEventListener("change", function () { show(viewButton.value); });
  function dark() {
    var chosen = document.documentElement.dataset.theme;
    if (chosen) { return chosen === "dark"; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  function label() { themeButton.textContent = dark() ? "Light theme" : "Dark theme"; }
  themeButton.addEventListener("click", function () {
    document.documentElement.dataset.theme = dark() ? "light" : "dark";
    label();
  });
  label();
  // `#filter=TEXT`, `#view=unified|split|fields`, or both joined by `&`.
  function fromAddress() {
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at < 0) { return; }
      var name = part.slice(0, at);
      var value = part.slice(at + 1).replace(/\+/g, " ");
      try {
        value = decodeURIComponent(value);
      } catch (malformed) {
        // A `%` that starts no escape (`#filter=100%`) is taken as written.
      }
      if (name === "filter") {
        filter.value = value;
        apply(value);
      } else if (name === "view" && views.indexOf(value) >= 0) {
        show(value);
      }
    });
  }
  window.addEventListener("hashchange", fromAddress);
  fromAddress();
  body.dataset.ready = "1";
})();

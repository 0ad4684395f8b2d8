// Renders the OpenAPI document named by #redoc's data-spec-url with Redoc
// (redoc.standalone.js, loaded before this file). The page carries no
// inline script, so its Content-Security-Policy can allow scripts from the
// server only.
(function () {
  "use strict";
  var el = document.getElementById("redoc");
  if (!el) {
    return;
  }
  if (typeof Redoc === "undefined") {
    el.textContent = "The reference viewer did not load. The document is at " + el.dataset.specUrl + ".";
    return;
  }
  Redoc.init(el.dataset.specUrl, {
    // The navigation bar stays above Redoc's own sidebar.
    scrollYOffset: "header.docs-nav",
    expandResponses: "200,201",
    jsonSampleExpandLevel: 3,
    requiredPropsFirst: true,
    hideHostname: true,
    theme: {
      colors: { primary: { main: "#0a5d8f" } },
      typography: {
        fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
        headings: { fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
        code: { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" }
      },
      sidebar: { width: "280px" }
    }
  }, el);
})();

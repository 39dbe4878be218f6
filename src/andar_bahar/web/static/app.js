/* andar-bahar: small behaviour every page shares (no inline scripts: see the CSP). */
(function () {
  "use strict";

  // A new action clears the last error; the answer may show a new one in #errors.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail && event.detail.requestConfig;
    if (config && config.verb && config.verb !== "get") {
      var errors = document.getElementById("errors");
      if (errors) {
        errors.replaceChildren();
      }
    }
  });
})();

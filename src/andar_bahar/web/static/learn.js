/* andar-bahar: the trainer's exercises (web/templates/learn_*.html). Without it every page
   works as plain forms; with it: the tray of chips builds an amount, the clock of the
   dealer school runs, a card is typed or picked (not both), keys answer (a/b for a row,
   1/2 for a choice), and the answer's block keeps the keyboard where it was. */
(function () {
  "use strict";

  var lastAmount = null;

  // An amount as whole millionths (the server reads the text exactly; this only adds).
  function millionths(text, decimal) {
    var clean = String(text || "").replace(/\s/g, "").replace(decimal, ".");
    if (!/^\d*(\.\d{0,6})?$/.test(clean) || clean === "" || clean === ".") {
      return 0;
    }
    var parts = clean.split(".");
    var fraction = (parts[1] || "").padEnd(6, "0");
    return Number(parts[0] || "0") * 1000000 + Number(fraction);
  }

  function written(units, decimal) {
    var whole = Math.floor(units / 1000000);
    var fraction = String(units % 1000000).padStart(6, "0").replace(/0+$/, "");
    return fraction ? whole + decimal + fraction : String(whole);
  }

  function setUp(root) {
    var fields = root.querySelectorAll("input[data-amount]:not([readonly])");
    fields.forEach(function (field) {
      field.addEventListener("focus", function () { lastAmount = field; });
    });
    if (fields.length) {
      lastAmount = fields[0];
    }
    root.querySelectorAll("[data-tray]").forEach(function (tray) {
      if (!fields.length) {
        return;
      }
      tray.hidden = false;
      var decimal = tray.getAttribute("data-decimal") || ".";
      tray.addEventListener("click", function (event) {
        var button = event.target.closest("button");
        if (!button || !lastAmount) {
          return;
        }
        if (button.hasAttribute("data-clear")) {
          lastAmount.value = "";
        } else {
          var chip = millionths(button.getAttribute("data-chip"), ".");
          lastAmount.value = written(millionths(lastAmount.value, decimal) + chip, decimal);
        }
      });
    });
    root.querySelectorAll("[data-clock]").forEach(function (clock) {
      var began = Date.now();
      var time = clock.querySelector("[data-clock-time]");
      clock.hidden = false;
      var timer = setInterval(function () {
        if (!document.body.contains(clock)) {
          clearInterval(timer);
          return;
        }
        var seconds = Math.floor((Date.now() - began) / 1000);
        time.textContent = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      }, 1000);
    });
    root.querySelectorAll("[data-picker]").forEach(function (picker) {
      var typed = picker.querySelector("[data-card-field]");
      if (!typed) {
        return;
      }
      typed.addEventListener("input", function () {
        picker.querySelectorAll("input[type=radio]").forEach(function (radio) { radio.checked = false; });
      });
      picker.addEventListener("change", function (event) {
        if (event.target.type === "radio") {
          typed.value = "";
        }
      });
    });
    var focus = root.querySelector("[autofocus]");
    if (focus && root !== document) {
      focus.focus();
    }
  }

  // Keys: a or b taps the row, 1 or 2 the choice (not while typing in a field).
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (target && (target.tagName === "INPUT" && target.type !== "radio") || (target && target.tagName === "TEXTAREA")) {
      return;
    }
    var keys = { a: "andar", b: "bahar", "1": "1", "2": "2" };
    var value = keys[event.key && event.key.toLowerCase()];
    if (!value) {
      return;
    }
    var button = document.querySelector('#exercise button[data-answer="' + value + '"], #exercise button[data-deal-row="' + value + '"]');
    var radio = button ? null : document.querySelector('#exercise input[type=radio][data-answer="' + value + '"]:not(:disabled)');
    if (button) {
      event.preventDefault();
      button.click();
    } else if (radio) {
      event.preventDefault();
      radio.checked = true;
      radio.focus();
    }
  });

  document.addEventListener("DOMContentLoaded", function () { setUp(document); });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "exercise") {
      setUp(event.target);
    }
  });
})();

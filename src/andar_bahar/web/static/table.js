/* andar-bahar: the table pages (the player's phone, the dealer's screen, the room's display).
   No inline scripts, no eval (see the CSP). The live regions are elements with
   data-live-block="NAME" (web/live/blocks.py); static/live.js keeps the socket and fires
   "live:update" on document after it replaced regions. This script listens to it and:

   - sends the player's taps (a spot with the chosen chip, repeat, double, undo, clear, a
     marker) and the dealer's steps with fetch, applies the page's new blocks from the answer
     at once, and says what a tap did, or why it was refused (role="alert") — or, when the
     server does not answer, says so — in the phone's one place for messages under the felt,
     where the newest message replaces the last (the round's result too);
   - keeps the chosen chip across updates; lets the spots take bets while the felt says they
     are open; ticks the bet timer's countdown; announces new cards politely (aria-live) for
     screen readers;
   - the dealer: the space bar presses the next-step button; a real deck's card is picked
     by tapping (or typing) its rank and suit, and then the focus is on the next-step button
     (Space or Enter presses it).

   The answer to a tap is a live message too (the blocks it changed): this script applies
   it as live.js applies the socket's, and takes its version only when it is "complete". */
(function () {
  "use strict";

  var body = document.body;
  var kind = body.getAttribute("data-live-page");
  if (!kind) {
    return;
  }

  // -- applying blocks -------------------------------------------------------------------

  function pageVersion() {
    var value = body.getAttribute("data-live-version");
    return value === null || value === "" ? null : Number(value);
  }

  function focusKey(element) {
    var names = ["data-bet", "data-chip", "data-marker", "data-action", "data-next-step",
      "data-pick-rank", "data-pick-suit"];
    for (var i = 0; i < names.length; i += 1) {
      var target = element.closest("[" + names[i] + "]");
      if (target) {
        var value = target.getAttribute(names[i]);
        return "[" + names[i] + (value ? '="' + value.replace(/"/g, '\\"') + '"' : "") + "]";
      }
    }
    return null;
  }

  function apply(message) {
    var version = pageVersion();
    var complete = message.complete === true;
    // Only the blocks the page does not show newer already (live.js: the socket's messages
    // and the answers race); a complete answer older than the page still brings the blocks
    // the socket left to it.
    var blocks = window.andarLive ? window.andarLive.fresh(message) : (message.blocks || {});
    var active = document.activeElement;
    Object.keys(blocks).forEach(function (name) {
      var regions = document.querySelectorAll('[data-live-block="' + name + '"]');
      Array.prototype.forEach.call(regions, function (region) {
        var keep = active && region.contains(active) ? focusKey(active) : null;
        region.innerHTML = blocks[name];
        if (window.htmx) {
          window.htmx.process(region);
        }
        if (keep) {   // a keyboard user keeps their place
          var again = region.querySelector(keep);
          if (again) {
            again.focus({ preventScroll: true });
          }
        }
      });
    });
    var current = window.andarLive ? window.andarLive.piles(message) : true;
    if (current && complete && typeof message.v === "number" &&
        (version === null || message.v > version)) {
      body.setAttribute("data-live-version", String(message.v));
    }
    document.dispatchEvent(new CustomEvent("live:update", { detail: message }));
  }

  window.andarBahar = { apply: apply };

  // -- the connection: say when it is back --------------------------------------------------

  var backTimer = null;

  function showBack() {
    var back = document.getElementById("live-back");
    if (!back) {
      return;
    }
    back.hidden = false;
    clearTimeout(backTimer);
    backTimer = setTimeout(function () {
      back.hidden = true;
    }, 4000);
  }

  // live.js marks <body class="live-down"> while the connection is lost; when it is back
  // (and has caught up: the server sends what was missed at once), say so for a moment.
  var wasDown = body.classList.contains("live-down");
  new MutationObserver(function () {
    var down = body.classList.contains("live-down");
    if (wasDown && !down) {
      showBack();
    }
    wasDown = down;
  }).observe(body, { attributes: true, attributeFilter: ["class"] });

  // -- texts the page gives this script (translated on the server) -----------------------------

  function text(name, fallback) {
    var holder = document.querySelector("[data-" + name + "]");
    return (holder && holder.getAttribute("data-" + name)) || fallback;
  }

  // -- sending taps and steps ---------------------------------------------------------------

  var csrf = (function () {
    try {
      return JSON.parse(body.getAttribute("hx-headers") || "{}");
    } catch (ignored) {
      return {};
    }
  })();

  function newKey() {
    var bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  var retryKeys = {};   // a tap the server may not have heard is sent again with its key
  var busy = false;

  function errorOf(html, status) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var found = doc.querySelector(".error, [role=alert]");
    var sentence = found ? found.textContent.trim() : "";
    if (sentence) {
      return { text: sentence, offline: false };
    }
    return { text: text("offline", "The table did not answer (" + status + ")."), offline: true };
  }

  // The phone's one place for messages (under the felt, never over the spots): a tap's
  // note or refusal replaces what was there — the round's result too, until the next one.
  var noteTimer = null;

  function say(which, sentence) {
    var area = document.querySelector("[data-messages]");
    if (!area) {
      return false;
    }
    clearTimeout(noteTimer);
    ["error", "note"].forEach(function (name) {
      var box = area.querySelector("[data-tap-" + name + "]");
      box.textContent = name === which ? sentence : "";
      box.classList.toggle("shown", name === which && Boolean(sentence));
    });
    if (which === "note" && sentence) {
      noteTimer = setTimeout(function () {
        say(null, "");
      }, 4000);
    }
    return true;
  }

  function showError(form, sentence) {
    if (form.hasAttribute("data-bet-form") && say("error", sentence)) {
      return;
    }
    var target = document.querySelector(form.getAttribute("data-alert") || "#errors");
    if (target) {
      target.replaceChildren();
      var p = document.createElement("p");
      p.className = "error";
      p.textContent = sentence;
      target.appendChild(p);
      if (target.getBoundingClientRect().bottom > window.innerHeight) {
        target.scrollIntoView({ block: "nearest" });
      }
    }
  }

  function clearErrors(form) {
    if (form.hasAttribute("data-bet-form")) {
      say(null, "");
    }
    var target = document.querySelector(form.getAttribute("data-alert") || "#errors");
    if (target) {
      target.replaceChildren();
    }
  }

  var queue = [];   // taps made while one is on its way go after it, in order

  // What a tap sends is read when it is made (a live update may redraw the form meanwhile).
  function send(form, submitter) {
    var data = new URLSearchParams(new FormData(form));
    if (submitter && submitter.name) {
      data.append(submitter.name, submitter.value);
    }
    var action = (submitter && submitter.getAttribute("formaction")) || form.getAttribute("action");
    var what = new URLSearchParams(data);
    what.delete("key");
    what.delete("csrf_token");
    var signature = action + "?" + what.toString();
    if (busy) {
      // A dealer's step pressed twice while it is on its way is one step (dealing again is
      // another card, a spot tapped again is another chip: those go after it).
      var again = action === inFlight && form.hasAttribute("data-live-form") && !/\/deal$/.test(action);
      if (!again) {
        queue.push([form, submitter, data, action, signature]);
      }
      return;
    }
    post(form, submitter, data, action, signature);
  }

  var inFlight = null;

  function post(form, submitter, data, action, signature) {
    inFlight = action;
    if (data.has("key")) {
      data.set("key", retryKeys[signature] || newKey());
    }
    clearErrors(form);
    busy = true;
    body.classList.add("sending");
    fetch(action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: Object.assign({ Accept: "application/json", "HX-Request": "true" }, csrf,
        // live.js's socket id: the server sends down it only what this answer does not bring
        body.getAttribute("data-live-socket") ?
          { "X-Live-Socket": body.getAttribute("data-live-socket") } : {})
    })
      .then(function (response) {
        var type = response.headers.get("content-type") || "";
        if (response.ok && type.indexOf("application/json") >= 0) {
          return response.json().then(function (message) {
            delete retryKeys[signature];
            apply(message);
            if (form.hasAttribute("data-reset")) {
              form.reset();
            }
            if (message.data && message.data.note) {
              say("note", message.data.note);
            }
          });
        }
        var redirect = response.headers.get("HX-Redirect");
        if (redirect) {
          location.href = redirect;
          return null;
        }
        var unserved = response.status === 503;   // the database is not answering: not done
        if (response.status >= 500 && !unserved) {   // it may have changed the table all the same
          document.dispatchEvent(new CustomEvent("live:resync"));
        }
        return response.text().then(function (html) {
          var problem = errorOf(html, response.status);
          if (problem.offline || unserved) {   // sent again, with the same key
            retryKeys[signature] = data.get("key");
          } else {
            delete retryKeys[signature];
          }
          showError(form, problem.text);
        });
      })
      .catch(function () {
        if (data.has("key")) {
          retryKeys[signature] = data.get("key");
        }
        document.dispatchEvent(new CustomEvent("live:resync"));   // as above: unknown
        showError(form, text("offline", "The table did not answer."));
      })
      .then(function () {
        busy = false;
        body.classList.remove("sending");
        var next = queue.shift();
        if (next) {
          post.apply(null, next);
        }
      });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("[data-bet-form], [data-live-form]") || !window.fetch) {
      return;
    }
    event.preventDefault();
    send(form, event.submitter || null);
  });

  // -- the chip in hand -----------------------------------------------------------------

  var chipKey = "ab-chip:" + location.pathname;

  function remember(key, value) {
    try {
      sessionStorage.setItem(key, value);
    } catch (ignored) {
      /* private mode: the page still works, it just forgets */
    }
  }

  function recall(key) {
    try {
      return sessionStorage.getItem(key);
    } catch (ignored) {
      return null;
    }
  }

  function restoreChip() {
    var wanted = recall(chipKey);
    if (!wanted) {
      return;
    }
    var chips = document.querySelectorAll("[data-chip] input");
    Array.prototype.forEach.call(chips, function (input) {
      if (input.value === wanted) {
        input.checked = true;
      }
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches("[data-chip] input")) {
      remember(chipKey, event.target.value);
    }
  });

  // -- the round's state: spots, countdown, banner, announcements -----------------------------

  function tableState() {
    return document.querySelector("[data-round-state]");
  }

  // The spots take bets while the felt says the round is open: the felt is drawn with
  // every card (and kept in order by its version), the spots only when a stake changes.
  function spotsAsFelt() {
    var state = tableState();
    var spots = document.querySelector("[data-bet-spots]");
    if (state && spots) {
      spots.disabled = state.getAttribute("data-round-state") !== "open";
    }
  }

  function tick() {
    var clocks = document.querySelectorAll(".countdown[data-deadline]");
    Array.prototype.forEach.call(clocks, function (clock) {
      if (!clock.hasAttribute("data-skew")) {
        var now = Date.parse(clock.getAttribute("data-now") || "");
        clock.setAttribute("data-skew", String(isNaN(now) ? 0 : now - Date.now()));
      }
      var deadline = Date.parse(clock.getAttribute("data-deadline"));
      var left = Math.max(0, deadline - (Date.now() + Number(clock.getAttribute("data-skew"))));
      var seconds = Math.ceil(left / 1000);
      var shown = clock.querySelector(".countdown-time");
      if (shown) {
        shown.textContent = Math.floor(seconds / 60) + ":" + ("0" + (seconds % 60)).slice(-2);
      }
      clock.classList.toggle("ending", seconds <= 5);
    });
  }

  // A new result, or a new round, is newer than any tap's message: it goes.
  var resultShown = null;
  var roundShown = null;

  function messages() {
    var result = document.querySelector("[data-banner]");
    var state = tableState();
    var now = result ? result.getAttribute("data-banner") : null;
    var round = state ? state.getAttribute("data-round") : null;
    if ((now !== null && now !== resultShown) || (roundShown !== null && round !== roundShown)) {
      say(null, "");
    }
    resultShown = now;
    roundShown = round;
  }

  var seen = null;
  var seenRound = null;
  var seenVerdict = null;

  function cardsNow() {
    var found = [];
    var cards = document.querySelectorAll("[data-row] [data-card], [data-centre]");
    Array.prototype.forEach.call(cards, function (card) {
      var row = card.closest("[data-row]");
      found.push({
        code: card.getAttribute("data-card"),
        words: (row ? row.getAttribute("aria-label") + ": " : "") + card.getAttribute("aria-label")
      });
    });
    return found;
  }

  function announce() {
    var state = tableState();
    var round = state ? state.getAttribute("data-round") : null;
    var cards = cardsNow();
    var verdict = document.querySelector(".felt-status.verdict");
    var verdictText = verdict ? verdict.textContent.trim() : null;
    if (seen === null || round !== seenRound) {
      var first = seen === null;
      seen = {};
      seenRound = round;
      seenVerdict = verdictText;
      cards.forEach(function (card) {
        seen[card.code] = true;
      });
      if (first || !cards.length) {
        return;
      }
    }
    var news = [];
    cards.forEach(function (card) {
      if (!seen[card.code]) {
        seen[card.code] = true;
        news.push(card.words);
      }
    });
    if (verdictText && verdictText !== seenVerdict) {
      news.push(verdictText);
    }
    seenVerdict = verdictText;
    var region = document.getElementById("announce");
    if (region && news.length) {
      region.textContent = news.join(". ");
    }
  }

  // Keyboard users keep their place when a live message redraws the control they were on.
  var focused = null;

  document.addEventListener("focusin", function (event) {
    focused = event.target && event.target.closest ? focusKey(event.target) : null;
  });

  function refocus() {
    var active = document.activeElement;
    if (focused && (!active || active === body || !document.body.contains(active))) {
      var again = document.querySelector(focused);
      if (again) {
        again.focus({ preventScroll: true });
      }
    }
  }

  function update() {
    refocus();
    restoreChip();
    spotsAsFelt();
    tick();
    messages();
    announce();
  }

  document.addEventListener("live:update", update);
  update();
  setInterval(tick, 250);

  // -- the dealer: the space bar, and a real deck's card by rank and suit ----------------------

  function nextStep() {
    return document.querySelector("[data-next-step]");
  }

  function picked(picker) {
    var rank = picker.getAttribute("data-rank") || "";
    if (picker.getAttribute("data-picker") === "rank") {
      return rank;
    }
    var suit = picker.getAttribute("data-suit") || "";
    return rank && suit ? rank + suit : "";
  }

  // A card half picked survives a live update (another player's bet, a dealt card shown by
  // the socket); the answer to the dealer's own step clears it.
  var held = null;

  function stepKey() {
    var step = nextStep();
    var state = tableState();
    return (step ? step.getAttribute("data-step") : "") + ":" +
      (state ? state.getAttribute("data-round") : "");
  }

  function pick(picker, attribute, value) {
    if (!held || held.key !== stepKey()) {
      held = { key: stepKey(), rank: null, suit: null };
    }
    held[attribute] = value;
    picker.setAttribute(attribute === "rank" ? "data-rank" : "data-suit", value);
    var buttons = picker.querySelectorAll("[data-pick-" + attribute + "]");
    Array.prototype.forEach.call(buttons, function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-pick-" + attribute) === value));
    });
    var card = picked(picker);
    picker.querySelector("[data-picked]").value = card;
    var show = picker.querySelector("[data-picked-show]");
    var none = picker.querySelector("[data-picked-none]");
    var rankButton = picker.querySelector('[data-pick-rank][aria-pressed="true"]');
    var suitButton = picker.querySelector('[data-pick-suit][aria-pressed="true"]');
    show.replaceChildren();
    if (rankButton) {
      show.appendChild(document.createTextNode(rankButton.textContent));
    }
    if (suitButton) {
      show.appendChild(suitButton.firstElementChild.cloneNode(true));
      show.className = "picked-card " + (suitButton.classList.contains("red") ? "red" : "black");
    }
    none.hidden = Boolean(rankButton);
  }

  document.addEventListener("live:update", function (event) {
    var picker = document.querySelector("[data-picker]");
    if ((event.detail && event.detail.kind === "answer") || !picker) {
      held = null;
      return;
    }
    if (held && held.key === stepKey()) {
      var kept = held;
      if (kept.rank) {
        pick(picker, "rank", kept.rank);
      }
      if (kept.suit && picker.getAttribute("data-picker") === "card") {
        pick(picker, "suit", kept.suit);
      }
    }
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-pick-rank], [data-pick-suit]");
    if (!button) {
      return;
    }
    var picker = button.closest("[data-picker]");
    if (button.hasAttribute("data-pick-rank")) {
      pick(picker, "rank", button.getAttribute("data-pick-rank"));
    } else {
      pick(picker, "suit", button.getAttribute("data-pick-suit"));
    }
    ready(picker);
  });

  // A card picked whole (by mouse, touch or keys): the next-step button takes the focus,
  // so that Space or Enter presses it, as its hint says.
  function ready(picker) {
    var step = nextStep();
    if (picked(picker) && step && !step.disabled) {
      step.focus({ preventScroll: true });
    }
  }

  var RANK_KEYS = { t: "10", "0": "10", j: "J", q: "Q", k: "K", a: "A" };
  var SUIT_KEYS = { s: "♠", h: "♥", d: "♦", c: "♣" };

  document.addEventListener("keydown", function (event) {
    if (kind !== "dealer" || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    var target = event.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) {
      return;
    }
    var onControl = target && target.closest && target.closest("button, a, summary");
    if (event.key === " " || event.code === "Space") {
      var step = nextStep();
      if (onControl || !step || step.disabled) {
        return;   // a focused button takes the space bar itself
      }
      event.preventDefault();
      if (!event.repeat) {
        step.click();   // sent after the step on its way, if there is one
      }
      return;
    }
    var picker = document.querySelector("[data-picker]");
    var key = (event.key || "").toLowerCase();
    if (!picker) {
      return;
    }
    var rank = RANK_KEYS[key] || (/^[2-9]$/.test(key) ? key : null);
    if (rank) {
      pick(picker, "rank", rank);
    } else if (SUIT_KEYS[key] && picker.getAttribute("data-picker") === "card") {
      pick(picker, "suit", SUIT_KEYS[key]);
    } else {
      return;
    }
    ready(picker);
  });
})();

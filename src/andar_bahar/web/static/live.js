/* andar-bahar: keep a table page live (the protocol: web/live/hub.py).
   <body data-live-path="/ws/CODE" data-live-page="player|dealer|…" data-live-version="N">
   (base.html sets them). Opens ws(s)://host/ws/CODE?page=KIND&v=N&lang=LL; each message
   {"v", "kind", "blocks", "data"} (and "h", the version of its HTML, where newer than
   "v") newer than the page replaces the inside of every [data-live-block=NAME] element with
   blocks[NAME], unless the page shows that block at a newer version already (through htmx,
   so hx-preserve and htmx attributes work), sets data-live-version, then fires
   "live:update" on document with the message as detail, for page scripts. No message
   ever makes the page send a request.
   A dealt card's message may bring, instead of the felt block, the cards its piles lack
   ("piles": {NAME: {"round", "from", "cards": [{"row", "count", "html"}], "dealt"}};
   web/live/piles.py): each card is appended to its row and the row's count set (and the
   room screen's line of cards dealt replaced), which gives the very felt a new block would.
   Only where the page shows that round with "from" cards (or some of those the message
   brings: only the rest are appended); else the page asks for every block again (it
   reconnects as from version -1).
   The answer to an htmx action of this page may be such a message too (header X-Live):
   its blocks are applied the same way, its version only when it is "complete", and the
   form the action came from is reset.
   Its socket has an id (?s=ID) that the page's own actions send (header X-Live-Socket): the
   server then does not send down the socket what their answers brought.
   Never silently stale: the server sends something at least once a beat (data-live-beat,
   10 s; "beat" when it has nothing else), so a socket that hears nothing for 1.4 beats is
   dead even if it never closed (a black-holed route): the page says "reconnecting…" in
   #live-status (<body class="live-down">; table.js says when it is back) and connects
   again at once; on reconnecting the server sends whatever was missed, in one message.
   While down it tries again soon (0.25 s doubling to 1 s, ±25 %), with or without the
   browser's "online" event, so that it is current within 2 s of the network's return;
   an attempt that does not open within 2 s (its packets lost) gives way to a fresh one.
   A server that says "not now" (close 1013: its database is not answering) is asked
   again less often (2 s doubling to 8 s); one that refuses the page (1008), never. */
(function () {
  "use strict";

  // The table version each live block's HTML shows: a message (from the socket, or the
  // answer to an action) replaces a block only with HTML at least as new. The two race: the
  // answer to a bet, drawn before the dealer closed the bets, may arrive after the socket
  // brought the closed table, and must not open it again on this page. A message's HTML is
  // at version "h" when it has one (a socket message standing for several changes may
  // carry HTML newer than its "v"), else at "v".
  var shown = {};
  function htmlVersion(message) {
    return typeof message.h === "number" ? message.h : message.v;
  }
  function fresh(message) {
    var at = htmlVersion(message);
    var blocks = message.blocks || {};
    var out = {};
    Object.keys(blocks).forEach(function (name) {
      if (typeof at === "number") {
        if (shown[name] > at) {
          return;   // the page shows this block newer already
        }
        shown[name] = at;
      }
      out[name] = blocks[name];
    });
    return out;
  }

  // The cards a message brings the piles of a block: those the page lacks appended, where
  // it shows the round with the cards the message starts from, or some of those it brings
  // (the answer to a deal and the socket's message race); false: it shows neither.
  function appendTo(region, pile) {
    var state = region.querySelector("[data-round]");
    var has = region.querySelectorAll(".row-cards .slot:not(.empty)").length;
    if (!state || state.getAttribute("data-round") !== String(pile.round) ||
        has < pile.from || has > pile.from + pile.cards.length) {
      return false;
    }
    var cards = pile.cards.slice(has - pile.from);
    var lanes = cards.map(function (card) {
      return region.querySelector('.lane[data-row="' + card.row + '"]');
    });
    var line = pile.dealt && cards.length ? region.querySelector(".dealt-count") : null;
    if (lanes.some(function (lane) { return !lane || !lane.querySelector(".row-count"); }) ||
        (pile.dealt && cards.length && !line)) {
      return false;
    }
    cards.forEach(function (card, i) {
      lanes[i].querySelector(".row-cards").insertAdjacentHTML("beforeend", card.html);
      lanes[i].querySelector(".row-count").textContent = String(card.count);
    });
    if (line) {
      line.outerHTML = pile.dealt;
    }
    return true;
  }

  // Apply a message's piles (none shown at its version yet); false if the page's piles were
  // not where the message starts from: it then asks for every block again.
  function piles(message) {
    var at = htmlVersion(message);
    var all = message.piles || {};
    var current = true;
    Object.keys(all).forEach(function (name) {
      if (typeof at !== "number" || shown[name] >= at) {
        return;   // the page has these cards already (the answer and the socket race)
      }
      var regions = document.querySelectorAll('[data-live-block="' + name + '"]');
      for (var i = 0; i < regions.length; i += 1) {
        current = appendTo(regions[i], all[name]) && current;
      }
      shown[name] = at;
    });
    if (!current) {
      document.body.setAttribute("data-live-version", "-1");
      document.dispatchEvent(new CustomEvent("live:resync"));
    }
    return current;
  }
  // table.js applies its fetches' answers with them
  window.andarLive = { fresh: fresh, piles: piles };

  var body = document.body;
  var path = body.getAttribute("data-live-path");
  if (!path || !window.WebSocket) {
    return;
  }
  var badge = document.getElementById("live-status");
  var BEAT = (parseFloat(body.getAttribute("data-live-beat")) || 10) * 1000;
  var SILENCE = BEAT * 1.4;   // nothing heard for this long (14 s): the line is dead — 1 s
                              // under 15 s, for a busy phone's late timer
  var MIN_DELAY = 250;        // after a failed attempt, try again this soon, doubling …
  var MAX_DELAY = 1000;       // … to at most this: current within 2 s of the network's return
  var LATER_DELAY = 2000;     // the server said "not now" (1013): this, doubling …
  var LATER_MAX = 8000;       // … to at most this
  var OPENING = 2000;         // an attempt not open by then is given up for a fresh one
  var SETTLE = 300;           // open this long (or a first message): the page is back
  var POLICY = 1008;          // the server refused this page: retrying will not help
  var TRY_LATER = 1013;       // the server cannot serve it now
  // This page's socket id: its own actions send it (X-Live-Socket), so that what their
  // answers bring the page is not sent down the socket again.
  var socketId = (function () {
    var bytes = new Uint8Array(12);
    if (window.crypto && window.crypto.getRandomValues) {
      window.crypto.getRandomValues(bytes);
    } else {
      for (var i = 0; i < bytes.length; i += 1) {
        bytes[i] = Math.floor(Math.random() * 256);
      }
    }
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  })();
  body.setAttribute("data-live-socket", socketId);   // table.js sends it with its fetches
  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-Live-Socket"] = socketId;
  });

  var socket = null;          // the open socket
  var attempt = null;         // the socket being opened
  var openedAt = 0;           // when the attempt began
  var delay = MIN_DELAY;
  var laterDelay = LATER_DELAY;
  var retry = null;           // the timer of the next attempt
  var watch = null;           // the watchdog's timer (silence, or a slow attempt)
  var lastHeard = 0;
  var leaving = false;

  function version() {
    var value = parseInt(body.getAttribute("data-live-version") || "-1", 10);
    return isNaN(value) ? -1 : value;
  }

  function address() {
    var query = "?page=" + encodeURIComponent(body.getAttribute("data-live-page") || "player") +
      "&v=" + version() + "&lang=" + encodeURIComponent(document.documentElement.lang || "") +
      "&s=" + socketId;
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path + query;
  }

  function showDown(down) {
    if (badge) {
      badge.hidden = !down;
    }
    body.classList.toggle("live-down", down);
  }

  function replace(region, html) {
    if (window.htmx && window.htmx.swap) {
      window.htmx.swap(region, html, { swapStyle: "innerHTML", swapDelay: 0, settleDelay: 0 });
    } else {
      region.innerHTML = html;
    }
  }

  // Apply a message: its blocks, then (if it is complete) its version; then tell page scripts.
  function apply(message, complete) {
    if (!message || typeof message !== "object") {
      return;
    }
    var blocks = fresh(message);
    Object.keys(blocks).forEach(function (name) {
      var regions = document.querySelectorAll('[data-live-block="' + name + '"]');
      for (var i = 0; i < regions.length; i += 1) {
        replace(regions[i], blocks[name]);
      }
    });
    var current = piles(message);
    if (current && complete && typeof message.v === "number" && message.v > version()) {
      body.setAttribute("data-live-version", String(message.v));
    }
    document.dispatchEvent(new CustomEvent("live:update", { detail: message }));
  }

  function received(text) {
    var message;
    try {
      message = JSON.parse(text);
    } catch (ignored) {
      return;
    }
    // Not newer than what the page shows: dropped. Its HTML counts ("h"): the answer to the
    // dealer's own step may have moved the page's version to this message's v already,
    // while this message, drawn later, brings a player's bet that came meanwhile.
    if (typeof message.v !== "number" || htmlVersion(message) <= version()) {
      return;
    }
    apply(message, true);
  }

  // The answer to this page's own htmx action: the blocks it changed, at once.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (!xhr || !xhr.getResponseHeader("X-Live") || xhr.status >= 300) {
      return;
    }
    event.detail.shouldSwap = false;
    var source = event.detail.requestConfig && event.detail.requestConfig.elt;
    var form = source && (source.form || (source.closest && source.closest("form")));
    if (form) {
      form.reset();   // done: the form is ready for the next action
    }
    try {
      var message = JSON.parse(xhr.responseText);
      apply(message, message.complete === true);
    } catch (ignored) {
      /* not a live message */
    }
  });

  function schedule(later) {
    if (retry !== null || leaving) {
      return;
    }
    var wait = later ? laterDelay : delay;
    if (later) {
      laterDelay = Math.min(laterDelay * 2, LATER_MAX);
    } else {
      delay = Math.min(delay * 2, MAX_DELAY);
    }
    retry = setTimeout(function () {
      retry = null;
      connect();
    }, wait * (0.75 + Math.random() * 0.5));
  }

  function lost(later) {
    socket = null;
    if (!leaving) {
      showDown(true);
      schedule(later);
    }
  }

  // Stop listening to a socket and close it.
  function abandon(ws) {
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      try {
        ws.close();
      } catch (ignored) {
        /* already closing */
      }
    }
  }

  function forget() {
    abandon(socket);
    abandon(attempt);
    socket = attempt = null;
  }

  // The watchdog: wakes when the open socket's silence or the attempt's wait would run out.
  function arm() {
    clearTimeout(watch);
    watch = null;
    var due = socket ? lastHeard + SILENCE : (attempt ? openedAt + OPENING : 0);
    if (due) {
      watch = setTimeout(check, Math.max(due - Date.now(), 20));
    }
  }

  function check() {
    watch = null;
    if (socket && Date.now() - lastHeard >= SILENCE) {
      stale();   // no word for 1.4 beats, and no close: a dead line (a Wi-Fi that dropped …)
      return;
    }
    if (!socket && attempt && Date.now() - openedAt >= OPENING) {
      abandon(attempt);   // its packets are lost: a fresh attempt starts its retries over
      attempt = null;
      connect();
      return;
    }
    arm();
  }

  function stale() {
    forget();
    showDown(true);
    reconnectNow();
  }

  function confirmed() {
    delay = MIN_DELAY;
    laterDelay = LATER_DELAY;
    showDown(false);   // caught up: the server sent what this page missed, if anything
  }

  function connect() {
    if (socket || attempt || leaving) {
      return;
    }
    var ws;
    try {
      ws = new WebSocket(address());
    } catch (error) {
      lost(false);
      return;
    }
    attempt = ws;
    openedAt = Date.now();
    ws.onopen = function () {
      attempt = null;
      socket = ws;
      lastHeard = Date.now();
      setTimeout(function () {
        if (socket === ws) {
          confirmed();
        }
      }, SETTLE);   // not at once: a server that cannot serve now closes it right away
      arm();
    };
    ws.onmessage = function (event) {
      if (socket !== ws) {
        return;
      }
      lastHeard = Date.now();
      if (body.classList.contains("live-down")) {
        confirmed();
      }
      if (event.data !== "beat" && event.data !== "pong") {
        received(event.data);
      }
    };
    ws.onclose = function (event) {
      if (socket !== ws && attempt !== ws) {
        return;
      }
      socket = attempt = null;
      if (event.code === POLICY) {
        arm();
        return;
      }
      lost(event.code === TRY_LATER);
      arm();
    };
    arm();
  }

  function probe() {
    var probed = socket;
    var sentAt = Date.now();
    probed.send("ping");
    setTimeout(function () {
      if (socket === probed && lastHeard < sentAt) {
        stale();
      }
    }, 5000);
  }

  // An action of this page whose answer did not come (table.js): the table may have changed
  // without the socket saying so (it leaves this page's own changes to their answers), so
  // connect again: the server then sends everything the page has not got.
  function resync() {
    forget();
    reconnectNow();
  }
  document.addEventListener("live:resync", resync);
  document.addEventListener("htmx:sendError", resync);
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.status >= 500 && xhr.status !== 503) {   // 503: not done, nothing missed
      resync();
    }
  });

  function reconnectNow() {
    if (retry !== null) {
      clearTimeout(retry);
      retry = null;
    }
    delay = MIN_DELAY;
    connect();
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > BEAT) {
        probe();   // a phone back from sleep: check the line at once
      }
      reconnectNow();
    }
  });
  window.addEventListener("online", reconnectNow);
  window.addEventListener("pagehide", function () {
    leaving = true;
    forget();
    clearTimeout(watch);
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {   // back from the browser's page cache: catch up
      leaving = false;
      reconnectNow();
    }
  });

  connect();
})();

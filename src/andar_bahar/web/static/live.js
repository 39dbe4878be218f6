/* andar-bahar: follow a table live.
   <body data-live-path="/ws/CODE"> (base.html sets it when a page has live_table).
   Opens ws(s)://host/ws/CODE; every message fires the htmx event "table-changed" on
   <body>, so each fragment with hx-trigger="table-changed from:body" reloads itself.
   Reconnects with backoff (0.5 s doubling to 30 s), shows #live-status while down,
   and fires "table-changed" whenever the socket opens (the first time too), for what
   was missed meanwhile. */
(function () {
  "use strict";

  var body = document.body;
  var path = body.getAttribute("data-live-path");
  if (!path || !window.WebSocket) {
    return;
  }
  var badge = document.getElementById("live-status");
  var MIN_DELAY = 500;
  var MAX_DELAY = 30000;
  var PING_EVERY = 25000;   // ask the server for a "pong" this often …
  var SILENCE = 60000;      // … and give the socket up after this long without a word
  var POLICY = 1008;        // the server refused this table: retrying will not help

  var socket = null;
  var delay = MIN_DELAY;
  var retry = null;
  var lastHeard = 0;
  var openedBefore = false;
  var failed = false;
  var leaving = false;

  function address() {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  }

  function showDown(down) {
    if (badge) {
      badge.hidden = !down;
    }
    body.classList.toggle("live-down", down);
  }

  function changed(detail) {
    if (window.htmx) {
      window.htmx.trigger(body, "table-changed", detail || {});
    }
  }

  function schedule() {
    if (retry !== null || leaving) {
      return;
    }
    var wait = delay + Math.random() * delay * 0.3;
    delay = Math.min(delay * 2, MAX_DELAY);
    retry = setTimeout(function () {
      retry = null;
      connect();
    }, wait);
  }

  function lost() {
    socket = null;
    failed = true;
    if (!leaving) {
      showDown(true);
      schedule();
    }
  }

  function drop() {
    // A silent socket (a phone that slept, a Wi-Fi that changed): stop waiting for it.
    var old = socket;
    if (old) {
      old.onopen = old.onmessage = old.onclose = old.onerror = null;
      try {
        old.close();
      } catch (ignored) {
        /* already closing */
      }
    }
    lost();
  }

  function connect() {
    if (socket || leaving) {
      return;
    }
    var ws;
    try {
      ws = new WebSocket(address());
    } catch (error) {
      lost();
      return;
    }
    socket = ws;
    ws.onopen = function () {
      delay = MIN_DELAY;
      lastHeard = Date.now();
      showDown(false);
      // Fetch the fragments once the socket is open, the first time too: an event
      // published between this page's render and this moment reached no one here.
      changed({ reconnected: openedBefore || failed });
      openedBefore = true;
      failed = false;
    };
    ws.onmessage = function (event) {
      lastHeard = Date.now();
      if (event.data === "pong") {
        return;
      }
      var detail = {};
      try {
        detail = JSON.parse(event.data);
      } catch (ignored) {
        /* not JSON: still a change */
      }
      changed(detail);
    };
    ws.onclose = function (event) {
      if (socket !== ws) {
        return;
      }
      if (event.code === POLICY) {
        socket = null;
        return;
      }
      lost();
    };
  }

  function probe() {
    var probed = socket;
    var sentAt = Date.now();
    probed.send("ping");
    setTimeout(function () {
      if (socket === probed && lastHeard < sentAt) {
        drop();
      }
    }, 5000);
  }

  function reconnectNow() {
    if (retry !== null) {
      clearTimeout(retry);
      retry = null;
    }
    delay = MIN_DELAY;
    connect();
  }

  setInterval(function () {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return;
    }
    if (Date.now() - lastHeard > SILENCE) {
      drop();
    } else {
      socket.send("ping");
    }
  }, PING_EVERY);

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > PING_EVERY) {
        probe();   // a phone back from sleep: check the line at once
      }
      reconnectNow();
    }
  });
  window.addEventListener("online", reconnectNow);
  window.addEventListener("pagehide", function () {
    leaving = true;
    if (socket) {
      socket.onclose = null;
      socket.close();
      socket = null;
    }
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {   // back from the browser's page cache: catch up
      leaving = false;
      failed = true;
      reconnectNow();
    }
  });

  connect();
})();

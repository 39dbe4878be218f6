// Fairness, in the browser itself. On a table page: keep (localStorage, per table and round)
// the deck commitment shown while bets are open. On /verify/CODE/N: check that
// SHA-256("<deck>|<salt>") is the published commitment, that it is the one this browser
// saw while betting, and that the deck's order gives exactly the cards turned.
// crypto.subtle exists only in a secure context (https, or this computer itself): a phone that
// opens http://192.168.x.x/ on the club's Wi-Fi has none, so the hash is also computed here.
(function () {
  "use strict";

  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);

  // SHA-256 of bytes (FIPS 180-4), as 32 bytes.
  function sha256(bytes) {
    const length = bytes.length;
    const blocks = Math.ceil((length + 9) / 64);
    const padded = new Uint8Array(blocks * 64);
    padded.set(bytes);
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length * 8) >>> 0);
    const h = new Uint32Array([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]);
    const w = new Uint32Array(64);
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    for (let block = 0; block < blocks; block += 1) {
      for (let i = 0; i < 16; i += 1) {
        w[i] = view.getUint32(block * 64 + i * 4);
      }
      for (let i = 16; i < 64; i += 1) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i += 1) {
        const t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = (d + t1) >>> 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) >>> 0;
      }
      h[0] += a;
      h[1] += b;
      h[2] += c;
      h[3] += d;
      h[4] += e;
      h[5] += f;
      h[6] += g;
      h[7] += hh;
    }
    const out = new Uint8Array(32);
    const outView = new DataView(out.buffer);
    h.forEach((word, i) => outView.setUint32(i * 4, word));
    return out;
  }

  async function digest(data) {
    if (window.crypto && window.crypto.subtle) {
      return new Uint8Array(await window.crypto.subtle.digest("SHA-256", data));
    }
    return sha256(data);
  }

  // -- what this browser saw while its bets were open (table pages) -------------------------

  var PREFIX = "andar-bahar:commitment:";

  function store() {
    try {
      return window.localStorage;
    } catch (blocked) {
      return null; // private mode, storage switched off: nothing is kept
    }
  }

  // Every commitment shown while bets are open is kept, per table and round, the first
  // one seen; a different one for the same round is kept too, as a warning.
  function keep() {
    var storage = store();
    if (!storage) return;
    document.querySelectorAll(".commitment[data-bets-open][data-commitment]").forEach(function (el) {
      var key = PREFIX + el.dataset.table + ":" + el.dataset.round;
      var seen = storage.getItem(key);
      if (seen === null) {
        storage.setItem(key, el.dataset.commitment);
      } else if (seen !== el.dataset.commitment) {
        storage.setItem(key + ":other", el.dataset.commitment);
      }
    });
  }

  // -- the verify page -------------------------------------------------------------------------

  function show(out, ok, which) {
    out.textContent = out.dataset[which || (ok ? "ok" : "bad")];
    out.className = ok ? "ok" : "bad";
  }

  function rankOf(card) {
    return card.slice(0, -1);
  }

  // The cards turned are the deck's top cards in order, and dealing stopped at the first
  // card of the target rank (the centre card, when there is one, is the first turned).
  function dealtFromDeck(box) {
    var deck = box.dataset.deck.split(" ");
    var dealt = box.dataset.dealt ? box.dataset.dealt.split(" ") : [];
    if (deck.length !== 52 || new Set(deck).size !== 52 || dealt.length === 0) return false;
    for (var i = 0; i < dealt.length; i += 1) {
      if (deck[i] !== dealt[i]) return false;
    }
    var first = box.hasAttribute("data-has-centre") ? 1 : 0;
    var target = box.dataset.target;
    for (var j = first; j < dealt.length; j += 1) {
      var matches = rankOf(dealt[j]) === target;
      if (matches !== (j === dealt.length - 1)) return false;
    }
    return true;
  }

  async function check() {
    keep();
    const box = document.getElementById("verify");
    const out = document.getElementById("browser-check");
    if (!box || !out) return;
    const data = new TextEncoder().encode(box.dataset.deck + "|" + box.dataset.salt);
    const hex = Array.from(await digest(data)).map((b) => b.toString(16).padStart(2, "0")).join("");
    show(out, hex === box.dataset.commitment);
    const seen = document.getElementById("seen-check");
    const storage = store();
    const key = PREFIX + box.dataset.table + ":" + box.dataset.round;
    const kept = storage ? storage.getItem(key) : null;
    if (storage && storage.getItem(key + ":other") !== null) {
      show(seen, false, "twice");
    } else if (kept === null) {
      seen.textContent = seen.dataset.none;
      seen.className = "muted";
    } else {
      show(seen, kept === hex);
    }
    show(document.getElementById("deal-check"), dealtFromDeck(box));
  }
  document.addEventListener("DOMContentLoaded", check);
  // Table pages: what live updates and htmx bring in is kept too.
  document.addEventListener("htmx:afterSettle", keep);
  document.addEventListener("live:update", keep);
})();

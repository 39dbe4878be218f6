// Checks, in the browser itself, that SHA-256("<deck>|<salt>") is the commitment shown before the deal.
(function () {
  "use strict";
  async function check() {
    const box = document.getElementById("verify");
    const out = document.getElementById("browser-check");
    if (!box || !out || !window.crypto || !window.crypto.subtle) return;
    const data = new TextEncoder().encode(box.dataset.deck + "|" + box.dataset.salt);
    const digest = await window.crypto.subtle.digest("SHA-256", data);
    const hex = Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, "0")).join("");
    const ok = hex === box.dataset.commitment;
    out.textContent = ok ? out.dataset.ok : out.dataset.bad;
    out.className = ok ? "ok" : "bad";
  }
  document.addEventListener("DOMContentLoaded", check);
})();

// The WCAG 2.1 contrast of text against what is really behind it, computed in the page
// (page.evaluate of this file's text): returns the failures, [] when every text passes.
//
// Checked: every card's rank and suit against its face ([data-card], .mini-card), every
// button's, chip's and spot's label (and the badges inside them) against the button, and
// every other visible text on the page. The colours are the computed ones; the background
// is found by compositing the background colours of the element and of its ancestors until
// an opaque one (the page's own when none is). An ancestor with a background image or with
// an opacity below 1 would make that unreliable, so it is a failure too.
// Relative luminance and ratio: https://www.w3.org/TR/WCAG21/#dfn-relative-luminance
() => {
  "use strict";
  const MINIMUM = 4.5;

  function parse(text) {
    const match = /rgba?\(([^)]+)\)/.exec(text);
    if (!match) {
      throw new Error("a colour this check cannot read: " + text);
    }
    const parts = match[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  }

  function over(top, bottom) {  // "source over" compositing of two colours
    const a = top.a + bottom.a * (1 - top.a);
    if (a === 0) {
      return { r: 0, g: 0, b: 0, a: 0 };
    }
    const mix = (t, b) => (t * top.a + b * bottom.a * (1 - top.a)) / a;
    return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
  }

  function luminance(c) {
    const channel = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  }

  function ratio(one, two) {
    const l1 = luminance(one);
    const l2 = luminance(two);
    return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  }

  function describe(el) {
    const id = el.id ? "#" + el.id : "";
    const cls = typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return el.tagName.toLowerCase() + id + cls;
  }

  function background(el) {
    const layers = [];
    for (let node = el; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage !== "none") {
        throw new Error("a background image behind text at " + describe(node));
      }
      if (Number(style.opacity) < 1) {
        throw new Error("opacity " + style.opacity + " at " + describe(node));
      }
      const colour = parse(style.backgroundColor);
      if (colour.a > 0) {
        layers.push(colour);
        if (colour.a >= 1) {
          break;
        }
      }
    }
    let result = { r: 255, g: 255, b: 255, a: 1 };  // the canvas, if nothing is opaque
    if (!layers.length || layers[layers.length - 1].a < 1) {
      const root = parse(getComputedStyle(document.documentElement).backgroundColor);
      if (root.a > 0) {
        result = over(root, result);
      }
    }
    for (let i = layers.length - 1; i >= 0; i -= 1) {
      result = over(layers[i], result);
    }
    return result;
  }

  function visible(el) {
    const rect = el.getBoundingClientRect();
    if (rect.width <= 1 || rect.height <= 1) {
      return false;   // not drawn, or drawn for screen readers only (.visually-hidden)
    }
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none" && el.closest("[hidden]") === null;
  }

  function ownText(el) {
    return Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  }

  const failures = [];
  const checked = new Set();

  function check(el, what) {
    if (checked.has(el) || !visible(el)) {
      return;
    }
    checked.add(el);
    try {
      const back = background(el);
      const text = over(parse(getComputedStyle(el).color), back);
      const value = ratio(text, back);
      if (value < MINIMUM) {
        failures.push(what + " " + describe(el) + " '" + el.textContent.trim().slice(0, 30) +
          "': " + value.toFixed(2) + ":1");
      }
    } catch (error) {
      failures.push(what + " " + describe(el) + ": " + error.message);
    }
  }

  // Cards: the rank (text) and the suits (SVG in the card's own colour) against the face.
  document.querySelectorAll("[data-card], .mini-card, .pick").forEach((card) => {
    check(card, "card");
    card.querySelectorAll(".rank").forEach((rank) => check(rank, "card rank"));
  });
  // Buttons, chips, spots: their labels and every text inside them.
  document.querySelectorAll("button, .button, [data-chip], [data-bet]").forEach((control) => {
    if (ownText(control)) {
      check(control, "button");
    }
    control.querySelectorAll("*").forEach((inner) => {
      if (ownText(inner)) {
        check(inner, "button text");
      }
    });
  });
  // Every other text on the page.
  document.querySelectorAll("body *").forEach((el) => {
    if (ownText(el) && !el.closest("svg, script, style, title")) {
      check(el, "text");
    }
  });
  return failures;
}

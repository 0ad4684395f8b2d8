// deliverykit checkout widget: renders the shipping selector of one
// checkout session into every element carrying data-deliverykit-token.
//
// Front-end API, the one merchant front-ends of this API use:
//   window._sw(function (api) { … })   run fn with the api (queued calls
//                                      made before this script loaded run
//                                      when it starts)
//   api.on(event, handler)             subscribe to an event
//   api.suspend()                      freeze the widget while the merchant
//                                      updates the session
//   api.resume()                       reload the session's state and
//                                      unfreeze; fires data_changed
// Events and handler arguments:
//   data_changed (data, meta)          meta: initial_load, price_changed,
//       delivery_type_changed, shipping_method_changed,
//       pickup_location_changed, search_address_changed,
//       external_method_id_changed, category_name_changed
//   summary_changed (data, meta)       meta: total_value_changed,
//       delivery_address_changed, billing_address_changed
//   shipping_option_changed (option)   the chosen option, with its price
// data is the chosen delivery: shipping_method, delivery_type,
// external_method_id, category_name, pickup_location, price, currency,
// total_value, search_address.
//
// window.deliverykitCheckout offers suspend() and resume() as well, and the
// DOM event "deliverykit:shipping-option-change" bubbles from the widget
// element on every choice (detail: option_id, addon_ids, shipping_price,
// currency).
(function () {
  "use strict";
  if (window.deliverykitCheckout) {
    window.deliverykitCheckout.scan();
    return;
  }
  var widgets = [];
  var uid = 0;
  var handlers = {};

  function emit(name) {
    var args = Array.prototype.slice.call(arguments, 1);
    (handlers[name] || []).forEach(function (h) {
      try { h.apply(null, args); } catch (e) { setTimeout(function () { throw e; }); }
    });
  }

  var api = {
    on: function (name, handler) {
      if (typeof handler !== "function") return api;
      (handlers[name] = handlers[name] || []).push(handler);
      return api;
    },
    suspend: function () { widgets.forEach(function (w) { w.suspend(); }); },
    resume: function () { return Promise.all(widgets.map(function (w) { return w.resume(); })); },
  };

  var css =
    ".dk-widget{font:16px/1.4 system-ui,sans-serif;max-width:40rem;box-sizing:border-box}" +
    ".dk-widget fieldset{border:1px solid #ccc;border-radius:6px;margin:0 0 .75rem;padding:.5rem .75rem}" +
    ".dk-widget legend{font-weight:600;padding:0 .25rem}" +
    ".dk-option{display:flex;flex-wrap:wrap;align-items:flex-start;gap:.25rem .75rem;padding:.5rem 0;min-height:44px;cursor:pointer}" +
    ".dk-option input{width:1.25rem;height:1.25rem;margin:.15rem 0 0}" +
    ".dk-main{flex:1 1 12rem}.dk-price{font-weight:600;white-space:nowrap}" +
    ".dk-meta{display:block;color:#555;font-size:.875rem}" +
    ".dk-hours{font-size:.875rem;color:#555;margin:.25rem 0 0}" +
    ".dk-widget[aria-busy=true]{opacity:.6}" +
    ".dk-error{color:#a00}" +
    "@media (max-width:480px){.dk-widget fieldset{padding:.5rem}}";

  function injectStyle() {
    if (document.getElementById("dk-widget-style")) return;
    var s = document.createElement("style");
    s.id = "dk-widget-style";
    s.textContent = css;
    document.head.appendChild(s);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function money(minor, currency, locale) {
    try {
      var f = new Intl.NumberFormat(locale, { style: "currency", currency: currency });
      var digits = f.resolvedOptions().maximumFractionDigits;
      return f.format(minor / Math.pow(10, digits));
    } catch (e) {
      return (minor / 100).toFixed(2) + " " + currency;
    }
  }

  function dates(from, to, locale) {
    var opts = { weekday: "short", day: "numeric", month: "short" };
    var f = new Intl.DateTimeFormat(locale, opts);
    var a = f.format(new Date(from + "T12:00:00Z"));
    if (from === to) return a;
    return a + " – " + f.format(new Date(to + "T12:00:00Z"));
  }

  function meters(m, locale) {
    if (m < 1000) return m + " m";
    return new Intl.NumberFormat(locale, { maximumFractionDigits: m < 10000 ? 1 : 0 }).format(m / 1000) + " km";
  }

  function minutes(n) {
    if (n < 60) return n + " min";
    return Math.floor(n / 60) + " h " + (n % 60) + " min";
  }

  var dayNames = { mon: "Mon", tue: "Tue", wed: "Wed", thu: "Thu", fri: "Fri", sat: "Sat", sun: "Sun" };

  function Widget(root) {
    this.root = root;
    this.token = root.getAttribute("data-deliverykit-token");
    this.base = root.getAttribute("data-deliverykit-base") || "/v1/siw/_/";
    this.suspended = false;
    this.state = null;
    this.group = "dk-option-" + ++uid;
    root.classList.add("dk-widget");
  }

  Widget.prototype.request = function (method, path, body) {
    return fetch(this.base + path, {
      method: method,
      headers: { "X-Widget-Token": this.token, "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) throw new Error(j.error || "HTTP " + r.status);
        return j;
      });
    });
  };

  Widget.prototype.load = function () {
    var w = this;
    w.root.setAttribute("aria-busy", "true");
    return w.request("GET", "widget/state").then(
      function (s) { w.render(s); w.report(s.summary); },
      function (e) { w.fail(e); }
    );
  };

  // report fires data_changed (and summary_changed when the cart total
  // moved) with what changed since the last report.
  Widget.prototype.report = function (now) {
    if (!now) return;
    var was = this.reported;
    this.reported = now;
    var first = !was;
    was = was || {};
    function changed(k) { return !first && JSON.stringify(was[k]) !== JSON.stringify(now[k]); }
    emit("data_changed", copy(now), {
      initial_load: first,
      price_changed: changed("price"),
      delivery_type_changed: changed("delivery_type"),
      shipping_method_changed: changed("shipping_method"),
      pickup_location_changed: changed("pickup_location"),
      search_address_changed: changed("search_address"),
      external_method_id_changed: changed("external_method_id"),
      category_name_changed: changed("category_name"),
    });
    if (changed("total_value")) {
      emit("summary_changed", copy(now), { total_value_changed: true, delivery_address_changed: false, billing_address_changed: false });
    }
  };

  function copy(v) { return v == null ? v : JSON.parse(JSON.stringify(v)); }

  Widget.prototype.fail = function (e) {
    this.root.removeAttribute("aria-busy");
    var p = this.root.querySelector(".dk-error") || this.root.appendChild(el("p", "dk-error"));
    p.setAttribute("role", "alert");
    p.textContent = "Delivery options could not be loaded: " + e.message;
  };

  Widget.prototype.choose = function (optionId, addonIds) {
    var w = this;
    if (w.suspended) return Promise.resolve();
    w.root.setAttribute("aria-busy", "true");
    return w.request("POST", "widget/select", { option_id: optionId, addon_ids: addonIds }).then(
      function (s) {
        w.render(s);
        w.root.dispatchEvent(new CustomEvent("deliverykit:shipping-option-change", {
          bubbles: true,
          detail: { option_id: s.selected, addon_ids: s.addons || [], shipping_price: s.shipping_price, currency: s.currency },
        }));
        var option = copy(s.summary) || {};
        option.id = s.selected;
        option.addons = s.addons || [];
        emit("shipping_option_changed", option);
        w.report(s.summary);
      },
      function (e) { w.fail(e); }
    );
  };

  Widget.prototype.render = function (s) {
    var w = this;
    // The form is rebuilt on every state: keep the keyboard where the
    // shopper is (the focused option or addon, found again by its value).
    var active = document.activeElement;
    var refocus = active && w.root.contains(active) && active.value ? active.type + ":" + active.value : null;
    w.state = s;
    var locale = s.locale || undefined;
    var frozen = s.status !== "ACTIVE" || w.suspended;
    var form = el("form", "dk-form");
    form.setAttribute("aria-label", "Delivery options");
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    if (!s.categories.length) form.appendChild(el("p", null, "No delivery option is available for this address."));
    s.categories.forEach(function (c, ci) {
      var fs = el("fieldset");
      fs.appendChild(el("legend", null, c.name));
      if (c.custom_text) fs.appendChild(el("p", "dk-meta", c.custom_text));
      c.options.forEach(function (o) {
        var label = el("label", "dk-option");
        var input = el("input");
        input.type = "radio";
        // One radio group per category: arrow keys move within it, Tab
        // goes to the next category.
        input.name = w.group + "-" + ci;
        input.value = o.id;
        input.checked = o.id === s.selected;
        input.disabled = frozen;
        input.addEventListener("change", function () { if (input.checked) w.choose(o.id, []); });
        label.appendChild(input);
        var main = el("span", "dk-main");
        var title = o.location ? o.location.name : o.carrier + " " + o.product;
        main.appendChild(el("span", "dk-title", title));
        main.appendChild(el("span", "dk-meta", (o.location ? o.carrier + " " + o.product + " · " : "") + dates(o.earliest_date, o.latest_date, locale)));
        if (o.location) {
          var loc = o.location;
          var addr = loc.address ? (loc.address.address_lines || []).concat([loc.address.city || ""]).join(", ") : "";
          if (addr) main.appendChild(el("span", "dk-meta", addr));
          if (loc.distance && loc.distance.walking) {
            // Walking figures for places within reach on foot, driving
            // figures beyond.
            var d = loc.distance.walking.value < 3000 ? loc.distance.walking : loc.distance.driving;
            var how = d === loc.distance.walking ? " walk" : " drive";
            main.appendChild(el("span", "dk-meta dk-distance", meters(d.value, locale) + " · " + minutes(d.duration) + how));
          }
          if (loc.operational_hours) {
            var hours = el("ul", "dk-hours");
            hours.setAttribute("aria-label", "Opening hours");
            ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].forEach(function (d) {
              hours.appendChild(el("li", null, dayNames[d] + " " + (loc.operational_hours[d] || "closed")));
            });
            var det = el("details");
            det.appendChild(el("summary", null, "Opening hours"));
            det.appendChild(hours);
            main.appendChild(det);
          }
        }
        label.appendChild(main);
        label.appendChild(el("span", "dk-price", money(o.price, s.currency, locale)));
        input.setAttribute("aria-label", [title, o.location ? o.carrier + " " + o.product : null,
          dates(o.earliest_date, o.latest_date, locale), money(o.price, s.currency, locale)].filter(Boolean).join(", "));
        fs.appendChild(label);
      });
      var chosenHere = c.options.some(function (o) { return o.id === s.selected; });
      if (chosenHere && c.addons && c.addons.length) {
        (c.addons || []).forEach(function (a) {
          var label = el("label", "dk-option dk-addon");
          var box = el("input");
          box.type = "checkbox";
          box.value = a.id;
          box.setAttribute("aria-label", a.name + ", " + money(a.price, s.currency, locale));
          box.checked = (s.addons || []).indexOf(a.id) >= 0;
          box.disabled = frozen;
          box.addEventListener("change", function () {
            var ids = Array.prototype.map.call(fs.querySelectorAll(".dk-addon input:checked"), function (b) { return b.value; });
            w.choose(s.selected, ids);
          });
          label.appendChild(box);
          label.appendChild(el("span", "dk-main", a.name));
          label.appendChild(el("span", "dk-price", money(a.price, s.currency, locale)));
          fs.appendChild(label);
        });
      }
      form.appendChild(fs);
    });
    var total = el("p", "dk-total", "Shipping: " + money(s.shipping_price, s.currency, locale));
    total.setAttribute("aria-live", "polite");
    form.appendChild(total);
    w.root.replaceChildren(form);
    w.root.setAttribute("aria-busy", frozen && w.suspended ? "true" : "false");
    if (refocus) {
      var again = Array.prototype.find.call(form.querySelectorAll("input"), function (i) { return i.type + ":" + i.value === refocus; });
      if (again) again.focus();
    }
  };

  Widget.prototype.suspend = function () {
    this.suspended = true;
    this.root.setAttribute("aria-busy", "true");
    this.root.querySelectorAll("input").forEach(function (i) { i.disabled = true; });
  };

  Widget.prototype.resume = function () {
    this.suspended = false;
    return this.load();
  };

  function scan() {
    injectStyle();
    document.querySelectorAll("[data-deliverykit-token]").forEach(function (root) {
      if (root.deliverykitWidget) return;
      var w = new Widget(root);
      root.deliverykitWidget = w;
      widgets.push(w);
      w.load();
    });
  }

  window.deliverykitCheckout = { suspend: api.suspend, resume: api.resume, scan: scan };

  // The snippet's bootstrap queued the calls made before this script ran
  // in window._sw.q; from now on _sw runs its function at once.
  var queued = (window._sw && window._sw.q) || [];
  window._sw = function (fn) { if (typeof fn === "function") fn(api); };
  queued.forEach(function (args) { window._sw.apply(null, args); });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scan);
  else scan();
})();

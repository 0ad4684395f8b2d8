// deliverykit checkout widget: renders the shipping selector of a
// checkout session into every element carrying data-deliverykit-token
// (the snippet's container).
//
// Front-end API, the one merchant front-ends of this API use:
//   window._sw(function (api) { … })   run fn with the api (queued calls
//                                      made before this script loaded run
//                                      when it starts). _sw is the
//                                      container's data-deliverykit-object:
//                                      a session's snippet_configuration
//                                      renames it, and each name has its
//                                      own api, bound to its containers.
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
//   address_changed (addresses)        the shopper saved the address form:
//       {delivery_address, billing_address}
// data is the chosen delivery: shipping_method, delivery_type,
// external_method_id, category_name, pickup_location, price, currency,
// total_value, search_address, and the shopper's delivery_address and
// billing_address when the widget collects them.
//
// Sessions that collect the shopper's addresses (state.address_form) get
// an address form above the options: native labelled fields, checked as
// the server checks them (required fields, the country's postal code
// pattern, the e-mail address), errors beside their fields and announced.
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
  // The front-end's globals by name (_sw unless renamed): each has its
  // own handlers and acts on its own containers' widgets only, so two
  // widgets on one page do not hear each other's events.
  var globals = {};

  // Names the snippet's bootstrap accepts; the server allows fewer.
  var globalName = /^[A-Za-z_$][\w$]{0,63}$/;

  function globalFor(name) {
    if (globals[name]) return globals[name];
    var handlers = {};
    var mine = function () { return widgets.filter(function (w) { return w.object === name; }); };
    var api = {
      on: function (event, handler) {
        if (typeof handler !== "function") return api;
        (handlers[event] = handlers[event] || []).push(handler);
        return api;
      },
      suspend: function () { mine().forEach(function (w) { w.suspend(); }); },
      resume: function () { return Promise.all(mine().map(function (w) { return w.resume(); })); },
    };
    var emit = function (event, args) {
      (handlers[event] || []).forEach(function (h) {
        try { h.apply(null, args); } catch (e) { setTimeout(function () { throw e; }); }
      });
    };
    return (globals[name] = { api: api, emit: emit });
  }

  // install makes window[name] run its function with the name's api at
  // once, after running the calls the bootstrap's queue collected.
  function install(name) {
    var cur = window[name];
    if (cur && cur.deliverykit) return;
    var api = globalFor(name).api;
    var run = function (fn) { if (typeof fn === "function") fn(api); };
    run.deliverykit = true;
    window[name] = run;
    ((cur && cur.q) || []).forEach(function (args) { run.apply(null, args); });
  }

  // Colours are variables: the site's accent (branding) and a dark
  // scheme when the shopper's system asks for one.
  var css =
    ".dk-widget{--dk-accent:#1a5fb4;--dk-fg:#1c1c1c;--dk-muted:#555;--dk-bg:#fff;--dk-line:#ccc;--dk-chosen:#f2f7ff;" +
    "color:var(--dk-fg);background:var(--dk-bg);font:16px/1.4 system-ui,sans-serif;max-width:40rem;box-sizing:border-box;padding:.5rem;border-radius:8px}" +
    "@media (prefers-color-scheme:dark){.dk-widget{--dk-fg:#eee;--dk-muted:#b8b8b8;--dk-bg:#1e1e1e;--dk-line:#555;--dk-chosen:#26303d}}" +
    ".dk-brand{display:flex;align-items:center;gap:.5rem;margin:0 0 .5rem;font-weight:600}.dk-brand img{max-height:2rem;max-width:8rem}" +
    ".dk-widget fieldset{border:1px solid var(--dk-line);border-radius:6px;margin:0 0 .75rem;padding:.5rem .75rem}" +
    ".dk-widget legend{font-weight:600;padding:0 .25rem}" +
    ".dk-option{display:flex;flex-wrap:wrap;align-items:flex-start;gap:.25rem .75rem;padding:.5rem;margin:0 -.5rem;min-height:44px;cursor:pointer;border-radius:4px}" +
    ".dk-option:has(input:checked){background:var(--dk-chosen)}" +
    ".dk-option input{width:1.25rem;height:1.25rem;margin:.15rem 0 0;accent-color:var(--dk-accent)}" +
    ".dk-option input:focus-visible{outline:3px solid var(--dk-accent);outline-offset:2px}" +
    ".dk-main{flex:1 1 12rem}.dk-price{font-weight:600;white-space:nowrap}" +
    ".dk-meta{display:block;color:var(--dk-muted);font-size:.875rem}" +
    ".dk-hours{font-size:.875rem;color:var(--dk-muted);margin:.25rem 0 0;padding-left:1rem}" +
    ".dk-widget summary{color:var(--dk-accent);cursor:pointer;font-size:.875rem}" +
    ".dk-total{font-weight:600;margin:.25rem 0 0}" +
    ".dk-note{color:var(--dk-muted)}" +
    ".dk-widget[aria-busy=true]{opacity:.6}" +
    ".dk-error{color:#c01c28}" +
    ".dk-widget [hidden]{display:none!important}" +
    ".dk-address{margin:0 0 .75rem}.dk-grid{display:grid;grid-template-columns:1fr 1fr;gap:.5rem .75rem}" +
    ".dk-field{display:flex;flex-direction:column;gap:.2rem;min-width:0}.dk-field.dk-wide{grid-column:1/-1}" +
    ".dk-field label{font-size:.875rem;font-weight:600}" +
    ".dk-field input,.dk-field select{font:inherit;min-height:44px;box-sizing:border-box;width:100%;padding:.4rem .5rem;" +
    "border:1px solid var(--dk-line);border-radius:4px;background:var(--dk-bg);color:var(--dk-fg)}" +
    ".dk-field input:focus-visible,.dk-field select:focus-visible,.dk-save:focus-visible,.dk-check input:focus-visible{outline:3px solid var(--dk-accent);outline-offset:2px}" +
    ".dk-field [aria-invalid=true]{border-color:#c01c28;border-width:2px}" +
    ".dk-field .dk-error{font-size:.875rem;margin:0}" +
    ".dk-check{display:flex;align-items:center;gap:.5rem;min-height:44px;margin:.5rem 0 0;cursor:pointer}" +
    ".dk-check input{width:1.25rem;height:1.25rem;accent-color:var(--dk-accent)}" +
    ".dk-save{font:inherit;font-weight:600;min-height:44px;padding:.4rem 1rem;margin:.75rem 0 0;border:0;border-radius:6px;" +
    "background:var(--dk-accent);color:#fff;cursor:pointer}" +
    ".dk-status{margin:.5rem 0 0;color:var(--dk-muted)}" +
    "@media (max-width:480px){.dk-grid{grid-template-columns:1fr}}" +
    "@media (max-width:480px){.dk-widget{padding:.25rem}.dk-widget fieldset{padding:.5rem}}";

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

  // Prices and dates come written by the server (price_text, dates_text,
  // shipping_price_text), as the tracking and return pages write them, so
  // one amount reads the same on every page the shopper sees.

  function meters(m, locale) {
    if (m < 1000) return m + " m";
    return new Intl.NumberFormat(locale, { maximumFractionDigits: m < 10000 ? 1 : 0 }).format(m / 1000) + " km";
  }

  // fill replaces {name} placeholders of a catalog text.
  function fill(text, values) {
    return String(text).replace(/\{([a-z_]+)\}/g, function (m, k) { return k in values ? values[k] : m; });
  }

  function minutes(n, t) {
    if (n < 60) return fill(t["widget.minutes"], { m: n });
    return fill(t["widget.hours_minutes"], { h: Math.floor(n / 60), m: n % 60 });
  }

  function Widget(root) {
    this.root = root;
    this.token = root.getAttribute("data-deliverykit-token");
    this.base = root.getAttribute("data-deliverykit-base") || "/v1/siw/_/";
    this.suspended = false;
    this.state = null;
    this.group = "dk-option-" + ++uid;
    var name = root.getAttribute("data-deliverykit-object");
    this.object = globalName.test(name || "") ? name : "_sw";
    root.classList.add("dk-widget");
  }

  // emit fires an event at the handlers of this widget's global.
  Widget.prototype.emit = function (event) {
    globalFor(this.object).emit(event, Array.prototype.slice.call(arguments, 1));
  };

  Widget.prototype.request = function (method, path, body) {
    return fetch(this.base + path, {
      method: method,
      headers: { "X-Widget-Token": this.token, "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) {
          var e = new Error(j.error || "HTTP " + r.status);
          e.status = r.status;
          e.body = j;
          throw e;
        }
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
    this.emit("data_changed", copy(now), {
      initial_load: first,
      price_changed: changed("price"),
      delivery_type_changed: changed("delivery_type"),
      shipping_method_changed: changed("shipping_method"),
      pickup_location_changed: changed("pickup_location"),
      search_address_changed: changed("search_address"),
      external_method_id_changed: changed("external_method_id"),
      category_name_changed: changed("category_name"),
    });
    var totalMoved = changed("total_value");
    var deliveryMoved = changed("delivery_address");
    var billingMoved = changed("billing_address");
    if (totalMoved || deliveryMoved || billingMoved) {
      this.emit("summary_changed", copy(now), {
        total_value_changed: totalMoved,
        delivery_address_changed: deliveryMoved,
        billing_address_changed: billingMoved,
      });
    }
    if (deliveryMoved || billingMoved) {
      this.emit("address_changed", { delivery_address: copy(now.delivery_address), billing_address: copy(now.billing_address) });
    }
  };

  function copy(v) { return v == null ? v : JSON.parse(JSON.stringify(v)); }

  Widget.prototype.fail = function (e) {
    this.root.removeAttribute("aria-busy");
    var p = this.root.querySelector(".dk-error") || this.root.appendChild(el("p", "dk-error"));
    p.setAttribute("role", "alert");
    var t = (this.state && this.state.messages) || {};
    p.textContent = t["widget.load_failed"] || "Delivery options could not be loaded. Please try again.";
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
        w.emit("shipping_option_changed", option);
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
    var t = s.messages || {};
    var frozen = s.status !== "ACTIVE" || w.suspended;
    var b = s.branding;
    if (b && /^#[0-9a-fA-F]{3,6}$/.test(b.accent_color || "")) w.root.style.setProperty("--dk-accent", b.accent_color);
    var form = el("form", "dk-form");
    form.setAttribute("aria-label", t["widget.options_label"] || "Delivery options");
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    if (b && (b.logo_url || b.display_name)) {
      var brand = el("p", "dk-brand");
      if (/^https:\/\//.test(b.logo_url || "")) {
        var img = el("img");
        img.alt = b.display_name || "";
        // A logo that does not load gives way to the shop's name.
        img.addEventListener("error", function () { img.replaceWith(el("span", null, b.display_name || "")); });
        img.src = b.logo_url;
        brand.appendChild(img);
      } else {
        brand.appendChild(el("span", null, b.display_name));
      }
      form.appendChild(brand);
    }
    if (s.needs_postal_code) form.appendChild(el("p", "dk-note", t["widget.needs_postal_code"]));
    if (!s.categories.length) form.appendChild(el("p", null, t["widget.no_options"]));
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
        main.appendChild(el("span", "dk-meta", (o.location ? o.carrier + " " + o.product + " · " : "") + o.dates_text));
        if (o.location) {
          var loc = o.location;
          var addr = loc.address ? (loc.address.address_lines || []).concat([loc.address.city || ""]).join(", ") : "";
          if (addr) main.appendChild(el("span", "dk-meta", addr));
          if (loc.distance && loc.distance.walking) {
            // Walking figures for places within reach on foot, driving
            // figures beyond.
            var walk = loc.distance.walking.value < 3000;
            var d = walk ? loc.distance.walking : loc.distance.driving;
            main.appendChild(el("span", "dk-meta dk-distance", fill(t[walk ? "widget.walk" : "widget.drive"],
              { distance: meters(d.value, locale), duration: minutes(d.duration, t) })));
          }
          if (loc.operational_hours) {
            var hours = el("ul", "dk-hours");
            hours.setAttribute("aria-label", t["widget.opening_hours"]);
            ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].forEach(function (d) {
              hours.appendChild(el("li", null, t["day." + d] + " " + (loc.operational_hours[d] || t["widget.closed"])));
            });
            var det = el("details");
            det.appendChild(el("summary", null, t["widget.opening_hours"]));
            det.appendChild(hours);
            main.appendChild(det);
          }
        }
        label.appendChild(main);
        label.appendChild(el("span", "dk-price", o.price_text));
        input.setAttribute("aria-label", [title, o.location ? o.carrier + " " + o.product : null,
          o.dates_text, o.price_text].filter(Boolean).join(", "));
        fs.appendChild(label);
      });
      var chosenHere = c.options.some(function (o) { return o.id === s.selected; });
      if (chosenHere && c.addons && c.addons.length) {
        (c.addons || []).forEach(function (a) {
          var label = el("label", "dk-option dk-addon");
          var box = el("input");
          box.type = "checkbox";
          box.value = a.id;
          box.setAttribute("aria-label", a.name + ", " + a.price_text);
          box.checked = (s.addons || []).indexOf(a.id) >= 0;
          box.disabled = frozen;
          box.addEventListener("change", function () {
            var ids = Array.prototype.map.call(fs.querySelectorAll(".dk-addon input:checked"), function (b) { return b.value; });
            w.choose(s.selected, ids);
          });
          label.appendChild(box);
          label.appendChild(el("span", "dk-main", a.name));
          label.appendChild(el("span", "dk-price", a.price_text));
          fs.appendChild(label);
        });
      }
      form.appendChild(fs);
    });
    var total = el("p", "dk-total", fill(t["widget.shipping"], { price: s.shipping_price_text }));
    total.setAttribute("aria-live", "polite");
    form.appendChild(total);
    // The address form stays where it is (moving it would take the
    // keyboard from the shopper); only the options are replaced.
    if (s.address_form) {
      w.addressForm(s, t, locale, frozen);
      if (w.addrBox.parentNode !== w.root) w.root.replaceChildren(w.addrBox);
      if (w.optForm && w.optForm.parentNode === w.root) w.root.replaceChild(form, w.optForm);
      else w.root.appendChild(form);
    } else {
      w.root.replaceChildren(form);
    }
    w.optForm = form;
    w.root.setAttribute("aria-busy", frozen && w.suspended ? "true" : "false");
    if (refocus) {
      var again = Array.prototype.find.call(form.querySelectorAll("input"), function (i) { return i.type + ":" + i.value === refocus; });
      if (again) again.focus();
    }
  };

  // The address form is built once and kept across renders, so what the
  // shopper types survives a state reload; it is filled from the state
  // only while the shopper has not changed it.
  var deliveryFields = [
    ["first_name", "widget.address.first_name", "given-name", true],
    ["last_name", "widget.address.last_name", "family-name", true],
    ["company_name", "widget.address.company", "organization", false, true],
    ["street", "widget.address.street", "address-line1", true],
    ["street_number", "widget.address.street_number", "", true],
    ["apartment_number", "widget.address.apartment", "address-line2", false, true],
    ["postal_code", "widget.address.postal_code", "postal-code", true],
    ["city", "widget.address.city", "address-level2", true],
    ["region", "widget.address.region", "address-level1", true, true],
    ["country", "widget.address.country", "country", true, true],
    ["email", "widget.address.email", "email", true],
    ["phone", "widget.address.phone", "tel", false],
  ];
  // The billing address asks for no e-mail address or phone.
  var billingFields = deliveryFields.filter(function (f) { return f[0] !== "email" && f[0] !== "phone"; });

  function countryName(code, locale) {
    try { return new Intl.DisplayNames(locale ? [locale] : [], { type: "region" }).of(code) || code; } catch (e) { return code; }
  }

  Widget.prototype.addressSection = function (kind, fields, s, t, locale) {
    var w = this;
    var fs = el("fieldset", "dk-address-" + kind);
    fs.appendChild(el("legend", null, t[kind === "delivery" ? "widget.address.legend" : "widget.address.billing_legend"]));
    var grid = el("div", "dk-grid");
    var inputs = {};
    fields.forEach(function (f) {
      var name = f[0], id = w.group + "-" + kind + "-" + name;
      var box = el("div", "dk-field" + (f[4] ? " dk-wide" : ""));
      var label = el("label", null, t[f[1]]);
      label.htmlFor = id;
      var input;
      if (name === "country") {
        input = el("select");
        s.address_form.countries.forEach(function (c) {
          var o = el("option", null, countryName(c.country, locale));
          o.value = c.country;
          input.appendChild(o);
        });
        input.addEventListener("change", function () { w.showRegion(kind); });
      } else {
        input = el("input");
        input.type = name === "email" ? "email" : name === "phone" ? "tel" : "text";
      }
      input.id = id;
      input.name = name;
      if (f[2]) input.autocomplete = (kind === "billing" ? "billing " : "shipping ") + f[2];
      if (f[3] && name !== "region") input.required = true;
      var err = el("p", "dk-error");
      err.id = id + "-error";
      err.hidden = true;
      input.setAttribute("aria-describedby", err.id);
      input.addEventListener("input", function () { w.addrDirty = true; w.fieldError(input, null); });
      box.appendChild(label);
      box.appendChild(input);
      box.appendChild(err);
      grid.appendChild(box);
      inputs[name] = input;
    });
    fs.appendChild(grid);
    return { el: fs, inputs: inputs };
  };

  Widget.prototype.addressForm = function (s, t, locale, frozen) {
    var w = this;
    var af = s.address_form;
    if (!w.addrBox) {
      var box = el("form", "dk-address");
      box.noValidate = true; // checked here, with the catalog's texts
      box.setAttribute("aria-label", t["widget.address.legend"]);
      w.delivery = w.addressSection("delivery", deliveryFields, s, t, locale);
      w.billing = w.addressSection("billing", billingFields, s, t, locale);
      var check = el("label", "dk-check");
      w.separate = el("input");
      w.separate.type = "checkbox";
      w.separate.addEventListener("change", function () {
        w.addrDirty = true;
        w.billing.el.hidden = !w.separate.checked;
      });
      check.appendChild(w.separate);
      check.appendChild(el("span", null, t["widget.address.separate_billing"]));
      var save = el("button", "dk-save", t["widget.address.save"]);
      save.type = "submit";
      w.addrStatus = el("p", "dk-status");
      w.addrStatus.setAttribute("role", "status");
      box.appendChild(w.delivery.el);
      box.appendChild(check);
      box.appendChild(w.billing.el);
      box.appendChild(save);
      box.appendChild(w.addrStatus);
      box.addEventListener("submit", function (ev) { ev.preventDefault(); w.saveAddress(); });
      w.addrBox = box;
      w.addrDirty = false;
    }
    if (!w.addrDirty) {
      w.fillAddress(w.delivery, af.delivery_address || { country: af.countries[0] && af.countries[0].country });
      w.fillAddress(w.billing, af.billing_address || { country: af.countries[0] && af.countries[0].country });
      w.separate.checked = !!af.billing_address;
    }
    w.billing.el.hidden = !w.separate.checked;
    w.showRegion("delivery");
    w.showRegion("billing");
    w.addrBox.querySelectorAll("input,select,button").forEach(function (i) { i.disabled = frozen; });
  };

  Widget.prototype.fillAddress = function (sec, a) {
    Object.keys(sec.inputs).forEach(function (k) { sec.inputs[k].value = (a && a[k]) || ""; });
  };

  Widget.prototype.countryOf = function (code) {
    var cs = (this.state && this.state.address_form && this.state.address_form.countries) || [];
    return cs.filter(function (c) { return c.country === code; })[0] || { pattern: "^[A-Za-z0-9][A-Za-z0-9 -]{1,11}$" };
  };

  // showRegion shows the region field only for countries that need one.
  Widget.prototype.showRegion = function (kind) {
    var sec = kind === "delivery" ? this.delivery : this.billing;
    var needed = !!this.countryOf(sec.inputs.country.value).region_required;
    sec.inputs.region.closest(".dk-field").hidden = !needed;
    sec.inputs.region.required = needed;
  };

  Widget.prototype.fieldError = function (input, text) {
    var err = document.getElementById(input.getAttribute("aria-describedby"));
    if (text) {
      input.setAttribute("aria-invalid", "true");
      err.textContent = text;
      err.hidden = false;
    } else {
      input.removeAttribute("aria-invalid");
      err.textContent = "";
      err.hidden = true;
    }
  };

  // readAddress checks one section as the server does and returns the
  // address, or null after marking the fields in error.
  Widget.prototype.readAddress = function (sec, t) {
    var w = this, out = {}, ok = true;
    Object.keys(sec.inputs).forEach(function (k) {
      var input = sec.inputs[k];
      var v = input.value.trim();
      var msg = null;
      var hidden = input.closest(".dk-field").hidden;
      if (!hidden && input.required && !v) msg = t["widget.address.required"];
      else if (k === "postal_code" && v) {
        var c = w.countryOf(sec.inputs.country.value);
        if (!new RegExp(c.pattern).test(v)) {
          msg = c.example ? fill(t["widget.address.postal_invalid"], { example: c.example }) : t["widget.address.postal_invalid_plain"];
        }
      } else if (k === "email" && v && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)) msg = t["widget.address.email_invalid"];
      w.fieldError(input, msg);
      if (msg) ok = false;
      if (v && !hidden) out[k] = v;
    });
    return ok ? out : null;
  };

  Widget.prototype.saveAddress = function () {
    var w = this;
    if (w.suspended) return Promise.resolve();
    var t = (w.state && w.state.messages) || {};
    var d = w.readAddress(w.delivery, t);
    var b = w.separate.checked ? w.readAddress(w.billing, t) : undefined;
    if (!d || b === null) return Promise.resolve(w.addressFailed(t));
    w.addrStatus.textContent = "";
    w.root.setAttribute("aria-busy", "true");
    var body = { delivery_address: d };
    if (b) body.billing_address = b;
    return w.request("POST", "widget/address", body).then(
      function (s) {
        w.addrDirty = false;
        w.render(s);
        w.addrStatus.textContent = t["widget.address.saved"];
        w.report(s.summary);
      },
      function (e) {
        w.root.removeAttribute("aria-busy");
        var details = (e.body && e.body.details) || [];
        if (e.status !== 400 || !details.length) return w.fail(e);
        // The server's verdict, in the shopper's words: each field it
        // names gets the text of its rule.
        details.forEach(function (v) {
          var parts = String(v.field || "").split(".");
          var sec = parts[0] === "billing_address" ? w.billing : w.delivery;
          var input = sec.inputs[parts[1]];
          if (!input) return;
          var c = w.countryOf(sec.inputs.country.value);
          var text = v.rule === "required" ? t["widget.address.required"] :
            v.rule === "postal_code" ? (c.example ? fill(t["widget.address.postal_invalid"], { example: c.example }) : t["widget.address.postal_invalid_plain"]) :
            v.rule === "email" ? t["widget.address.email_invalid"] : t["widget.address.invalid"];
          w.fieldError(input, text);
        });
        w.addressFailed(t);
      }
    );
  };

  // addressFailed says so and takes the keyboard to the first field in
  // error.
  Widget.prototype.addressFailed = function (t) {
    this.addrStatus.textContent = t["widget.address.errors"];
    var first = this.addrBox.querySelector("[aria-invalid=true]");
    if (first) first.focus();
  };

  Widget.prototype.suspend = function () {
    this.suspended = true;
    this.root.setAttribute("aria-busy", "true");
    this.root.querySelectorAll("input,select,button").forEach(function (i) { i.disabled = true; });
  };

  Widget.prototype.resume = function () {
    this.suspended = false;
    return this.load();
  };

  // scan binds a widget to every container not yet bound and installs
  // its global. Widgets whose container left the page are dropped: a
  // front-end that renders the snippet again gets a new container.
  function scan() {
    injectStyle();
    widgets = widgets.filter(function (w) { return w.root.isConnected; });
    document.querySelectorAll("[data-deliverykit-token]").forEach(function (root) {
      if (root.deliverykitWidget) return;
      var w = new Widget(root);
      root.deliverykitWidget = w;
      widgets.push(w);
      install(w.object);
      w.load();
    });
  }

  window.deliverykitCheckout = {
    suspend: function () { widgets.forEach(function (w) { w.suspend(); }); },
    resume: function () { return Promise.all(widgets.map(function (w) { return w.resume(); })); },
    scan: scan,
  };

  // The snippet's bootstrap queued the calls made before this script ran
  // (window._sw.q, or its renamed global's); scan runs them, and from then
  // on the global runs its function at once.
  scan();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scan);

})();

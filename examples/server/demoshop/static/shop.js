// The demo shop's front-end: a cart, the delivery widget inserted as
// merchant front-ends insert it, and a customer form. Every call goes to
// the shop's own backend (/demo/shop/api/…), which holds the API access.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("shop-data").textContent);
  var T = data.texts;
  var money = new Intl.NumberFormat(data.lang, { style: "currency", currency: data.currency });
  var cart = {}; // quantities by SKU
  var sessionId = null;
  var order = null;
  var queue = Promise.resolve(); // backend calls of cart changes, in order

  function $(id) { return document.getElementById(id); }
  function fmt(minor) { return money.format(minor / 100); }
  function status(msg) { $("status").textContent = msg || ""; }
  function fail(err) { status(T.failed + " " + err.message); }

  function answer(resp) {
    return resp.json().then(function (body) {
      if (!resp.ok) throw new Error(body.error || resp.statusText);
      return body;
    });
  }
  function post(path, body) {
    return fetch("/demo/shop/api/" + path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body)
    }).then(answer);
  }
  function get(path) { return fetch("/demo/shop/api/" + path).then(answer); }

  document.querySelectorAll(".price[data-amount]").forEach(function (e) {
    e.textContent = fmt(Number(e.dataset.amount));
  });

  function showSummary(s) {
    $("totals").hidden = false;
    $("total-items").textContent = fmt(s.items);
    $("total-shipping").textContent = fmt(s.shipping);
    $("total").textContent = fmt(s.total);
  }

  function button(text, label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "qty";
    b.textContent = text;
    b.setAttribute("aria-label", label);
    b.addEventListener("click", onClick);
    return b;
  }

  function renderCart() {
    var lines = $("cart-lines");
    lines.textContent = "";
    var skus = Object.keys(cart);
    $("cart-empty").hidden = skus.length > 0;
    $("checkout-steps").hidden = skus.length === 0 || !sessionId;
    if (skus.length === 0) $("totals").hidden = true;
    skus.forEach(function (sku) {
      var li = document.createElement("li");
      var name = document.createElement("span");
      name.className = "name";
      name.textContent = data.names[sku];
      var q = document.createElement("span");
      q.className = "count";
      q.textContent = cart[sku];
      q.setAttribute("aria-label", T.quantity + " " + cart[sku]);
      var sum = document.createElement("span");
      sum.className = "sum";
      sum.textContent = fmt(data.prices[sku] * cart[sku]);
      li.append(name, button("−", T.less + ": " + data.names[sku], function () { change(sku, -1); }), q,
        button("+", T.more + ": " + data.names[sku], function () { change(sku, 1); }), sum);
      lines.appendChild(li);
    });
  }

  function change(sku, by) {
    var n = (cart[sku] || 0) + by;
    if (n > 9) return;
    if (n <= 0) delete cart[sku]; else cart[sku] = n;
    renderCart();
    queue = queue.then(sync).catch(fail);
  }

  // replaceScriptNode re-creates the <script> elements under node: scripts
  // inserted as HTML do not run.
  function replaceScriptNode(node) {
    if (node.tagName === "SCRIPT") {
      var s = document.createElement("script");
      Array.prototype.forEach.call(node.attributes, function (a) { s.setAttribute(a.name, a.value); });
      s.text = node.text;
      node.parentNode.replaceChild(s, node);
      return;
    }
    Array.prototype.slice.call(node.children).forEach(replaceScriptNode);
  }

  function mountWidget(snippet) {
    $("widget-wrapper").innerHTML = snippet;
    replaceScriptNode(document.getElementById("shipwallet-container"));
    window._sw(function (api) {
      // A new choice may change the price: the backend reads the session.
      api.on("data_changed", function (d, meta) {
        if (!meta.initial_load) refreshSummary();
      });
    });
  }

  function refreshSummary() {
    return get("summary?id=" + encodeURIComponent(sessionId)).then(function (r) { showSummary(r.summary); }).catch(fail);
  }

  // sync tells the backend about the cart: the first time it creates the
  // checkout session; then the widget waits (suspend) while the backend
  // updates the session, and reloads (resume). An emptied cart keeps its
  // session, hidden, for the next product.
  function sync(postalCode) {
    if (Object.keys(cart).length === 0) return;
    if (!sessionId) {
      return post("session", { lang: data.lang, cart: cart }).then(function (r) {
        sessionId = r.id;
        $("checkout-steps").hidden = false;
        mountWidget(r.html_snippet);
        showSummary(r.summary);
      });
    }
    status(T.updating);
    window._sw(function (api) { api.suspend(); });
    return post("cart", { id: sessionId, lang: data.lang, cart: cart, postal_code: postalCode || "" }).then(function (r) {
      showSummary(r.summary);
      status("");
    }).finally(function () {
      window._sw(function (api) { api.resume(); });
    });
  }

  document.querySelectorAll("button.add").forEach(function (b) {
    b.addEventListener("click", function () { change(b.dataset.sku, 1); });
  });

  // The options follow the shopper's postal code once it looks Swedish.
  $("c-postal").addEventListener("change", function (e) {
    var code = e.target.value.trim();
    if (sessionId && /^\d{3} ?\d{2}$/.test(code)) queue = queue.then(function () { return sync(code); }).catch(fail);
  });

  $("customer").addEventListener("submit", function (e) {
    e.preventDefault();
    var form = e.target;
    if (!form.reportValidity()) return;
    var place = $("place");
    place.disabled = true;
    status(T.placing);
    var customer = {};
    ["name", "email", "street", "postal_code", "city"].forEach(function (k) { customer[k] = form.elements[k].value.trim(); });
    queue.then(function () {
      return post("complete", { id: sessionId, lang: data.lang, customer: customer });
    }).then(function (r) {
      order = { number: r.order, email: customer.email };
      status("");
      document.querySelector(".layout").hidden = true;
      $("order-no").textContent = r.order;
      $("track-link").href = r.tracking_link;
      $("confirmation").hidden = false;
      $("thanks-h").focus();
    }).catch(function (err) {
      place.disabled = false;
      fail(err);
    });
  });

  $("return-btn").addEventListener("click", function (e) {
    e.target.disabled = true;
    post("return", { order: order.number, email: order.email, lang: data.lang }).then(function (r) {
      var link = $("return-link");
      link.href = r.status_url;
      link.hidden = false;
      link.focus();
    }).catch(function (err) {
      e.target.disabled = false;
      fail(err);
    });
  });
})();

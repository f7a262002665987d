// Quire's pages: upload without leaving the page, live progress, keyboard navigation.
// Plain JavaScript, shipped with the package; nothing is loaded from elsewhere.
"use strict";

(function () {
  const POLL_MS = 2000;

  // Upload: post the form to the API and show its answer (or its error message).
  const form = document.getElementById("upload");
  if (form) {
    const status = document.getElementById("upload-status");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = form.querySelector("button[type=submit]");
      button.disabled = true;
      status.className = "status";
      status.textContent = "Uploading…";
      try {
        const response = await fetch(form.action, {method: "POST", body: new FormData(form),
                                                    credentials: "same-origin"});
        const body = await response.json();
        if (!response.ok) {
          status.className = "status error";
          status.textContent = body.error ? body.error.message : response.statusText;
        } else {
          const doc = body.document;
          status.textContent = (body.created ? "Submitted " : "Already here: ") +
            doc.source_name + " (" + doc.state.replace("_", " ") + ")";
          form.reset();
          refreshRows();
        }
      } catch (err) {
        status.className = "status error";
        status.textContent = "Upload failed: " + err;
      } finally {
        button.disabled = false;
      }
    });
  }

  // Lists: re-read what the page shows (same filters, same page) while it is open.
  const polled = Array.from(document.querySelectorAll("[data-poll]"));
  async function refreshRows() {
    for (const part of polled) {
      try {
        const response = await fetch(part.dataset.poll, {credentials: "same-origin"});
        if (response.ok) {
          const html = await response.text();
          if (html !== part.dataset.last) {
            part.innerHTML = html;
            part.dataset.last = html;
            showCounts(part);
          }
        }
      } catch (err) { /* the server restarts: try again at the next tick */ }
    }
  }
  if (polled.length) setInterval(refreshRows, POLL_MS);

  // The state filter's options say how many documents each shows; keep them current.
  function showCounts(part) {
    const found = part.querySelector("[data-counts]");
    if (!found) return;
    const counts = JSON.parse(found.dataset.counts);
    for (const option of document.querySelectorAll("form.filters option[data-label]")) {
      const n = counts[option.value] || 0;
      option.textContent = option.dataset.label + " (" + n.toLocaleString("en-US") + ")";
    }
  }

  // Filters: a new state shows at once (the Show button does the same without JavaScript).
  for (const select of document.querySelectorAll("form.filters select")) {
    select.addEventListener("change", () => select.form.submit());
  }

  // A document still running: reload its page when it enters another state.
  const watched = document.body.dataset.reloadWhen;
  if (watched) {
    setInterval(async () => {
      try {
        const response = await fetch(watched, {credentials: "same-origin"});
        if (response.ok) {
          const doc = await response.json();
          if (doc.state !== document.body.dataset.state) location.reload();
        }
      } catch (err) { /* try again */ }
    }, POLL_MS);
  }

  // Sessions: ← and → move to the previous and next session.
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    const rel = {ArrowLeft: "prev", ArrowRight: "next"}[event.key];
    const link = rel && document.querySelector('link[rel="' + rel + '"]');
    if (link) {
      event.preventDefault();
      location.href = link.href;
    }
  });
})();

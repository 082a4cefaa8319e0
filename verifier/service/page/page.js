// The page: send the pasted list (or file) to /v1/citations/check, read the NDJSON stream,
// show each report as it arrives, offer the results as JSONL, CSV and corrected BibTeX
// (converted by the service: /v1/render). No external requests.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const records = [];
  let controller = null;

  function headers(extra) {
    const h = Object.assign({ "Content-Type": "application/json" }, extra || {});
    const key = $("key").value.trim();
    if (key) h["Authorization"] = "Bearer " + key;
    return h;
  }

  function cell(text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    return td;
  }

  function statusOf(r) {
    return (r.flags || []).includes("input_error") ? "input_error" : r.status;
  }

  function addRow(r) {
    const tr = document.createElement("tr");
    tr.dataset.index = r.index;
    tr.dataset.status = statusOf(r);
    const st = statusOf(r);
    const disc = (r.discrepancies || []).map((d) => d.field + ": cited " + d.cited + ", found " + d.found).join("; ");
    const corrected = r.correction ? r.correction.apa : (r.error || "");
    tr.append(cell(String(r.index + 1)), cell(r.input || ""), cell(st.replace("_", " "), "status " + st),
              cell(disc), cell(corrected));
    const body = $("results").tBodies[0];
    const after = Array.from(body.rows).find((row) => Number(row.dataset.index) > r.index);
    body.insertBefore(tr, after || null);
  }

  function setBusy(busy) {
    $("check").disabled = busy;
    $("stop").disabled = !busy;
    document.querySelectorAll("#downloads button").forEach((b) => { b.disabled = busy || records.length === 0; });
  }

  async function problemText(response) {
    try {
      const p = await response.json();
      return (p.title || "Error") + ": " + (p.detail || "");
    } catch (e) {
      return "HTTP " + response.status;
    }
  }

  async function readFile() {
    const file = $("file").files[0];
    if (!file) return null;
    return { text: await file.text(), name: file.name };
  }

  async function check(event) {
    event.preventDefault();
    $("error").textContent = "";
    records.length = 0;
    $("results").tBodies[0].replaceChildren();
    const file = await readFile();
    const text = file ? file.text : $("refs").value;
    if (!text.trim()) { $("error").textContent = "Paste some references or choose a file."; return; }
    const body = { document: text, format: $("format").value };
    if (file) body.filename = file.name;
    controller = new AbortController();
    setBusy(true);
    $("progress").textContent = "Checking…";
    try {
      const response = await fetch("/v1/citations/check", {
        method: "POST", body: JSON.stringify(body), signal: controller.signal,
        headers: headers({ "Accept": "application/x-ndjson" }),
      });
      if (!response.ok) { $("error").textContent = await problemText(response); return; }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 1);
          if (!line.trim()) continue;
          const r = JSON.parse(line);
          records.push(r);
          addRow(r);
          $("progress").textContent = records.length + " checked…";
        }
      }
      $("progress").textContent = "Done: " + records.length + " citations checked.";
    } catch (e) {
      if (e.name === "AbortError") $("progress").textContent = "Stopped after " + records.length + " citations.";
      else $("error").textContent = String(e);
    } finally {
      controller = null;
      setBusy(false);
    }
  }

  async function download(format) {
    const sorted = records.slice().sort((a, b) => a.index - b.index);
    const ndjson = sorted.map((r) => JSON.stringify(r)).join("\n") + "\n";
    let blob;
    if (format === "jsonl") {
      blob = new Blob([ndjson], { type: "application/x-ndjson" });
    } else {
      const response = await fetch("/v1/render?format=" + format, {
        method: "POST", body: ndjson, headers: headers({ "Content-Type": "application/x-ndjson" }),
      });
      if (!response.ok) { $("error").textContent = await problemText(response); return; }
      blob = await response.blob();
    }
    const ext = { jsonl: "jsonl", csv: "csv", bibtex: "bib" }[format];
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "citations." + ext;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("form").addEventListener("submit", check);
    $("stop").addEventListener("click", () => { if (controller) controller.abort(); });
    document.querySelectorAll("#downloads button").forEach((b) => {
      b.addEventListener("click", () => download(b.dataset.format));
    });
  });
})();

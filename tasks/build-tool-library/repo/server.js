// Alder Street Tool Library — a tiny server with no dependencies.
"use strict";
const http = require("http");
const fs = require("fs");
const path = require("path");
const { URL } = require("url");

const PORT = Number(process.env.PORT) || 3000;
const PUBLIC = path.join(__dirname, "public");
const TOOLS = JSON.parse(fs.readFileSync(path.join(__dirname, "data", "tools.json"), "utf8"));

const TYPES = { ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon" };

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const NAV = [
  { label: "Home", href: "/", key: "home" }
];

function layout(title, body, current, opts = {}) {
  const links = NAV.map((n) => `<li><a href="${n.href}"${n.key === current ? ' aria-current="page"' : ""}>${n.label}</a></li>`).join("");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${esc(title)} — Alder Street Tool Library</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/css/styles.css">
</head>
<body>
  <header class="site-header">
    <a class="brand" href="/"><img src="/images/logo.svg" alt="" width="40" height="40"><span>Alder Street Tool Library</span></a>
    <nav class="site-nav"><ul>${links}</ul></nav>
  </header>
  <main id="main">
${body}
  </main>
  <footer class="site-footer">
    <p>Alder Street Tool Library · Community Hall, 5 Alder Street · Open Saturdays 10:00–14:00</p>
  </footer>
</body>
</html>`;
}

function send(res, status, html, headers = {}) {
  res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", ...headers });
  res.end(html);
}

function sendJson(res, data) {
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(data));
}

function serveStatic(req, res, pathname) {
  const file = path.normalize(path.join(PUBLIC, pathname));
  if (!file.startsWith(PUBLIC + path.sep)) return false;
  let data;
  try {
    data = fs.readFileSync(file);
  } catch {
    return false;
  }
  res.writeHead(200, { "Content-Type": TYPES[path.extname(file)] || "application/octet-stream" });
  res.end(data);
  return true;
}

function homePage() {
  return `    <section class="hero">
      <div>
        <h1>Borrow the tool, skip the shop</h1>
        <p>A volunteer-run lending library in the back of the Alder Street community hall. Members borrow drills, ladders and garden tools for a week at a time, for free.</p>
        <p>Membership is open to anyone living in the Alder and Millbrook wards. Bring proof of address on a Saturday morning.</p>
      </div>
      <img src="/images/shed.svg" alt="The tool shed behind the community hall, with tools hanging on the wall" width="420" height="300">
    </section>`;
}

function notFound(res) {
  res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" });
  res.end("Not found");
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (url.pathname === "/") return send(res, 200, layout("Home", homePage(), "home"));
  if (req.method === "GET" && serveStatic(req, res, url.pathname)) return;
  notFound(res);
});

server.listen(PORT, "0.0.0.0", () => {
  console.log(`Tool library listening on http://0.0.0.0:${PORT}`);
});
